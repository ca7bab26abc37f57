-- Look-alike names (issue 41, item 14): every user's username and display name take a key, the
-- confusable skeleton of the name (text::NameSkeleton: NFKC case folding, UTS #39 skeleton),
-- and a key belongs to one user, so nobody can appear as "Аdmin" (Cyrillic А) or "adm1n" beside
-- the admin. A user's names may share one key; deleted accounts keep theirs.
-- Keys need ICU, so this script cannot compute them: names_keyed = 0 marks the accounts made
-- before it, whose keys sql::UserTable inserts (oldest account first, a key already taken left
-- to its first owner: existing look-alikes stay, only new ones are refused) in the transaction
-- of the next account it creates.
CREATE TABLE user_name_keys (
  name_key TEXT PRIMARY KEY,
  user_id BIGINT NOT NULL REFERENCES users (id)
);
ALTER TABLE users ADD COLUMN names_keyed INTEGER NOT NULL DEFAULT 0;
CREATE INDEX users_names_unkeyed ON users (id) WHERE names_keyed = 0;
