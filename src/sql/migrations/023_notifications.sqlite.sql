-- Notifications (issue 44, API.md "Notifications").
--
-- The outbox: one row per notice and recipient, inserted in the same transaction as the write
-- that causes it (a comment, an approval), so a committed cause always has its notices and a
-- rolled-back one has none. A delivery worker claims due rows with a lease (lease_owner,
-- lease_until: another worker takes a row only once its lease has passed, so a worker that
-- died between claim and send is replaced, and two live ones never send the same row at once),
-- sends, and marks the row delivered in a statement that names its own lease. event_id is the
-- notice's identity on the wire (Message-ID, Plaudit-Event-Id): a row sent twice (a worker that
-- sent and died before marking) carries the same id, for the receiver to drop the second.
-- channel: 'mail' (recipient: 'u:<user id>' or 'g:<guest address id>') or 'webhook'
-- (recipient: the URL itself). attempts and due_at give the backoff; failed_at
-- and last_error record a row given up after the bound. channel 'event' is a cause not yet
-- fanned out to its recipients (the worker turns it into mail and webhook rows in one
-- transaction, so the comment's own transaction writes one row however many are told).
-- batch: a mail's recipient and thread ('u:7 a:12'): replies to one reader in one thread within
-- a minute join the mail still waiting (payload's items), so a reader gets at most one a minute.
CREATE TABLE outbox (
  id INTEGER PRIMARY KEY,  -- SQLite's rowid: 64-bit, in insert order
  event_id TEXT NOT NULL,
  channel TEXT NOT NULL,
  recipient TEXT NOT NULL,
  kind TEXT NOT NULL,
  payload TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  due_at BIGINT NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0,
  lease_owner TEXT,
  lease_until BIGINT,
  delivered_at BIGINT,
  failed_at BIGINT,
  last_error TEXT,
  batch TEXT,
  UNIQUE (event_id, channel, recipient)
);
CREATE INDEX outbox_due ON outbox (due_at) WHERE delivered_at IS NULL AND failed_at IS NULL;
CREATE INDEX outbox_batch ON outbox (batch, due_at) WHERE batch IS NOT NULL;
-- One reader notice per comment and recipient, however often the comment is approved (held
-- by reports and approved again) and whether it replies to them, mentions them or both.
CREATE TABLE notice_keys (
  key TEXT PRIMARY KEY,
  created_at BIGINT NOT NULL
);

-- A user's address and what they want to hear of (defaults: everything). The address is used
-- only once verified (email_verified_at), through a link whose token's hash is kept here.
-- unsubscribe_key: the random secret of the one-click links in that user's mails.
ALTER TABLE users ADD COLUMN email TEXT;
ALTER TABLE users ADD COLUMN email_verified_at BIGINT;
ALTER TABLE users ADD COLUMN email_token_hash TEXT;
ALTER TABLE users ADD COLUMN email_token_at BIGINT;
ALTER TABLE users ADD COLUMN notify_replies INTEGER NOT NULL DEFAULT 1;
ALTER TABLE users ADD COLUMN notify_article_comments INTEGER NOT NULL DEFAULT 1;
ALTER TABLE users ADD COLUMN notify_moderation INTEGER NOT NULL DEFAULT 1;
ALTER TABLE users ADD COLUMN unsubscribe_key TEXT;
ALTER TABLE users ADD COLUMN notify_language TEXT NOT NULL DEFAULT 'en';
CREATE UNIQUE INDEX users_unsubscribe_key ON users (unsubscribe_key);

-- The comment a reply answers, as its writer named it (comments.parent_id is its top-level
-- comment): a reply approved later still tells the one it answered, a guest's reply too.
ALTER TABLE comments ADD COLUMN answers_id BIGINT;

-- Guests' addresses (issue 43 keeps them on their comments): one row an address, confirmed by
-- a link before any notice is mailed to it, and unsubscribed the same way.
CREATE TABLE guest_addresses (
  id INTEGER PRIMARY KEY,  -- SQLite's rowid: 64-bit, in insert order
  email TEXT NOT NULL UNIQUE,
  verified_at BIGINT,
  token_hash TEXT,
  unsubscribed_at BIGINT,
  unsubscribe_key TEXT NOT NULL UNIQUE,
  language TEXT NOT NULL DEFAULT 'en',
  created_at BIGINT NOT NULL
);
