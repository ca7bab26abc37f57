-- Page threads (see 017_pages.sql). MySQL: a key holds at most 3,072 bytes; a normalised page
-- URL is ASCII (non-ASCII percent-encoded, hosts in their ASCII form) of at most 2,048 bytes
-- (common/web_origin.hpp), so it is an ASCII column, compared byte for byte.
CREATE TABLE pages (
  url VARCHAR(2048) CHARACTER SET ascii COLLATE ascii_bin PRIMARY KEY,
  article_id BIGINT NOT NULL UNIQUE,
  created_at BIGINT NOT NULL,
  CONSTRAINT pages_article FOREIGN KEY (article_id) REFERENCES articles (id) ON DELETE CASCADE
);
INSERT INTO users (username, username_key, display_name, password_hash, role, created_at,
    updated_at)
  VALUES ('@pages', '@pages', 'Page', '!', 'user', 0, 0);
