-- Guests (API.md "Guests and sign-in from elsewhere", issue 43): a comment without an account.
--
-- Every guest comment's author_id is the reserved '@guest' account below, so the comment
-- keeps its NOT NULL author and every join; what the guest gave is the comment's own:
-- guest_name: the name shown (1-50 code points; one that looks like a registered user's name
--   is refused, by the name keys of migration 018);
-- guest_email: optional, never shown to anyone but admins (kept for notifications, issue 44);
-- edit_token_hash: the hash of the edit token the 201 gave the guest's browser
--   (domain/guest_token.hpp); NULL for accounts' comments.
ALTER TABLE comments ADD COLUMN guest_name TEXT;
ALTER TABLE comments ADD COLUMN guest_email TEXT;
ALTER TABLE comments ADD COLUMN edit_token_hash TEXT;

-- The author of guest comments, as '@pages' is of page threads (migration 017): '@' is outside
-- the username alphabet and '!' is no password hash, so nobody registers it or signs in as it.
-- names_keyed = 1: it claims no name key (migration 018), so "Guest" stays free for guests and
-- accounts alike.
INSERT INTO users (username, username_key, display_name, password_hash, role, created_at,
    updated_at, names_keyed)
  VALUES ('@guest', '@guest', 'Guest', '!', 'user', 0, 0, 1);
