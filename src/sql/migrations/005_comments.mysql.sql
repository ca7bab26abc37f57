-- Comments (see 005_comments.sql). MySQL: the foreign keys declared for the table.
CREATE TABLE comments (
  id BIGINT PRIMARY KEY,
  article_id BIGINT NOT NULL,
  parent_id BIGINT,
  author_id BIGINT NOT NULL,
  reply_to_user_id BIGINT,
  body TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  deleted INTEGER NOT NULL DEFAULT 0,
  reply_count BIGINT NOT NULL DEFAULT 0,
  like_count BIGINT NOT NULL DEFAULT 0,
  like_seq BIGINT NOT NULL DEFAULT 0,
  ver BIGINT NOT NULL DEFAULT 1,
  CONSTRAINT comments_author FOREIGN KEY (author_id) REFERENCES users (id),
  CONSTRAINT comments_reply_to FOREIGN KEY (reply_to_user_id) REFERENCES users (id)
);
CREATE INDEX comments_article ON comments (article_id, id);
ALTER TABLE articles ADD COLUMN comment_ver BIGINT NOT NULL DEFAULT 0;
