-- See 026_imported_comments.sql. import_key is "disqus:" and 64 hex digits.
CREATE TABLE imported_comments (
  import_key VARCHAR(100) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  idx BIGINT NOT NULL,
  comment_id BIGINT NOT NULL,
  PRIMARY KEY (import_key, idx)
);
