-- The moderation log (GET /api/v1/moderation/log): one row per moderator action (approve,
-- spam, delete, restore, ban, unban) and per hold the server decided (held, reported),
-- inserted in the same transaction as the action, so the log holds exactly what was done.
-- actor_id NULL: the server itself (a comment held by its spam rules or by reports).
CREATE TABLE moderation_log (
  id BIGSERIAL PRIMARY KEY,
  at BIGINT NOT NULL,
  actor_id BIGINT,
  action TEXT NOT NULL,
  comment_id BIGINT,
  user_id BIGINT,
  reason TEXT NOT NULL DEFAULT ''
);
-- The moderator role (admin ⊃ moderator ⊃ author ⊃ user): the column's CHECK (named by
-- PostgreSQL after the table and column) is replaced.
ALTER TABLE users DROP CONSTRAINT users_role_check;
ALTER TABLE users ADD CONSTRAINT users_role_check
  CHECK (role IN ('user', 'author', 'moderator', 'admin'));
