-- Moderation (see 019_moderation.sql). MySQL: indexed or defaulted text is a VARCHAR, and
-- there are no partial indexes (the queue's indexes cover every row).
ALTER TABLE comments ADD COLUMN status VARCHAR(16) NOT NULL DEFAULT 'approved';
ALTER TABLE comments ADD CONSTRAINT comments_status_check
  CHECK (status IN ('approved', 'pending', 'spam'));
ALTER TABLE comments ADD COLUMN held_reasons VARCHAR(255) NOT NULL DEFAULT '';
ALTER TABLE comments ADD COLUMN reports BIGINT NOT NULL DEFAULT 0;
ALTER TABLE comments ADD COLUMN removed_body TEXT;
CREATE INDEX comments_held ON comments (status, id);
CREATE INDEX comments_reported ON comments (reports, id);
CREATE INDEX comments_author ON comments (author_id, status);
CREATE TABLE comment_reports (
  comment_id BIGINT NOT NULL,
  user_id BIGINT NOT NULL,
  reason TEXT NOT NULL,
  at BIGINT NOT NULL,
  PRIMARY KEY (comment_id, user_id)
);
ALTER TABLE articles ADD COLUMN moderation VARCHAR(8);
ALTER TABLE articles ADD CONSTRAINT articles_moderation_check
  CHECK (moderation IN ('off', 'first', 'all'));
ALTER TABLE users ADD COLUMN banned_until BIGINT;
ALTER TABLE users ADD COLUMN ban_reason VARCHAR(1000) NOT NULL DEFAULT '';
