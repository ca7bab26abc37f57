-- Notifications (see the PostgreSQL twin for the outbox's protocol). MySQL: indexed or
-- defaulted text is a VARCHAR, no partial indexes, AUTO_INCREMENT ids. event_id is ASCII
-- ('mail:article_comment:<comment id>:comment.approved:<comment id>:<ms>' reaches ~90
-- characters with 20-digit ids), a recipient a webhook URL of at most 500 characters
-- (--webhook refuses longer ones) or 'u:<id>' / 'g:<id>'; lease_owner is host:pid:random (a
-- host name alone may be 64 characters). The unique key is 255 + 16·4 + 512·4 = 2,367 bytes
-- of the 3,072 an index holds.
CREATE TABLE outbox (
  id BIGINT AUTO_INCREMENT PRIMARY KEY,
  event_id VARCHAR(255) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  channel VARCHAR(16) NOT NULL,
  recipient VARCHAR(512) NOT NULL,
  kind VARCHAR(32) NOT NULL,
  payload MEDIUMTEXT NOT NULL,
  created_at BIGINT NOT NULL,
  due_at BIGINT NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0,
  lease_owner VARCHAR(255),
  lease_until BIGINT,
  delivered_at BIGINT,
  failed_at BIGINT,
  last_error TEXT,
  batch VARCHAR(128),
  UNIQUE (event_id, channel, recipient)
);
CREATE INDEX outbox_due ON outbox (delivered_at, failed_at, due_at);
CREATE INDEX outbox_batch ON outbox (batch, due_at);
CREATE TABLE notice_keys (
  "key" VARCHAR(255) PRIMARY KEY,
  created_at BIGINT NOT NULL
);
CREATE INDEX notice_keys_created ON notice_keys (created_at);

ALTER TABLE users ADD COLUMN email VARCHAR(320);
ALTER TABLE users ADD COLUMN email_verified_at BIGINT;
ALTER TABLE users ADD COLUMN email_token_hash VARCHAR(128);
ALTER TABLE users ADD COLUMN email_token_at BIGINT;
ALTER TABLE users ADD COLUMN notify_replies INTEGER NOT NULL DEFAULT 1;
ALTER TABLE users ADD COLUMN notify_article_comments INTEGER NOT NULL DEFAULT 1;
ALTER TABLE users ADD COLUMN notify_moderation INTEGER NOT NULL DEFAULT 1;
ALTER TABLE users ADD COLUMN unsubscribe_key VARCHAR(64);
ALTER TABLE users ADD COLUMN notify_language VARCHAR(16) NOT NULL DEFAULT 'en';
CREATE UNIQUE INDEX users_unsubscribe_key ON users (unsubscribe_key);
CREATE INDEX users_email_token ON users (email_token_hash);

ALTER TABLE comments ADD COLUMN answers_id BIGINT;

CREATE TABLE guest_addresses (
  id BIGINT AUTO_INCREMENT PRIMARY KEY,
  email VARCHAR(320) NOT NULL UNIQUE,
  verified_at BIGINT,
  token_hash VARCHAR(128),
  unsubscribed_at BIGINT,
  unsubscribe_key VARCHAR(64) NOT NULL UNIQUE,
  language VARCHAR(16) NOT NULL DEFAULT 'en',
  created_at BIGINT NOT NULL
);
CREATE INDEX guest_addresses_token ON guest_addresses (token_hash);
