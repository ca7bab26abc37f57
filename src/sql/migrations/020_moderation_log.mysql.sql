-- The moderation log (see the PostgreSQL twin), and the moderator role.
CREATE TABLE moderation_log (
  id BIGINT AUTO_INCREMENT PRIMARY KEY,
  at BIGINT NOT NULL,
  actor_id BIGINT,
  action VARCHAR(32) NOT NULL,
  comment_id BIGINT,
  user_id BIGINT,
  reason VARCHAR(1000) NOT NULL DEFAULT ''
);
ALTER TABLE users DROP CONSTRAINT users_role_check;
ALTER TABLE users ADD CONSTRAINT users_role_check
  CHECK (role IN ('user', 'author', 'moderator', 'admin'));
