-- Page threads (API.md "Embedding on other sites") are articles of kind 'page' (migration 017
-- has their pages table).
--
-- SQLite cannot change a CHECK in place: `articles` is rebuilt with 'page' allowed. The like
-- triggers (migration 007) name `articles` in their bodies; legacy_alter_table keeps the
-- RENAME from checking them while the old table is gone. Nothing references `articles` yet.
PRAGMA legacy_alter_table = ON;
CREATE TABLE articles_new (
  id BIGINT PRIMARY KEY,
  kind TEXT NOT NULL CHECK (kind IN ('article', 'post', 'page')),
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
  comment_count BIGINT NOT NULL DEFAULT 0,
  like_seq BIGINT NOT NULL DEFAULT 0,
  comment_ver BIGINT NOT NULL DEFAULT 0,
  ver BIGINT NOT NULL DEFAULT 1,
  cache_seq BIGINT NOT NULL DEFAULT 0,
  thread_seq BIGINT NOT NULL DEFAULT 0
);
INSERT INTO articles_new (id, kind, author_id, title, summary, content, status, pinned,
    allow_comments, created_at, updated_at, published_at, view_count, like_count, comment_count,
    like_seq, comment_ver, ver, cache_seq, thread_seq)
  SELECT id, kind, author_id, title, summary, content, status, pinned, allow_comments,
    created_at, updated_at, published_at, view_count, like_count, comment_count, like_seq,
    comment_ver, ver, cache_seq, thread_seq FROM articles;
DROP TABLE articles;
ALTER TABLE articles_new RENAME TO articles;
PRAGMA legacy_alter_table = OFF;
CREATE INDEX articles_published ON articles (status, pinned, published_at, id);
CREATE INDEX articles_author ON articles (author_id, id);
