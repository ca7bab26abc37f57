-- One row per (target, user) that was ever liked: valid = 1 liked, 0 unliked (seed 003's
-- soft delete, so an unlike is an absolute state too). seq orders the changes of a target's
-- shard: the flusher writes a row only when its seq is newer than the stored one, so a
-- replayed, interrupted or reordered flush can never go back in time.
CREATE TABLE likes (
  target_type TEXT NOT NULL CHECK (target_type IN ('a', 'c')),
  target_id BIGINT NOT NULL,
  user_id BIGINT NOT NULL,
  valid INTEGER NOT NULL,
  seq BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  PRIMARY KEY (target_type, target_id, user_id)
);
-- The seq of the change the stored like_count reflects (same rule as likes.seq).
ALTER TABLE articles ADD COLUMN like_seq BIGINT NOT NULL DEFAULT 0;
