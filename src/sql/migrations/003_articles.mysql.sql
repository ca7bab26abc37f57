-- Articles and posts (see 003_articles.sql). MySQL: indexed text needs a length, and a
-- column's own REFERENCES is ignored by MySQL, so the foreign key is declared for the table.
CREATE TABLE articles (
  id BIGINT PRIMARY KEY,
  kind VARCHAR(16) NOT NULL,
  author_id BIGINT NOT NULL,
  title TEXT NOT NULL,
  summary TEXT NOT NULL,
  content MEDIUMTEXT NOT NULL,
  status VARCHAR(16) NOT NULL,
  pinned INTEGER NOT NULL DEFAULT 0,
  allow_comments INTEGER NOT NULL DEFAULT 1,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  published_at BIGINT,
  view_count BIGINT NOT NULL DEFAULT 0,
  like_count BIGINT NOT NULL DEFAULT 0,
  comment_count BIGINT NOT NULL DEFAULT 0,
  CONSTRAINT articles_kind_check CHECK (kind IN ('article', 'post')),
  CONSTRAINT articles_status_check CHECK (status IN ('draft', 'published')),
  CONSTRAINT articles_author FOREIGN KEY (author_id) REFERENCES users (id)
);
CREATE INDEX articles_published ON articles (status, pinned, published_at, id);
CREATE INDEX articles_author ON articles (author_id, id);
