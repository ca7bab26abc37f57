-- Accounts from elsewhere (see 022_identities.sql). MySQL: key columns need lengths (provider
-- 'oidc:<name>' or 'sso:<origin>', up to ~270 with a 253-character host; subject an issuer's
-- id, 255 at most in OpenID Connect): (300 + 400) · 4 = 2,800 bytes of an index's 3,072.
CREATE TABLE user_identities (
  provider VARCHAR(300) NOT NULL,
  subject VARCHAR(400) NOT NULL,
  user_id BIGINT NOT NULL,
  email TEXT,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  PRIMARY KEY (provider, subject),
  CONSTRAINT user_identities_user FOREIGN KEY (user_id) REFERENCES users (id)
);
CREATE INDEX user_identities_user ON user_identities (user_id);
