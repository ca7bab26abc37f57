#pragma once
// Site sign-in (API.md "Guests and sign-in from elsewhere"): a host site's signed token
// (domain/sso_token.hpp) becomes a session for the account keyed by (its site, its sub).
//
// Order: the signature and claims first (a forged or stale token costs nothing but a hash and
// touches no store); then the token's `jti` is claimed in Redis for as long as the token lives
// (redis/once_keys.hpp), so a replay is refused by every instance; only then is an account
// found or made and a session opened. A token whose jti is claimed but whose sign-in then
// fails (SQL down) is spent: the host site signs a new one.
#include <map>
#include <string>
#include <string_view>

#include "domain/users.hpp"
#include "redis/once_keys.hpp"

namespace plaudit::domain {

class SsoSignIn {
 public:
  // `secrets`: origin (normalised) → its HS256 secret.
  SsoSignIn(UserService& users, redis::OnceKeys& once, std::map<std::string, std::string> secrets)
      : users_(users), once_(once), secrets_(std::move(secrets)) {}

  // kUnauthenticated for a token refused (its reason in the message), or seen before.
  Awaitable<Result<Session>> SignIn(std::string_view token);
  // The origins that may sign their readers in, sorted.
  std::vector<std::string> Sites() const;

 private:
  UserService& users_;
  redis::OnceKeys& once_;
  std::map<std::string, std::string> secrets_;
};

}  // namespace plaudit::domain
