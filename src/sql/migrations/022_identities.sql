-- Accounts from elsewhere (issue 43, API.md "Guests and sign-in from elsewhere"): a site's own
-- sign-in (provider 'sso:<origin>'), an OpenID Connect provider ('oidc:<name>'), GitHub
-- ('github'). A (provider, subject) pair names one account for good; an e-mail a provider
-- gives is kept (for notifications, issue 44) and never used to find or merge an account, so
-- a provider that lets anyone claim any address cannot lead into someone else's account.
CREATE TABLE user_identities (
  provider TEXT NOT NULL,
  subject TEXT NOT NULL,
  user_id BIGINT NOT NULL REFERENCES users (id),
  email TEXT,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  PRIMARY KEY (provider, subject)
);
CREATE INDEX user_identities_user ON user_identities (user_id);
