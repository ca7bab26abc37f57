-- Moderation (API.md "Moderation", docs/moderation.md).
--
-- A comment's status is 'approved', 'pending' or 'spam'; a deletion stays apart (deleted = 1)
-- and keeps the status it had. Every row already here was published: 'approved'.
-- The counts now count what readers see: comments.reply_count the live approved replies of a
-- top-level comment, articles.comment_count the live approved comments whose top-level
-- comment is not a live pending one (its replies wait with it). Rows from before this
-- migration were all approved, so their counts are already right.
-- held_reasons: why it was held, comma-separated (domain/comment_verdict.hpp).
-- reports: distinct readers who reported it since a moderator last decided on it.
-- removed_body: the text a moderator's delete took from `body`, so `restore` can give it back
-- (an author's own delete keeps nothing).
ALTER TABLE comments ADD COLUMN status TEXT NOT NULL DEFAULT 'approved'
  CHECK (status IN ('approved', 'pending', 'spam'));
ALTER TABLE comments ADD COLUMN held_reasons TEXT NOT NULL DEFAULT '';
ALTER TABLE comments ADD COLUMN reports BIGINT NOT NULL DEFAULT 0;
ALTER TABLE comments ADD COLUMN removed_body TEXT;
-- The queue, oldest first: held comments, and reported ones.
CREATE INDEX comments_held ON comments (status, id) WHERE status <> 'approved';
CREATE INDEX comments_reported ON comments (id) WHERE reports > 0;
-- "Has one of theirs been approved?" (policy first).
CREATE INDEX comments_author ON comments (author_id, status);
-- One report per reader per comment.
CREATE TABLE comment_reports (
  comment_id BIGINT NOT NULL,
  user_id BIGINT NOT NULL,
  reason TEXT NOT NULL,
  at BIGINT NOT NULL,
  PRIMARY KEY (comment_id, user_id)
);
-- An article's own policy: NULL follows --moderation.
ALTER TABLE articles ADD COLUMN moderation TEXT CHECK (moderation IN ('off', 'first', 'all'));
-- A ban: writes refused until banned_until (ms since the epoch; NULL: not banned).
ALTER TABLE users ADD COLUMN banned_until BIGINT;
ALTER TABLE users ADD COLUMN ban_reason TEXT NOT NULL DEFAULT '';
