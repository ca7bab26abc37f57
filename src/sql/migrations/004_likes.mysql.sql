-- Like rows (see 004_likes.sql). MySQL: target_type is in the primary key, so it is a CHAR.
CREATE TABLE likes (
  target_type CHAR(1) NOT NULL,
  target_id BIGINT NOT NULL,
  user_id BIGINT NOT NULL,
  valid INTEGER NOT NULL,
  seq BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  PRIMARY KEY (target_type, target_id, user_id),
  CONSTRAINT likes_type_check CHECK (target_type IN ('a', 'c'))
);
ALTER TABLE articles ADD COLUMN like_seq BIGINT NOT NULL DEFAULT 0;
