-- SQLite: the likes table rebuilt WITHOUT ROWID, so its rows are stored in primary-key order
-- (target_type, target_id, user_id) in one B-tree. As a rowid table it was two B-trees (the
-- rows in insertion order plus the primary key's index), so the flusher's transaction for one
-- shard, whose changes are a few targets' rows, dirtied a page of each for nearly every row:
-- dozens of 4 KiB pages written to the WAL per transaction. Clustered, a target's rows share
-- a few leaf pages.
CREATE TABLE likes_clustered (
  target_type TEXT NOT NULL CHECK (target_type IN ('a', 'c')),
  target_id BIGINT NOT NULL,
  user_id BIGINT NOT NULL,
  valid INTEGER NOT NULL,
  seq BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  PRIMARY KEY (target_type, target_id, user_id)
) WITHOUT ROWID;
INSERT INTO likes_clustered (target_type, target_id, user_id, valid, seq, updated_at)
  SELECT target_type, target_id, user_id, valid, seq, updated_at FROM likes;
DROP TABLE likes;
ALTER TABLE likes_clustered RENAME TO likes;
