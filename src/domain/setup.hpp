#pragma once
// First-run setup: how a fresh data dir gets its first admin without "the first visitor
// becomes admin" (issue 27).
//
// Each process holds its own random setup token (32 bytes, hex), made at start and logged
// with the setup link when no admin exists; only whoever can read the log can use it. A
// restart makes a new token and the old one dies with the process. The token is compared in
// constant time, wrong guesses count against the failed-login budget of the client address,
// and it works once: after its setup, and once any admin exists (made by any process, or by
// --bootstrap-admin), setup is refused. The admin is inserted in one transaction guarded by a
// unique marker row (sql::UserTable::InsertFirstAdmin), so racing setups — with one token or
// with the tokens of several processes — make exactly one admin.
#include <string>

#include "common/net.hpp"
#include "common/rate_limit.hpp"
#include "common/result.hpp"
#include "domain/password_hasher.hpp"
#include "domain/users.hpp"
#include "redis/rate_limiter.hpp"
#include "sql/users.hpp"

namespace plaudit::domain {

struct FirstAdmin {
  std::string username;
  std::string password;
  std::string display_name;  // "" → the username
};

class FirstRunSetup {
 public:
  FirstRunSetup(UserService& users, sql::UserTable& table, PasswordHasher& hasher,
                redis::RateLimiter& limiter, RateLimit per_address);

  // This process's token (64 hex digits), for the setup link in the log.
  const std::string& token() const { return token_; }
  // Whether setup is still to be done: no admin exists, and none was made by setup.
  Awaitable<Result<bool>> Needed();
  // Creates the first admin and signs it in. Over the address's failed-login budget →
  // kRateLimited; a token that is not this process's, or was used → kPermissionDenied;
  // setup done already → kAlreadyExists; a bad username, password or display name →
  // kInvalidArgument.
  Awaitable<Result<Session>> CreateAdmin(std::string token, FirstAdmin admin,
                                         std::string client_address);

 private:
  bool TokenMatches(std::string_view token) const;

  UserService& users_;
  sql::UserTable& table_;
  PasswordHasher& hasher_;
  redis::RateLimiter& limiter_;
  RateLimit per_address_;
  std::string token_;
  bool used_ = false;
};

}  // namespace plaudit::domain
