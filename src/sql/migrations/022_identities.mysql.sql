-- Accounts from elsewhere (see 022_identities.sql). MySQL: key columns need lengths (provider
-- 'oidc:<name>' or 'sso:<origin>', subject an issuer's id: both short in practice; the pair
-- fits one key).
CREATE TABLE user_identities (
  provider VARCHAR(255) NOT NULL,
  subject VARCHAR(500) NOT NULL,
  user_id BIGINT NOT NULL,
  email TEXT,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  PRIMARY KEY (provider, subject),
  CONSTRAINT user_identities_user FOREIGN KEY (user_id) REFERENCES users (id)
);
CREATE INDEX user_identities_user ON user_identities (user_id);
