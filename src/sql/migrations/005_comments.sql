-- Comments: two levels. A top-level comment has parent_id NULL; a reply names its top-level
-- comment (a reply to a reply is stored under the same top-level comment, with
-- reply_to_user_id set to the author it answers). Ids carry their article's like/comment
-- shard in the low 8 bits (id % 256 == article_id % 256), so a comment id alone names its
-- Redis hash slot.
--
-- A delete is soft (deleted = 1, body emptied): a top-level comment with live replies stays as
-- a placeholder. reply_count counts live replies; articles.comment_count counts live comments.
-- ver increases with every change of a row (and articles.comment_ver with every change of
-- comment_count): Redis applies a row or count only when it is newer than the one it holds,
-- so cache writes may arrive in any order and a rebuild may race live writes.
CREATE TABLE comments (
  id BIGINT PRIMARY KEY,
  article_id BIGINT NOT NULL,
  parent_id BIGINT,
  author_id BIGINT NOT NULL REFERENCES users (id),
  reply_to_user_id BIGINT REFERENCES users (id),
  body TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  deleted INTEGER NOT NULL DEFAULT 0,
  reply_count BIGINT NOT NULL DEFAULT 0,
  like_count BIGINT NOT NULL DEFAULT 0,
  like_seq BIGINT NOT NULL DEFAULT 0,
  ver BIGINT NOT NULL DEFAULT 1
);
-- Rebuilding one article's comments from SQL reads them in id order, in chunks.
CREATE INDEX comments_article ON comments (article_id, id);
ALTER TABLE articles ADD COLUMN comment_ver BIGINT NOT NULL DEFAULT 0;
