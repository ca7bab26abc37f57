#pragma once
// Accounts and sessions (API.md "Users and sessions").
//
// Identity always comes from a session token: the service never takes a user id or role
// from a request body. Passwords are Argon2id hashes (PasswordHasher, off the I/O thread);
// sessions are Redis hashes keyed by a hash of the token that say only whose they are
// (redis::SessionStore); the user's role and existence come from SQL on every request
// (UserDirectory), so changes reach every session at once. Failed logins are rate limited
// per username and per client address, each attempt reserved before its password is hashed.
#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/net.hpp"
#include "common/result.hpp"
#include "domain/password_hasher.hpp"
#include "domain/user.hpp"
#include "domain/user_directory.hpp"
#include "redis/rate_limiter.hpp"
#include "redis/sessions.hpp"
#include "sql/users.hpp"

namespace plaudit::domain {

struct LoginLimits {
  RateLimit per_username;
  RateLimit per_address;
  RateLimit signups_per_address;  // accounts created per client address
};

// A person another party vouches for (API.md "Guests and sign-in from elsewhere").
struct ExternalProfile {
  std::string provider;  // "sso:<origin>", "oidc:<name>", "github"
  std::string subject;
  std::string name;             // as the provider gives it; normalised here
  std::string email;            // "" when none; kept, never used to find an account
  std::string username_prefix;  // of a new account's username: "<prefix>-<10 random>"
};

struct Session {
  std::string token;
  int64_t expires_at_ms = 0;
  User user;
};

class UserService {
 public:
  UserService(sql::UserTable& users, UserDirectory& directory, redis::SessionStore& sessions,
              PasswordHasher& hasher, redis::RateLimiter& limiter, LoginLimits limits);

  // Over `signups_per_address` from `client_address` → kRateLimited: an attempt that passes
  // the checks of its fields takes one event before its password is hashed.
  Awaitable<Result<User>> Register(std::string username, std::string password,
                                   std::string display_name, std::string client_address);
  // Wrong username or password → kUnauthenticated (the same answer, and about the same time,
  // for both; a deleted account is an unknown username). Over the failed-login limit →
  // kRateLimited: each attempt takes one event of both budgets before its password is hashed
  // and gives it back if the password was right, so no burst gets more guesses than the
  // limit.
  Awaitable<Result<Session>> Login(std::string username, std::string password,
                                   std::string client_address);
  // A new session for an account that just proved itself (a right password, first-run
  // setup). kUnauthenticated when the account was deleted meanwhile.
  // `verified_hash`: the password hash a sign-in checked. A session opened as that hash was
  // replaced (`plauditd user password` ends the sessions it finds, after setting the hash) is
  // closed again: no session outlives a reset by a sign-in with the old password in flight.
  Awaitable<Result<Session>> OpenSession(int64_t user_id,
                                         const std::string* verified_hash = nullptr);
  // A session for the account of (provider, subject), made on first use (a random username,
  // the provider's name as display name, suffixed " (2)"… while it looks like another
  // account's) and renamed when the provider's name changed. The same session as a password
  // gives: roles, bans and limits apply alike.
  Awaitable<Result<Session>> SignInExternal(ExternalProfile profile);
  Awaitable<Status> Logout(std::string token, const Principal& who);
  // The principal of a session token; nullopt when no such (live) session.
  Awaitable<Result<std::optional<Principal>>> Authenticate(std::string token);
  // What Authenticate answers, when the session cache already knows the token (no Redis
  // read, no coroutine); nullopt when it must ask Authenticate.
  std::optional<std::optional<Principal>> AuthenticateCached(std::string_view token);
  // kNotFound for an unknown or deleted account.
  Awaitable<Result<User>> Get(int64_t id);
  // Moderators only (they ban; admins also change roles): live accounts with ids above
  // `after`, by id; `query` keeps those whose username or display name starts with it
  // (case-insensitively).
  Awaitable<Result<std::vector<User>>> List(const Principal& actor, int64_t after,
                                            std::string_view query, int limit);
  // Admin only; the change reaches the user's live sessions at once, in every process.
  Awaitable<Result<User>> SetRole(const Principal& actor, int64_t id, Role role);
  // Bans `id` until `until_ms` (0 lifts the ban), logged in the same SQL transaction; reaches
  // every instance's sessions as a role change does. Moderators only, never on a moderator or
  // an admin (kPermissionDenied).
  Awaitable<Result<User>> SetBan(const Principal& actor, int64_t id, int64_t until_ms,
                                 std::string reason);
  // The user themself or an admin. The account's row stays (its content still names it, and
  // the username stays taken); its sessions end at once, in every process, and it cannot log
  // in. kNotFound when there is no such account (any more).
  Awaitable<Status> Delete(const Principal& actor, int64_t id);

 private:
  struct Budget {
    std::string scope;
    std::string id;
    RateLimit limit;
  };
  // Gives the reserved login attempts back (best effort: a refund lost to a Redis error only
  // makes the limit stricter).
  Awaitable<void> Refund(const std::vector<Budget>& reserved);

  sql::UserTable& users_;
  UserDirectory& directory_;
  redis::SessionStore& sessions_;
  PasswordHasher& hasher_;
  redis::RateLimiter& limiter_;
  LoginLimits limits_;
};

User ToUser(const sql::UserRow& row);
// The row of a new account, created now (its username already valid).
sql::UserRow NewUserRow(std::string_view username, std::string display_name,
                        std::string password_hash, Role role);

// Creates `username` with `role` if no such user exists (bootstrap admin, `user add`).
// Synchronous, for start-up and the command line. Returns true when created.
Result<bool> EnsureUser(sql::Store& store, const std::string& username, const std::string& password,
                        Role role, const PasswordHashOptions& hash);
// Sets the password of the live account `username` (`user password`). Synchronous, for the
// command line. The account's id, or nullopt when there is no such account.
Result<std::optional<int64_t>> SetUserPassword(sql::Store& store, const std::string& username,
                                               const std::string& password,
                                               const PasswordHashOptions& hash);

}  // namespace plaudit::domain
