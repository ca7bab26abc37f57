#include "sql/users.hpp"

#include <algorithm>
#include <vector>

#include "common/time.hpp"
#include "sql/dialect.hpp"
#include "text/unicode.hpp"

namespace plaudit::sql {
namespace {

constexpr std::string_view kInsertUser =
    "INSERT INTO users (username, username_key, display_name, password_hash, role, created_at, "
    "updated_at, names_keyed) VALUES ($1, $2, $3, $4, $5, $6, $6, 1) RETURNING id";
// MySQL has no RETURNING: the id from LAST_INSERT_ID().
constexpr std::string_view kInsertUserMysql =
    "INSERT INTO users (username, username_key, display_name, password_hash, role, created_at, "
    "updated_at, names_keyed) VALUES ($1, $2, $3, $4, $5, $6, $6, 1)";
// Name keys (migration 018): the accounts made before it, then a new account's own.
constexpr std::string_view kUnkeyed =
    "SELECT id, username, display_name FROM users WHERE names_keyed = 0 ORDER BY id";
constexpr std::string_view kMarkKeyed = "UPDATE users SET names_keyed = 1 WHERE id = $1";
constexpr std::string_view kClaimKey =
    "INSERT INTO user_name_keys (name_key, user_id) VALUES ($1, $2) ON CONFLICT (name_key) "
    "DO NOTHING";
constexpr std::string_view kKeyOwner = "SELECT user_id FROM user_name_keys WHERE name_key = $1";
constexpr std::string_view kSelectColumns =
    "SELECT id, username, username_key, display_name, password_hash, role, created_at, "
    "deleted_at, banned_until, ban_reason FROM users ";
constexpr std::string_view kWhereKey = "WHERE username_key = $1";
constexpr std::string_view kSetPasswordHash =
    "UPDATE users SET password_hash = $1, updated_at = $3 WHERE id = $2 AND deleted_at IS NULL";
constexpr std::string_view kWhereId = "WHERE id = $1";
// $4 = 1 for a role that cannot be banned: then only while no ban is in force, in the same
// statement, so a ban racing the promotion cannot leave a banned moderator (PostgreSQL
// re-checks the WHERE on the row it waited for).
constexpr std::string_view kSetRole =
    "UPDATE users SET role = $2, updated_at = $3 WHERE id = $1 AND deleted_at IS NULL AND "
    "($4 = 0 OR banned_until IS NULL OR banned_until <= $3)";
// The marker row of first-run setup: its primary key serialises racing setups (a second
// insert waits for the first transaction, then conflicts), where a check of the users table
// alone would let two READ COMMITTED transactions both see no admin.
constexpr std::string_view kInsertSetupMarker =
    "INSERT INTO plaudit_meta (\"key\", value) VALUES ('first_admin', $1)";
constexpr std::string_view kCountAdmins =
    "SELECT (SELECT COUNT(*) FROM users WHERE role = $1 AND deleted_at IS NULL) + "
    "(SELECT COUNT(*) FROM plaudit_meta WHERE \"key\" = 'first_admin')";
// $5 = 1 for a ban (not its lifting): never on a moderator or an admin, in the same statement
// (the other half of kSetRole's guard).
constexpr std::string_view kSetBan =
    "UPDATE users SET banned_until = $2, ban_reason = $3, updated_at = $4 "
    "WHERE id = $1 AND deleted_at IS NULL AND ($5 = 0 OR role NOT IN ('moderator', 'admin'))";
// LIKE with '\\' as its escape, so a prefix's own % and _ match themselves.
constexpr std::string_view kWhereListed =
    "WHERE deleted_at IS NULL AND id > $1 AND username NOT LIKE '@%' AND ($2 = '' OR "
    "username_key LIKE $2 || '%' ESCAPE '\\' OR lower(display_name) LIKE $2 || '%' ESCAPE '\\') "
    "ORDER BY id LIMIT $3";
// Accounts from elsewhere (migration 022).
constexpr std::string_view kIdentityOf =
    "SELECT user_id FROM user_identities WHERE provider = $1 AND subject = $2";
constexpr std::string_view kInsertIdentity =
    "INSERT INTO user_identities (provider, subject, user_id, email, created_at, updated_at) "
    "VALUES ($1, $2, $3, $4, $5, $5)";
// $6: the account it named when read: a racing sign-in that relinked it first wins.
constexpr std::string_view kUpdateIdentity =
    "UPDATE user_identities SET user_id = $3, email = $4, updated_at = $5 "
    "WHERE provider = $1 AND subject = $2 AND user_id = $6";
constexpr std::string_view kRename =
    "UPDATE users SET display_name = $2, updated_at = $3 WHERE id = $1";
constexpr std::string_view kReleaseKey =
    "DELETE FROM user_name_keys WHERE name_key = $1 AND user_id = $2";
constexpr std::string_view kMarkDeleted =
    "UPDATE users SET deleted_at = $2, updated_at = $2 WHERE id = $1 AND deleted_at IS NULL";

UserRow FromRow(const Row& r) {
  UserRow u;
  u.id = Int(r[0]);
  u.username = Text(r[1]);
  u.username_key = Text(r[2]);
  u.display_name = Text(r[3]);
  u.password_hash = Text(r[4]);
  u.role = Text(r[5]);
  u.created_at_ms = Int(r[6]);
  u.deleted_at_ms = IsNull(r[7]) ? 0 : Int(r[7]);
  u.banned_until_ms = IsNull(r[8]) ? 0 : Int(r[8]);
  u.ban_reason = Text(r[9]);
  return u;
}

Result<std::optional<UserRow>> FindOne(Connection& c, std::string_view where, Value param) {
  return c.QueryRow(std::string(kSelectColumns) + std::string(where), {std::move(param)}, FromRow);
}

// A key is at most this many code points: MySQL's key column holds 768 utf8mb4 characters
// (3,072 bytes, an index's limit). A skeleton can be far longer than its name (NFKC case
// folding turns U+FDFA into 18 code points); two names whose skeletons share their first 768
// code points are look-alikes by any measure.
constexpr size_t kMaxKeyCodePoints = 768;

// `s` (valid UTF-8) cut after `max` code points.
std::string FirstCodePoints(std::string s, size_t max) {
  size_t points = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80 && points++ == max) {
      s.resize(i);
      break;
    }
  }
  return s;
}

// Keys each user's account holds: its names' skeletons (one when they look alike).
std::vector<std::string> KeysOf(std::string_view username, std::string_view display_name) {
  std::vector<std::string> keys;
  for (std::string_view name : {username, display_name}) {
    // Names were checked as UTF-8 before; an ICU failure keeps the name itself as its key.
    auto k = text::NameSkeleton(name);
    std::string key = FirstCodePoints(k ? std::move(*k) : std::string(name), kMaxKeyCodePoints);
    if (std::find(keys.begin(), keys.end(), key) == keys.end()) {
      keys.push_back(std::move(key));
    }
  }
  return keys;
}

// The keys of accounts made before migration 018, oldest first; a key taken already stays its
// first owner's (existing look-alikes are kept, not renamed).
Status KeyOlderAccounts(Connection& tx) {
  PL_TRY(auto unkeyed, tx.Query(kUnkeyed));
  for (const Row& r : unkeyed.rows) {
    const int64_t id = Int(r[0]);
    for (const std::string& key : KeysOf(Text(r[1]), Text(r[2]))) {
      PL_CHECK(InsertOrNothing(tx, kClaimKey, {key, id}));
    }
    PL_CHECK(tx.Query(kMarkKeyed, {id}));
  }
  return {};
}

// Inserts the account and claims its name keys, in `tx`; kAlreadyExists when the username is
// taken or a name looks like another account's.
Status InsertIn(Connection& tx, UserRow& row) {
  if (auto st = KeyOlderAccounts(tx); !st) {
    return st;
  }
  const bool mysql = tx.dialect() == Dialect::kMysql;
  auto rows = tx.Query(mysql ? kInsertUserMysql : kInsertUser,
                       {row.username, row.username_key, row.display_name, row.password_hash,
                        row.role, row.created_at_ms});
  if (!rows) {
    if (rows.error().code == ErrorCode::kAlreadyExists) {
      return Fail(ErrorCode::kAlreadyExists, "username is taken");
    }
    return tl::unexpected(rows.error());
  }
  if (mysql) {
    PL_TRY(auto id, LastInsertId(tx));
    rows->rows.push_back(Row{id});
  }
  if (rows->rows.empty()) {
    return Fail(ErrorCode::kInternal, "insert returned no id");
  }
  row.id = Int(rows->rows[0][0]);
  const std::vector<std::string> keys = KeysOf(row.username, row.display_name);
  for (size_t i = 0; i < keys.size(); ++i) {
    // ON CONFLICT DO NOTHING, then who owns it: on PostgreSQL a racing insert of the same key
    // waits for the other transaction and then finds its row.
    PL_CHECK(InsertOrNothing(tx, kClaimKey, {keys[i], row.id}));
    PL_TRY(auto owner, tx.QueryInt(kKeyOwner, {keys[i]}));
    if (owner != row.id) {  // no owner (nullopt), or another account
      return Fail(ErrorCode::kAlreadyExists,
                  i == 0 ? "username looks like another user's name"
                         : "displayName looks like another user's name; choose another");
    }
  }
  return {};
}

// Renames a live account to `name` unless the name looks like another account's (then the old
// name stays: a provider's rename is no reason to refuse the sign-in). Its old name's key is
// given up, the new one claimed.
Status RenameIn(Connection& tx, UserRow& row, const std::string& name, int64_t now_ms) {
  if (name.empty() || name == row.display_name) {
    return {};
  }
  const std::vector<std::string> before = KeysOf(row.username, row.display_name);
  const std::vector<std::string> after = KeysOf(row.username, name);
  for (const std::string& key : after) {
    PL_TRY(auto owner, tx.QueryInt(kKeyOwner, {key}));
    if (owner && *owner != row.id) {
      return {};
    }
  }
  for (const std::string& key : after) {
    PL_CHECK(InsertOrNothing(tx, kClaimKey, {key, row.id}));
    PL_TRY(auto owner, tx.QueryInt(kKeyOwner, {key}));
    // Taken by a racing claim since the check: keep the old name (nothing claimed stays ours
    // beyond the key we already held).
    if (owner != row.id) {
      return Fail(ErrorCode::kAlreadyExists, "display name taken meanwhile");
    }
  }
  for (const std::string& key : before) {
    if (std::find(after.begin(), after.end(), key) != after.end()) {
      continue;
    }
    PL_CHECK(tx.Query(kReleaseKey, {key, row.id}));
  }
  PL_CHECK(tx.Query(kRename, {row.id, name, now_ms}));
  row.display_name = name;
  return {};
}

// A new account for an identity: the first display candidate no other account's name looks
// like (each try in a savepoint, so a refused one leaves nothing behind).
Result<UserRow> InsertForIdentity(Connection& tx, const ExternalIdentity& id, int64_t now_ms) {
  for (const std::string& display : id.display_candidates) {
    UserRow row = id.new_account;
    row.display_name = display;
    row.created_at_ms = now_ms;
    auto st = tx.Transaction([&row](Connection& sp) { return InsertIn(sp, row); });
    if (st) {
      return row;
    }
    if (st.error().code != ErrorCode::kAlreadyExists) {
      return tl::unexpected(st.error());
    }
  }
  return Fail(ErrorCode::kAlreadyExists, "every display name tried looks like another user's");
}

}  // namespace

Awaitable<Result<UserRow>> UserTable::SignInWith(ExternalIdentity id, int64_t now_ms) {
  std::function<Result<UserRow>(Connection&)> job = [id = std::move(id),
                                                     now_ms](Connection& c) -> Result<UserRow> {
    Result<UserRow> out = Fail(ErrorCode::kInternal, "sign-in did not run");
    const Value email = id.email.empty() ? Value{nullptr} : Value{id.email};
    auto st = c.Transaction([&](Connection& tx) -> Status {
      PL_TRY(auto known, tx.QueryInt(kIdentityOf, {id.provider, id.subject}));
      if (known) {
        const int64_t linked = *known;
        PL_TRY(auto row, FindOne(tx, kWhereId, linked));
        if (row && (row)->deleted_at_ms == 0) {
          UserRow user = std::move(*row);
          // A rename that lost a race keeps the old name (in its own savepoint).
          auto renamed = tx.Transaction(
              [&](Connection& sp) { return RenameIn(sp, user, id.display_name, now_ms); });
          if (!renamed && renamed.error().code != ErrorCode::kAlreadyExists) {
            return renamed;
          }
          auto updated =
              tx.Query(kUpdateIdentity, {id.provider, id.subject, user.id, email, now_ms, linked});
          PL_CHECK(updated);
          out = std::move(user);
          return Status{};
        }
        // Its account was deleted: the person starts afresh.
        PL_TRY(auto user, InsertForIdentity(tx, id, now_ms));
        auto updated =
            tx.Query(kUpdateIdentity, {id.provider, id.subject, user.id, email, now_ms, linked});
        PL_CHECK(updated);
        // Relinked by a racing sign-in meanwhile: this new account goes with the transaction,
        // and the caller's retry finds the other one.
        if (updated->affected == 0) {
          return Fail(ErrorCode::kAlreadyExists, "identity relinked meanwhile");
        }
        out = std::move(user);
        return Status{};
      }
      PL_TRY(auto user, InsertForIdentity(tx, id, now_ms));
      // A racing first sign-in of the same identity: the primary key refuses the second.
      PL_CHECK(tx.Query(kInsertIdentity, {id.provider, id.subject, user.id, email, now_ms}));
      out = std::move(user);
      return Status{};
    });
    PL_CHECK(st);
    return out;
  };
  co_return co_await store_.Run<UserRow>(std::move(job));
}

Result<UserRow> UserTable::Insert(Connection& c, UserRow row) {
  auto st = c.Transaction([&row](Connection& tx) { return InsertIn(tx, row); });
  PL_CHECK(st);
  return row;
}

Result<std::optional<UserRow>> UserTable::FindByKey(Connection& c, const std::string& key) {
  return FindOne(c, kWhereKey, key);
}

Result<bool> UserTable::SetPasswordHash(Connection& c, int64_t id, const std::string& hash) {
  PL_TRY(auto r, c.Query(kSetPasswordHash, {hash, id, NowMs()}));
  return r.affected == 1;
}

// Jobs are named std::function variables, never lambda temporaries inside co_await: GCC 12
// destroys such a temporary twice when its captures are not trivial.

Awaitable<Result<UserRow>> UserTable::Insert(UserRow row) {
  std::function<Result<UserRow>(Connection&)> job = [row = std::move(row)](Connection& c) {
    return Insert(c, row);
  };
  co_return co_await store_.Run<UserRow>(std::move(job));
}

Awaitable<Result<std::optional<UserRow>>> UserTable::FindByKey(std::string key) {
  std::function<Result<std::optional<UserRow>>(Connection&)> job =
      [key = std::move(key)](Connection& c) { return FindOne(c, kWhereKey, key); };
  co_return co_await store_.Run<std::optional<UserRow>>(std::move(job));
}

Awaitable<Result<std::optional<UserRow>>> UserTable::FindById(int64_t id) {
  std::function<Result<std::optional<UserRow>>(Connection&)> job = [id](Connection& c) {
    return FindOne(c, kWhereId, id);
  };
  co_return co_await store_.Run<std::optional<UserRow>>(std::move(job));
}

Awaitable<Result<bool>> UserTable::SetRole(int64_t id, std::string role, int64_t now_ms) {
  std::function<Result<bool>(Connection&)> job = [id, role = std::move(role),
                                                  now_ms](Connection& c) -> Result<bool> {
    const bool unbannable = role == "moderator" || role == "admin";
    auto r = c.Query(kSetRole, {id, role, now_ms, int64_t{unbannable ? 1 : 0}});
    PL_CHECK(r);
    return r->affected > 0;
  };
  co_return co_await store_.Run<bool>(std::move(job));
}

Awaitable<Result<bool>> UserTable::SetBan(int64_t id, int64_t until_ms, std::string reason,
                                          ModerationLogEntry log) {
  std::function<Result<bool>(Connection&)> job =
      [id, until_ms, reason = std::move(reason),
       log = std::move(log)](Connection& c) -> Result<bool> {
    bool found = false;
    auto st = c.Transaction([&](Connection& tx) -> Status {
      const Value until = until_ms > 0 ? Value{until_ms} : Value{nullptr};
      auto r = tx.Query(kSetBan, {id, until, reason, log.at_ms, int64_t{until_ms > 0 ? 1 : 0}});
      PL_CHECK(r);
      found = r->affected > 0;
      if (!found) {
        return {};
      }
      auto entry = log;
      entry.user_id = id;
      return AppendModerationLog(tx, entry);
    });
    PL_CHECK(st);
    return found;
  };
  co_return co_await store_.Run<bool>(std::move(job));
}

Awaitable<Result<std::vector<UserRow>>> UserTable::List(int64_t after, std::string prefix,
                                                        int limit) {
  std::string escaped;
  for (char ch : prefix) {
    if (ch == '%' || ch == '_' || ch == '\\') {
      escaped.push_back('\\');
    }
    escaped.push_back(ch);
  }
  std::function<Result<std::vector<UserRow>>(Connection&)> job =
      [after, escaped = std::move(escaped), limit](Connection& c) -> Result<std::vector<UserRow>> {
    const std::string sql = std::string(kSelectColumns) + std::string(kWhereListed);
    return c.QueryRows(sql, {after, escaped, int64_t{limit}}, FromRow);
  };
  co_return co_await store_.Run<std::vector<UserRow>>(std::move(job));
}

Awaitable<Result<bool>> UserTable::MarkDeleted(int64_t id, int64_t now_ms) {
  std::function<Result<bool>(Connection&)> job = [id, now_ms](Connection& c) -> Result<bool> {
    PL_TRY(auto r, c.Query(kMarkDeleted, {id, now_ms}));
    return r.affected > 0;
  };
  co_return co_await store_.Run<bool>(std::move(job));
}

Awaitable<Result<bool>> UserTable::HasAdmin(std::string admin_role) {
  std::function<Result<bool>(Connection&)> job =
      [role = std::move(admin_role)](Connection& c) -> Result<bool> {
    PL_TRY(auto admins, c.QueryInt(kCountAdmins, {role}));
    return admins.value_or(0) > 0;
  };
  co_return co_await store_.Run<bool>(std::move(job));
}

Awaitable<Result<UserRow>> UserTable::InsertFirstAdmin(UserRow row) {
  std::function<Result<UserRow>(Connection&)> job =
      [row = std::move(row)](Connection& c) -> Result<UserRow> {
    Result<UserRow> inserted = Fail(ErrorCode::kInternal, "setup did not run");
    auto st = c.Transaction([&](Connection& tx) -> Status {
      auto marked = tx.Query(kInsertSetupMarker, {row.username_key});
      if (!marked && marked.error().code == ErrorCode::kAlreadyExists) {
        return Fail(ErrorCode::kAlreadyExists, "setup is done: an admin exists already");
      }
      PL_CHECK(marked);
      PL_TRY(auto admins, tx.QueryInt(kCountAdmins, {row.role}));
      // The marker just inserted counts once; anything more is an admin already there.
      if (!admins || *admins > 1) {
        return Fail(ErrorCode::kAlreadyExists, "setup is done: an admin exists already");
      }
      inserted = Insert(tx, row);
      PL_CHECK(inserted);
      return Status{};
    });
    PL_CHECK(st);
    return inserted;
  };
  co_return co_await store_.Run<UserRow>(std::move(job));
}

}  // namespace plaudit::sql
