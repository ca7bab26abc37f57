-- The moderation log (GET /api/v1/moderation/log): one row per moderator action (approve,
-- spam, delete, restore, ban, unban) and per hold the server decided (held, reported),
-- inserted in the same transaction as the action, so the log holds exactly what was done.
-- actor_id NULL: the server itself (a comment held by its spam rules or by reports).
CREATE TABLE moderation_log (
  id INTEGER PRIMARY KEY,  -- SQLite's rowid: 64-bit
  at BIGINT NOT NULL,
  actor_id BIGINT,
  action TEXT NOT NULL,
  comment_id BIGINT,
  user_id BIGINT,
  reason TEXT NOT NULL DEFAULT ''
);
-- The moderator role (admin ⊃ moderator ⊃ author ⊃ user). SQLite cannot change a CHECK in
-- place; a column's own CHECK goes with it, so the column is renamed, a new one with the new
-- CHECK takes its values, and the old one is dropped (SQLite 3.35+). Nothing indexes it.
ALTER TABLE users RENAME COLUMN role TO role_before_moderators;
ALTER TABLE users ADD COLUMN role TEXT NOT NULL DEFAULT 'user'
  CHECK (role IN ('user', 'author', 'moderator', 'admin'));
UPDATE users SET role = role_before_moderators;
ALTER TABLE users DROP COLUMN role_before_moderators;
