-- Small key/value facts about this database (e.g. when it was created, feature markers).
-- MySQL: a key column needs a length (an index takes at most 3,072 bytes, 768 utf8mb4
-- characters), and `key` is a reserved word (the session's ANSI_QUOTES makes "key" a name).
CREATE TABLE plaudit_meta (
  "key" VARCHAR(255) PRIMARY KEY,
  value TEXT NOT NULL
);
