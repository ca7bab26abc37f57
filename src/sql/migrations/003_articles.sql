-- Articles (long-form, by authors) and posts (forum posts, by anyone): one resource.
-- Ids come from a Redis INCR sequence that resumes above MAX(id) after a Redis loss.
-- Times are ms since the Unix epoch; pinned/allow_comments are 0/1.
-- view_count, like_count and comment_count are absolute values written by the
-- write-behind flusher and the comment service.
CREATE TABLE articles (
  id BIGINT PRIMARY KEY,
  kind TEXT NOT NULL CHECK (kind IN ('article', 'post')),
  author_id BIGINT NOT NULL REFERENCES users (id),
  title TEXT NOT NULL,
  summary TEXT NOT NULL,
  content TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('draft', 'published')),
  pinned INTEGER NOT NULL DEFAULT 0,
  allow_comments INTEGER NOT NULL DEFAULT 1,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  published_at BIGINT,
  view_count BIGINT NOT NULL DEFAULT 0,
  like_count BIGINT NOT NULL DEFAULT 0,
  comment_count BIGINT NOT NULL DEFAULT 0
);
-- The public list (pinned first, newest published first, ties by id) and per-author lists.
CREATE INDEX articles_published ON articles (status, pinned, published_at, id);
CREATE INDEX articles_author ON articles (author_id, id);
