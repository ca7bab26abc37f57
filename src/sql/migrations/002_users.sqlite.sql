-- Accounts. username_key is the lower-cased username: usernames are ASCII
-- ([A-Za-z0-9_.-]), so lower-casing is exact and uniqueness is case-insensitive.
-- Times are milliseconds since the Unix epoch.
CREATE TABLE users (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  username TEXT NOT NULL,
  username_key TEXT NOT NULL UNIQUE,
  display_name TEXT NOT NULL,
  password_hash TEXT NOT NULL,
  role TEXT NOT NULL CHECK (role IN ('user', 'author', 'admin')),
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL
);
