-- Accounts (see the PostgreSQL twin). MySQL: indexed text needs a length, a CHECK is named so
-- migration 020 can replace it, ids come from AUTO_INCREMENT.
CREATE TABLE users (
  id BIGINT AUTO_INCREMENT PRIMARY KEY,
  username VARCHAR(255) NOT NULL,
  username_key VARCHAR(255) NOT NULL UNIQUE,
  display_name TEXT NOT NULL,
  password_hash TEXT NOT NULL,
  role VARCHAR(16) NOT NULL,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  CONSTRAINT users_role_check CHECK (role IN ('user', 'author', 'admin'))
);
