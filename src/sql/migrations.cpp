// Schema migrations: pick the embedded files for a dialect and apply the missing ones.
//
// Two processes may start at once against one database. Each migration runs in its own
// transaction that first takes a database-wide lock (pg_advisory_xact_lock on PostgreSQL,
// BEGIN IMMEDIATE's write lock on SQLite) and then re-checks schema_migrations, so a
// migration another process applied meanwhile is skipped rather than applied twice.
//
// MySQL commits each DDL statement by itself, so a migration there is not one transaction:
// the whole run holds a named lock (GET_LOCK, the session's) instead, and a migration that
// failed halfway is reported with its name, for the operator to finish by hand. A fresh
// database first gets utf8mb4 with a binary, no-pad collation as its default, so every
// table's text compares byte for byte, as on the other two.
#include "sql/migrations.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <ctime>
#include <string>

#include "common/embedded.hpp"
#include "sql/connection_impl.hpp"

namespace plaudit::sql {

namespace {

constexpr int64_t kMigrationLockKey = 0x706c6175646974;  // "plaudit"

constexpr std::string_view kCreateMigrationsTable =
    "CREATE TABLE IF NOT EXISTS schema_migrations ("
    "version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)";
constexpr std::string_view kSelectVersion = "SELECT 1 FROM schema_migrations WHERE version = $1";
constexpr std::string_view kInsertVersion =
    "INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)";
constexpr std::string_view kTakeLock = "SELECT pg_advisory_xact_lock($1::bigint)";
constexpr std::string_view kMysqlLock = "SELECT GET_LOCK('plaudit_migrations', 120)";
constexpr std::string_view kMysqlUnlock = "SELECT RELEASE_LOCK('plaudit_migrations')";
constexpr std::string_view kMysqlFresh =
    "SELECT DATABASE(), VERSION(), (SELECT COUNT(*) FROM information_schema.tables "
    "WHERE table_schema = DATABASE() AND table_name = 'schema_migrations')";

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

std::string UtcNow() {
  std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

Status LockMigrations(Connection& conn) {
  if (conn.dialect() != Dialect::kPostgres) {
    return {};  // BEGIN IMMEDIATE already holds SQLite's single write lock
  }
  PL_CHECK(conn.Query(kTakeLock, {kMigrationLockKey}));
  return {};
}

}  // namespace

Result<std::vector<Migration>> MigrationsFor(Dialect dialect) {
  std::vector<Migration> out;
  for (const auto& file : migrations::Files()) {
    std::string_view name = file.name;
    auto bad = [&](std::string_view why) {
      return Fail(ErrorCode::kInternal,
                  "migration file " + std::string(name) + ": " + std::string(why));
    };
    if (!EndsWith(name, ".sql")) {
      return bad("does not end in .sql");
    }
    std::string_view stem = name.substr(0, name.size() - 4);
    if (EndsWith(stem, ".sqlite")) {
      if (dialect != Dialect::kSqlite) {
        continue;
      }
      stem.remove_suffix(7);
    } else if (EndsWith(stem, ".postgresql")) {
      if (dialect != Dialect::kPostgres) {
        continue;
      }
      stem.remove_suffix(11);
    } else if (EndsWith(stem, ".mysql")) {
      if (dialect != Dialect::kMysql) {
        continue;
      }
      stem.remove_suffix(6);
    }
    Migration m;
    m.dialect_only = stem.size() + 4 != name.size();
    auto [ptr, ec] = std::from_chars(stem.data(), stem.data() + stem.size(), m.version);
    size_t digits = ptr - stem.data();
    if (ec != std::errc() || m.version <= 0 || digits >= stem.size() || stem[digits] != '_' ||
        digits + 1 == stem.size()) {
      return bad("is not named NNN_name.sql");
    }
    m.name = std::string(stem.substr(digits + 1));
    if (m.name.find('.') != std::string::npos) {
      return bad("has an unknown dialect suffix (use .sqlite.sql, .postgresql.sql or .mysql.sql)");
    }
    m.sql = file.content;
    out.push_back(std::move(m));
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const Migration& a, const Migration& b) { return a.version < b.version; });
  // A dialect's own file replaces the shared one of its version (MySQL needs its own text
  // for tables whose shared SQL the other two read alike).
  for (size_t i = 1; i < out.size();) {
    if (out[i].version == out[i - 1].version && out[i].dialect_only != out[i - 1].dialect_only) {
      out.erase(out.begin() + static_cast<std::ptrdiff_t>(out[i].dialect_only ? i - 1 : i));
    } else {
      ++i;
    }
  }
  for (size_t i = 1; i < out.size(); ++i) {
    if (out[i].version == out[i - 1].version) {
      return Fail(ErrorCode::kInternal,
                  "two migrations with version " + std::to_string(out[i].version));
    }
  }
  return out;
}

namespace {

// MySQL: the run's named lock, and a fresh database's default character set and collation.
Status PrepareMysql(DbConnection& conn) {
  PL_TRY(auto locked, conn.Query(kMysqlLock));
  if (locked.rows.empty() || Int(locked.rows[0][0]) != 1) {
    return Fail(ErrorCode::kUnavailable, "another process held the migration lock for 120 s");
  }
  PL_TRY(auto fresh, conn.Query(kMysqlFresh));
  if (fresh.rows.empty() || Int(fresh.rows[0][2]) != 0) {
    return {};
  }
  const std::string name = Text(fresh.rows[0][0]);
  // MariaDB's binary collations pad with spaces ('a' = 'a '); utf8mb4_nopad_bin does not.
  // MySQL 8's utf8mb4_0900_bin is binary without padding.
  const bool mariadb = Text(fresh.rows[0][1]).find("MariaDB") != std::string::npos;
  std::string quoted = "\"";
  for (char c : name) {
    quoted += c;
    if (c == '"') {
      quoted += '"';
    }
  }
  quoted += '"';
  return conn.ExecScript("ALTER DATABASE " + quoted + " CHARACTER SET utf8mb4 COLLATE " +
                         (mariadb ? "utf8mb4_nopad_bin" : "utf8mb4_0900_bin"));
}

Result<int> ApplyMigrationsLocked(DbConnection& conn);

}  // namespace

Result<int> ApplyMigrations(DbConnection& conn) {
  if (conn.dialect() != Dialect::kMysql) {
    return ApplyMigrationsLocked(conn);
  }
  PL_CHECK(PrepareMysql(conn));
  auto applied = ApplyMigrationsLocked(conn);
  (void)conn.Query(kMysqlUnlock);  // also released when the connection closes
  return applied;
}

namespace {

Result<int> ApplyMigrationsLocked(DbConnection& conn) {
  PL_TRY(auto migrations, MigrationsFor(conn.dialect()));
  // Under the lock too: concurrent CREATE TABLE IF NOT EXISTS can fail on PostgreSQL.
  Status created = conn.Transaction([](Connection& c) -> Status {
    if (auto locked = LockMigrations(c); !locked) {
      return locked;
    }
    return c.ExecScript(kCreateMigrationsTable);
  });
  PL_CHECK(created);

  int applied = 0;
  for (const Migration& m : migrations) {
    bool ran = false;
    Status status = conn.Transaction([&](Connection& c) -> Status {
      if (auto locked = LockMigrations(c); !locked) {
        return locked;
      }
      auto existing = c.Query(kSelectVersion, {int64_t{m.version}});
      PL_CHECK(existing);
      if (!existing->rows.empty()) {
        return {};
      }
      if (auto script = c.ExecScript(m.sql); !script) {
        Error error = script.error();
        error.message =
            "migration " + std::to_string(m.version) + "_" + m.name + ": " + error.message;
        return tl::unexpected(error);
      }
      auto recorded = c.Query(kInsertVersion, {int64_t{m.version}, m.name, UtcNow()});
      PL_CHECK(recorded);
      ran = true;
      return {};
    });
    PL_CHECK(status);
    if (ran) {
      ++applied;
      spdlog::info("sql: applied migration {:03d}_{}", m.version, m.name);
    }
  }
  return applied;
}

}  // namespace

}  // namespace plaudit::sql
