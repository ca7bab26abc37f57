// Schema migrations: pick the embedded files for a dialect and apply the missing ones.
//
// Two processes may start at once against one database. Each migration runs in its own
// transaction that first takes a database-wide lock (pg_advisory_xact_lock on PostgreSQL,
// BEGIN IMMEDIATE's write lock on SQLite) and then re-checks schema_migrations, so a
// migration another process applied meanwhile is skipped rather than applied twice.
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
  auto locked = conn.Query(kTakeLock, {kMigrationLockKey});
  if (!locked) {
    return tl::unexpected(locked.error());
  }
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
    }
    Migration m;
    auto [ptr, ec] = std::from_chars(stem.data(), stem.data() + stem.size(), m.version);
    size_t digits = ptr - stem.data();
    if (ec != std::errc() || m.version <= 0 || digits >= stem.size() || stem[digits] != '_' ||
        digits + 1 == stem.size()) {
      return bad("is not named NNN_name.sql");
    }
    m.name = std::string(stem.substr(digits + 1));
    if (m.name.find('.') != std::string::npos) {
      return bad("has an unknown dialect suffix (use .sqlite.sql or .postgresql.sql)");
    }
    m.sql = file.content;
    out.push_back(std::move(m));
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const Migration& a, const Migration& b) { return a.version < b.version; });
  for (size_t i = 1; i < out.size(); ++i) {
    if (out[i].version == out[i - 1].version) {
      return Fail(ErrorCode::kInternal,
                  "two migrations with version " + std::to_string(out[i].version));
    }
  }
  return out;
}

Result<int> ApplyMigrations(DbConnection& conn) {
  auto migrations = MigrationsFor(conn.dialect());
  if (!migrations) {
    return tl::unexpected(migrations.error());
  }
  // Under the lock too: concurrent CREATE TABLE IF NOT EXISTS can fail on PostgreSQL.
  Status created = conn.Transaction([](Connection& c) -> Status {
    if (auto locked = LockMigrations(c); !locked) {
      return locked;
    }
    return c.ExecScript(kCreateMigrationsTable);
  });
  if (!created) {
    return tl::unexpected(created.error());
  }

  int applied = 0;
  for (const Migration& m : *migrations) {
    bool ran = false;
    Status status = conn.Transaction([&](Connection& c) -> Status {
      if (auto locked = LockMigrations(c); !locked) {
        return locked;
      }
      auto existing = c.Query(kSelectVersion, {int64_t{m.version}});
      if (!existing) {
        return tl::unexpected(existing.error());
      }
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
      if (!recorded) {
        return tl::unexpected(recorded.error());
      }
      ran = true;
      return {};
    });
    if (!status) {
      return tl::unexpected(status.error());
    }
    if (ran) {
      ++applied;
      spdlog::info("sql: applied migration {:03d}_{}", m.version, m.name);
    }
  }
  return applied;
}

}  // namespace plaudit::sql
