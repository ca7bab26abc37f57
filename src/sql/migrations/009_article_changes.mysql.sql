-- The change feed of articles (GET /api/v1/changes) as an outbox: one row per create, update,
-- publish, unpublish and delete, inserted in the same transaction as the article change, so
-- a committed change is in the feed and a rolled-back one is not, whatever happens to Redis.
--
-- Ids are handed out by the one-row counter article_change_seq, claimed by an UPDATE in the
-- article's transaction (sql/article_changes.cpp): the row lock makes ids commit in id order
-- and without gaps, so a reader paging `WHERE id > cursor` never passes an id that commits
-- later. (On SQLite BEGIN IMMEDIATE already serialises writers; the counter is what
-- PostgreSQL needs, where ids from a sequence can become visible out of order.)
-- MySQL: as PostgreSQL (the counter row's lock orders ids as it does there).
-- Retention: the newest 100,000 rows are kept, trimmed in batches on write.
-- at: ms since the Unix epoch (the article's updated_at, or the time of the delete).
CREATE TABLE article_changes (
  id BIGINT PRIMARY KEY,
  article_id BIGINT NOT NULL,
  op TEXT NOT NULL CHECK (op IN ('create', 'update', 'publish', 'unpublish', 'delete')),
  at BIGINT NOT NULL
);
CREATE TABLE article_change_seq (
  one INTEGER PRIMARY KEY CHECK (one = 1),
  last_id BIGINT NOT NULL
);
INSERT INTO article_change_seq (one, last_id) VALUES (1, 0);
