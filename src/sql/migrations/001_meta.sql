-- Small key/value facts about this database (e.g. when it was created, feature markers).
CREATE TABLE plaudit_meta (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
