#pragma once
// The users table (migrations 002 and 011). Queries are named constants in users.cpp.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sql/moderation_log.hpp"
#include "sql/store.hpp"

namespace plaudit::sql {

struct UserRow {
  int64_t id = 0;
  std::string username;
  std::string username_key;
  std::string display_name;
  std::string password_hash;
  std::string role;
  int64_t created_at_ms = 0;
  int64_t deleted_at_ms = 0;    // 0: the account exists
  int64_t banned_until_ms = 0;  // 0: not banned (migration 019)
  std::string ban_reason;
};

// An account vouched for by someone else (a site's sign-in, an OpenID provider, GitHub).
struct ExternalIdentity {
  std::string provider;      // "sso:<origin>", "oidc:<name>", "github"
  std::string subject;       // the provider's id of the person, never reused by it
  std::string display_name;  // as the provider names them now (already normalised)
  std::string email;         // "" when none
  // For a first sign-in: the new account (its username unique and valid, no password), and
  // display names to try in order while one looks like another account's.
  UserRow new_account;
  std::vector<std::string> display_candidates;
};

class UserTable {
 public:
  explicit UserTable(Store& store) : store_(store) {}

  // Inserts and returns the row with its new id; kAlreadyExists when the username is taken,
  // or when the username or display name looks like another account's name: every name's
  // confusable skeleton (text::NameSkeleton) is a key one account holds (migration 018).
  Awaitable<Result<UserRow>> Insert(UserRow row);
  Awaitable<Result<std::optional<UserRow>>> FindByKey(std::string username_key);
  Awaitable<Result<std::optional<UserRow>>> FindById(int64_t id);
  // Returns false when there is no such user (or it was deleted), or when `role` is one a ban
  // cannot be put on (moderator, admin) and a ban is in force.
  Awaitable<Result<bool>> SetRole(int64_t id, std::string role, int64_t now_ms);
  // Bans the account until `until_ms` (0 lifts a ban) and writes `log` (its user_id set here)
  // in the same transaction. False when there is no such user (or it was deleted), or for a
  // ban (`until_ms` > 0) of a moderator or an admin.
  Awaitable<Result<bool>> SetBan(int64_t id, int64_t until_ms, std::string reason,
                                 ModerationLogEntry log);
  // Live accounts with ids above `after`, by id, at most `limit`; `prefix` (lower case, may be
  // empty) keeps those whose username key or lower-cased display name starts with it. Reserved
  // accounts ('@pages') are left out.
  Awaitable<Result<std::vector<UserRow>>> List(int64_t after, std::string prefix, int limit);
  // The live account of `id` (provider, subject), made on its first use and renamed when the
  // provider's name for it changed (kept when the new one looks like another account's). An
  // identity whose account was deleted gets a new account. kAlreadyExists when a racing first
  // sign-in of the same identity won (the caller tries again, and finds its account).
  Awaitable<Result<UserRow>> SignInWith(ExternalIdentity id, int64_t now_ms);
  // Marks the account deleted (the row stays: see migration 011). False when there is no
  // such user or it was deleted already.
  Awaitable<Result<bool>> MarkDeleted(int64_t id, int64_t now_ms);

  // First-run setup (domain/setup.hpp). Whether an account with `admin_role` exists, or one
  // was made by setup before (its marker row).
  Awaitable<Result<bool>> HasAdmin(std::string admin_role);
  // Inserts `row` (an admin) only while HasAdmin is false, in one transaction that first
  // takes a unique marker row: two racing setups, on any number of processes, cannot both
  // insert (the loser waits on the marker's key, then fails). kAlreadyExists otherwise.
  Awaitable<Result<UserRow>> InsertFirstAdmin(UserRow row);

  // The same on a connection (for start-up and CLI code that runs without an event loop).
  static Result<UserRow> Insert(Connection& c, UserRow row);
  static Result<std::optional<UserRow>> FindByKey(Connection& c, const std::string& key);
  // Sets the password hash of the live account `id`; false when there is none.
  static Result<bool> SetPasswordHash(Connection& c, int64_t id, const std::string& hash);

 private:
  Store& store_;
};

}  // namespace plaudit::sql
