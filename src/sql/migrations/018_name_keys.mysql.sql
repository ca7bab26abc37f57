-- Look-alike names (see 018_name_keys.sql). MySQL: the key column needs a length — 768
-- characters, all of an index's 3,072 bytes in utf8mb4; sql::UserTable keeps every key to
-- that many code points on every database — and has no partial index: the unkeyed accounts
-- are found through (names_keyed, id).
CREATE TABLE user_name_keys (
  name_key VARCHAR(768) PRIMARY KEY,
  user_id BIGINT NOT NULL,
  CONSTRAINT user_name_keys_user FOREIGN KEY (user_id) REFERENCES users (id)
);
ALTER TABLE users ADD COLUMN names_keyed INTEGER NOT NULL DEFAULT 0;
CREATE INDEX users_names_unkeyed ON users (names_keyed, id);
