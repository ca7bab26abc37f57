-- Page threads are articles of kind 'page' (migration 017 has their pages table).
ALTER TABLE articles DROP CONSTRAINT articles_kind_check;
ALTER TABLE articles ADD CONSTRAINT articles_kind_check
  CHECK (kind IN ('article', 'post', 'page'));
