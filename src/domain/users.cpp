#include "domain/users.hpp"

#include <sodium.h>
#include <spdlog/spdlog.h>

#include "common/time.hpp"
#include "text/utf8.hpp"

namespace plaudit::domain {

User ToUser(const sql::UserRow& row) {
  User u;
  u.id = row.id;
  u.username = row.username;
  u.display_name = row.display_name;
  u.role = ParseRole(row.role).value_or(Role::kUser);
  u.created_at_ms = row.created_at_ms;
  u.banned_until_ms = row.banned_until_ms;
  u.ban_reason = row.ban_reason;
  return u;
}

sql::UserRow NewUserRow(std::string_view username, std::string display_name,
                        std::string password_hash, Role role) {
  sql::UserRow row;
  row.username = std::string(username);
  row.username_key = UsernameKey(username);
  row.display_name = std::move(display_name);
  row.password_hash = std::move(password_hash);
  row.role = std::string(RoleName(role));
  row.created_at_ms = NowMs();
  return row;
}

UserService::UserService(sql::UserTable& users, UserDirectory& directory,
                         redis::SessionStore& sessions, PasswordHasher& hasher,
                         redis::RateLimiter& limiter, LoginLimits limits)
    : users_(users),
      directory_(directory),
      sessions_(sessions),
      hasher_(hasher),
      limiter_(limiter),
      limits_(limits) {}

Awaitable<Result<User>> UserService::Register(std::string username, std::string password,
                                              std::string display_name,
                                              std::string client_address) {
  PL_CO_CHECK(ValidateUsername(username));
  PL_CO_CHECK(ValidatePassword(password));
  PL_CO_TRY(auto display, NormalizeDisplayName(display_name, username));
  // Refuse a taken name before paying for a hash; the unique index still decides races.
  PL_CO_TRY(auto existing, co_await users_.FindByKey(UsernameKey(username)));
  if (existing) {
    co_return Fail(ErrorCode::kAlreadyExists, "username is taken");
  }
  // Accounts per address, taken before the hash (issue 41: a flood of sign-ups from one
  // address made 102 accounts in 10 s and filled the hashing queue). Not given back: an
  // account was asked for.
  if (limits_.signups_per_address.enabled()) {
    PL_CO_TRY(auto d,
              co_await limiter_.Check("signup-addr", client_address, limits_.signups_per_address,
                                      /*consume=*/true));
    if (!d.allowed) {
      Error e{ErrorCode::kRateLimited, "too many new accounts from this address; try later",
              static_cast<int>((d.retry_after_ms + 999) / 1000)};
      co_return tl::unexpected(e);
    }
  }

  PL_CO_TRY(auto hash, co_await hasher_.Hash(std::move(password)));
  sql::UserRow row = NewUserRow(username, std::move(display), std::move(hash), Role::kUser);
  PL_CO_TRY(auto inserted, co_await users_.Insert(std::move(row)));
  co_return ToUser(inserted);
}

Awaitable<Result<Session>> UserService::Login(std::string username, std::string password,
                                              std::string client_address) {
  if (username.empty() || password.empty() || username.size() > 64 || password.size() > 4096) {
    co_return Fail(ErrorCode::kUnauthenticated, "wrong username or password");
  }
  const std::string key = UsernameKey(username);
  // Both failed-login budgets: per username and per client address. (A named vector, not
  // a braced list in the range-for: GCC 12 mishandles those across co_await.)
  std::vector<Budget> budgets;
  budgets.push_back({"login-user", key, limits_.per_username});
  budgets.push_back({"login-addr", client_address, limits_.per_address});
  // Reserve one attempt of each before any password work. A check here and a charge after a
  // failure let a burst through: all of its attempts pass the check while the first is still
  // hashing. Each reservation is atomic on its own key (cluster-safe); one refused gives back
  // the ones already taken.
  std::vector<Budget> reserved;
  for (const Budget& b : budgets) {
    if (!b.limit.enabled()) {
      continue;
    }
    auto d = co_await limiter_.Check(b.scope, b.id, b.limit, /*consume=*/true);
    if (!d || !d->allowed) {
      co_await Refund(reserved);
    }
    PL_CO_CHECK(d);
    if (!d->allowed) {
      Error e{ErrorCode::kRateLimited, "too many failed logins; try again later",
              static_cast<int>((d->retry_after_ms + 999) / 1000)};
      co_return tl::unexpected(e);
    }
    reserved.push_back(b);
  }

  const uint64_t directory_epoch = directory_.epoch();
  auto row = co_await users_.FindByKey(key);
  if (!row) {
    co_await Refund(reserved);
    co_return tl::unexpected(row.error());
  }
  const bool exists = *row && (*row)->deleted_at_ms == 0;
  // if/else, not ?: — GCC 12 destroys the temporaries of a co_await inside ?: twice.
  Result<bool> ok = false;
  if (exists) {
    ok = co_await hasher_.Verify((*row)->password_hash, password);
  } else {
    ok = co_await hasher_.VerifyDummy(password);
  }
  if (!ok) {  // no verdict (the hashing queue was full): not a guess
    co_await Refund(reserved);
    co_return tl::unexpected(ok.error());
  }
  if (!exists || !*ok) {
    co_return Fail(ErrorCode::kUnauthenticated, "wrong username or password");
  }
  co_await Refund(reserved);
  directory_.Remember((*row)->id, PrincipalOf(**row), directory_epoch);

  co_return co_await OpenSession((*row)->id, &(*row)->password_hash);
}

namespace {

// Ten characters of an alphabet without look-alikes (no l, o, 0, 1): ~50 bits, so two new
// accounts never draw the same name in practice (the unique key would refuse it anyway).
std::string RandomUsernameTail() {
  static constexpr std::string_view kAlphabet = "abcdefghijkmnpqrstuvwxyz23456789";
  std::string out(10, 'a');
  for (char& ch : out) {
    ch = kAlphabet[randombytes_uniform(kAlphabet.size())];
  }
  return out;
}

}  // namespace

Awaitable<Result<Session>> UserService::SignInExternal(ExternalProfile profile) {
  sql::ExternalIdentity id;
  id.provider = std::move(profile.provider);
  id.subject = std::move(profile.subject);
  id.email = std::move(profile.email);
  const std::string username = profile.username_prefix + "-" + RandomUsernameTail();
  // 55 code points, so a suffix " (xxxxxx)" stays within the 64 of a display name. A name the
  // provider gives that is no valid display name (controls, bidi) is not shown: the
  // account goes by its username until the provider's name is one.
  auto display =
      NormalizeDisplayName(text::PrefixCodePoints(text::Trim(profile.name), 55), username);
  id.display_name = display ? *display : std::string();
  const std::string first = display ? *display : username;
  id.display_candidates.push_back(first);
  for (int n = 2; n <= 9; ++n) {
    id.display_candidates.push_back(first + " (" + std::to_string(n) + ")");
  }
  id.display_candidates.push_back(first + " (" + RandomUsernameTail().substr(0, 6) + ")");
  id.new_account = NewUserRow(username, first, "!", Role::kUser);
  auto row = co_await users_.SignInWith(id, NowMs());
  if (!row && row.error().code == ErrorCode::kAlreadyExists) {
    // A racing first sign-in of the same identity made the account: this one finds it.
    row = co_await users_.SignInWith(std::move(id), NowMs());
  }
  PL_CO_CHECK(row);
  co_return co_await OpenSession(row->id);
}

Awaitable<Result<Session>> UserService::OpenSession(int64_t user_id,
                                                    const std::string* verified_hash) {
  Session s;
  s.token = redis::SessionStore::NewToken();
  s.expires_at_ms = NowMs() + sessions_.ttl().count();
  PL_CO_CHECK(co_await sessions_.Create(s.token, redis::SessionData{user_id}));
  // The account as it is now, not as it was before the hash: a role changed meanwhile is the
  // one the answer names (the session holds no role to be stale), and an account deleted
  // meanwhile gets no session.
  auto now = co_await users_.FindById(user_id);
  if (!now || !*now || (*now)->deleted_at_ms != 0 ||
      (verified_hash != nullptr && (*now)->password_hash != *verified_hash)) {
    (void)co_await sessions_.Delete(s.token, user_id);
    PL_CO_CHECK(now);
    co_return Fail(ErrorCode::kUnauthenticated, "wrong username or password");
  }
  s.user = ToUser(**now);
  co_return s;
}

Awaitable<void> UserService::Refund(const std::vector<Budget>& reserved) {
  for (const Budget& b : reserved) {
    auto st = co_await limiter_.Refund(b.scope, b.id, b.limit);
    if (!st) {
      spdlog::warn("login limit refund failed: {}", st.error().message);
    }
  }
}

Awaitable<Status> UserService::Logout(std::string token, const Principal& who) {
  co_return co_await sessions_.Delete(token, who.id);
}

namespace {

// Tokens are 43 base64url characters; anything else cannot be a session.
constexpr size_t kTokenSize = 43;

}  // namespace

Awaitable<Result<std::optional<Principal>>> UserService::Authenticate(std::string token) {
  if (token.size() != kTokenSize) {
    co_return std::optional<Principal>{};
  }
  PL_CO_TRY(auto d, co_await sessions_.Get(token));
  if (!d) {
    co_return std::optional<Principal>{};
  }
  // A session of a deleted account (one its deletion missed, or one an older Redis brought
  // back) is refused here and left to expire: deleting it would publish, and wait for every
  // instance, on each such request. The directory remembers the account is gone.
  PL_CO_TRY(auto who, co_await directory_.Lookup((d)->user_id));
  co_return std::move(who);
}

std::optional<std::optional<Principal>> UserService::AuthenticateCached(std::string_view token) {
  if (token.size() != kTokenSize) {
    return std::optional<Principal>{};
  }
  const redis::SessionData* d = sessions_.FindCached(token);
  if (!d) {
    return std::nullopt;
  }
  const std::optional<Principal>* who = directory_.FindCached(d->user_id);
  if (!who) {
    return std::nullopt;
  }
  return *who;
}

Awaitable<Result<User>> UserService::Get(int64_t id) {
  PL_CO_TRY(auto row, co_await users_.FindById(id));
  if (!row || (row)->deleted_at_ms != 0) {
    co_return Fail(ErrorCode::kNotFound, "no such user");
  }
  co_return ToUser(*row);
}

Awaitable<Result<std::vector<User>>> UserService::List(const Principal& actor, int64_t after,
                                                       std::string_view query, int limit) {
  if (!HasRole(actor.role, Role::kModerator)) {
    co_return Fail(ErrorCode::kPermissionDenied, "only moderators may list users");
  }
  // Usernames are matched by their key (what a login matches); display names lower-cased
  // by the database (ASCII on SQLite).
  PL_CO_TRY(auto rows, co_await users_.List(after, UsernameKey(query), limit));
  std::vector<User> out;
  out.reserve(rows.size());
  for (const sql::UserRow& r : rows) {
    out.push_back(ToUser(r));
  }
  co_return out;
}

namespace {

// Accounts the system owns (usernames a person cannot register: '@pages', the author of page
// threads, migration 017) are no one's to promote or delete.
Awaitable<Status> RefuseReserved(sql::UserTable& users, int64_t id) {
  PL_CO_TRY(auto row, co_await users.FindById(id));
  if (row && !row->username.empty() && row->username.front() == '@') {
    co_return Fail(ErrorCode::kPermissionDenied, "a reserved account cannot be changed");
  }
  co_return Status{};
}

// The error for an UPDATE that SQL guards and that changed no row: the account is gone ("no
// such user"), or it is live and the guard held, for `refusal` (a change that raced in since
// the check before it).
Awaitable<Error> WhyUnchanged(sql::UserTable& users, int64_t id, Error refusal) {
  Result<std::optional<sql::UserRow>> row = co_await users.FindById(id);
  if (!row) {
    co_return std::move(row).error();
  }
  if (*row && (*row)->deleted_at_ms == 0) {
    co_return refusal;
  }
  co_return Error{ErrorCode::kNotFound, "no such user"};
}

}  // namespace

Awaitable<Result<User>> UserService::SetRole(const Principal& actor, int64_t id, Role role) {
  if (!HasRole(actor.role, Role::kAdmin)) {
    co_return Fail(ErrorCode::kPermissionDenied, "only an admin may change roles");
  }
  PL_CO_CHECK(co_await RefuseReserved(users_, id));
  if (HasRole(role, Role::kModerator)) {
    // A ban cannot be put on a moderator, so none may become one while banned: lift it first.
    // (A ban racing this check leaves a banned moderator, whose writes are still refused.)
    PL_CO_TRY(const std::optional<sql::UserRow> row, co_await users_.FindById(id));
    if (row && row->banned_until_ms > NowMs()) {
      co_return Fail(ErrorCode::kAlreadyExists, "the user is banned: lift the ban first");
    }
  }
  PL_CO_TRY(auto updated, co_await users_.SetRole(id, std::string(RoleName(role)), NowMs()));
  if (!updated) {
    // Refused in SQL: no such account, or a ban came in since the check above.
    // Named, not braced, arguments around co_await (GCC 12).
    Error refusal{ErrorCode::kAlreadyExists, "the user is banned: lift the ban first"};
    Error why = co_await WhyUnchanged(users_, id, std::move(refusal));
    co_return tl::unexpected(std::move(why));
  }
  // SQL is the record; every process's copy follows: this one's now, the others' through the
  // channel before the answer goes out. If Redis fails here the caller gets the error and may
  // retry (the update is idempotent); the others then drop their copies when their
  // subscription fails, or within UserDirectory::kMaxAge (once they can read SQL again).
  directory_.Forget(id);
  PL_CO_CHECK(co_await sessions_.PublishUserChange(id));
  co_return co_await Get(id);
}

Awaitable<Result<User>> UserService::SetBan(const Principal& actor, int64_t id, int64_t until_ms,
                                            std::string reason) {
  if (!HasRole(actor.role, Role::kModerator)) {
    co_return Fail(ErrorCode::kPermissionDenied, "only moderators may ban users");
  }
  PL_CO_CHECK(co_await RefuseReserved(users_, id));
  PL_CO_TRY(const std::optional<sql::UserRow> row, co_await users_.FindById(id));
  if (!row || row->deleted_at_ms != 0) {
    co_return Fail(ErrorCode::kNotFound, "no such user");
  }
  // Lifting is allowed on anyone (a ban from before a promotion must be liftable).
  const bool unbannable = HasRole(ParseRole(row->role).value_or(Role::kAdmin), Role::kModerator);
  if (until_ms > 0 && unbannable) {
    co_return Fail(ErrorCode::kPermissionDenied, "moderators and admins cannot be banned");
  }
  sql::ModerationLogEntry log;
  log.at_ms = NowMs();
  log.actor_id = actor.id;
  log.action = until_ms > 0 ? "ban" : "unban";
  log.reason = reason;
  PL_CO_TRY(const bool updated, co_await users_.SetBan(id, until_ms, std::move(reason), log));
  if (!updated) {
    // Refused in SQL: gone, or promoted since the check above (a ban never lands on one).
    Error refusal{ErrorCode::kPermissionDenied, "moderators and admins cannot be banned"};
    Error why = co_await WhyUnchanged(users_, id, std::move(refusal));
    co_return tl::unexpected(std::move(why));
  }
  // As SetRole: every process's copy of the account follows before the answer goes out.
  directory_.Forget(id);
  PL_CO_CHECK(co_await sessions_.PublishUserChange(id));
  co_return co_await Get(id);
}

Awaitable<Status> UserService::Delete(const Principal& actor, int64_t id) {
  if (actor.id != id && !HasRole(actor.role, Role::kAdmin)) {
    co_return Fail(ErrorCode::kPermissionDenied, "only the user or an admin may delete an account");
  }
  PL_CO_CHECK(co_await RefuseReserved(users_, id));
  PL_CO_TRY(auto deleted, co_await users_.MarkDeleted(id, NowMs()));
  if (!deleted) {
    // Deleted already. If an earlier attempt failed after its commit (Redis away), this one
    // finishes what that left undone (its sessions, the other processes' copies), and the
    // answer is still that there is no such account.
    PL_CO_TRY(auto row, co_await users_.FindById(id));
    if (row && (row)->deleted_at_ms != 0) {
      directory_.Forget(id);
      if (auto st = co_await sessions_.DeleteUser(id); !st) {
        co_return st;
      }
    }
    co_return Fail(ErrorCode::kNotFound, "no such user");
  }
  directory_.Forget(id);
  co_return co_await sessions_.DeleteUser(id);
}

namespace {

// A store job of a command (`plauditd user …`), run to its end: there is no server's
// io_context to await it on.
template <class T>
Result<T> RunNow(sql::Store& store, std::function<Result<T>(sql::Connection&)> job) {
  net::io_context ioc;
  auto fut = net::co_spawn(
      ioc, [&]() -> Awaitable<Result<T>> { co_return co_await store.Run<T>(std::move(job)); },
      net::use_future);
  ioc.run();
  return fut.get();
}

// `password` hashed on this thread (a command's: nothing else waits on it).
Result<std::string> HashNow(const std::string& password, const PasswordHashOptions& options) {
  if (sodium_init() < 0) {
    return Fail(ErrorCode::kInternal, "libsodium failed to initialise");
  }
  char out[crypto_pwhash_STRBYTES];
  if (crypto_pwhash_str(out, password.data(), password.size(), options.ops_limit,
                        options.mem_limit) != 0) {
    return Fail(ErrorCode::kInternal, "password hashing failed");
  }
  return std::string(out);
}

}  // namespace

Result<bool> EnsureUser(sql::Store& store, const std::string& username, const std::string& password,
                        Role role, const PasswordHashOptions& hash_options) {
  PL_CHECK(ValidateUsername(username));
  PL_CHECK(ValidatePassword(password));
  return RunNow<bool>(store, [&](sql::Connection& c) -> Result<bool> {
    PL_TRY(auto existing, sql::UserTable::FindByKey(c, UsernameKey(username)));
    if (existing) {
      return false;
    }
    PL_TRY(const std::string hash, HashNow(password, hash_options));
    PL_CHECK(sql::UserTable::Insert(c, NewUserRow(username, username, hash, role)));
    return true;
  });
}

Result<std::optional<int64_t>> SetUserPassword(sql::Store& store, const std::string& username,
                                               const std::string& password,
                                               const PasswordHashOptions& hash_options) {
  PL_CHECK(ValidatePassword(password));
  using Id = std::optional<int64_t>;
  return RunNow<Id>(store, [&](sql::Connection& c) -> Result<Id> {
    PL_TRY(auto existing, sql::UserTable::FindByKey(c, UsernameKey(username)));
    if (!existing || existing->deleted_at_ms != 0) {
      return Id();
    }
    PL_TRY(const std::string hash, HashNow(password, hash_options));
    PL_TRY(const bool set, sql::UserTable::SetPasswordHash(c, existing->id, hash));
    return set ? Id(existing->id) : Id();
  });
}

}  // namespace plaudit::domain
