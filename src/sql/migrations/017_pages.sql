-- Page threads (API.md "Embedding on other sites"): a page of an embedding site gets one
-- article of kind 'page' (migration 016), found by its normalised URL here. The URL is the
-- key: two instances creating the first comment of one page at once both insert a `pages` row
-- in the transaction that inserts their article; the second (PostgreSQL: after waiting for the
-- first's commit; SQLite serialises writers) finds the URL taken and rolls back
-- (sql/pages.cpp), so a page has at most one thread.
--
-- url: the normalised page URL (common/web_origin.hpp). Deleting the thread deletes the row,
-- so the page's next comment starts a new one.
CREATE TABLE pages (
  url TEXT PRIMARY KEY,
  article_id BIGINT NOT NULL UNIQUE REFERENCES articles (id) ON DELETE CASCADE,
  created_at BIGINT NOT NULL
);

-- The author of every page thread: a page has none, and no commenter may own (edit, delete)
-- its thread. '@' is outside the username alphabet, so nobody can register the name, and the
-- password hash is not one Argon2id can verify, so nobody can sign in as it.
INSERT INTO users (username, username_key, display_name, password_hash, role, created_at,
    updated_at)
  VALUES ('@pages', '@pages', 'Page', '!', 'user', 0, 0);
