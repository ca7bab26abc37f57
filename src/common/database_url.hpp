#pragma once
// Which database a URL names: sqlite:///abs/path/file.db (sqlite://rel, sqlite:rel, or a plain
// file path) or postgresql://user:pass@host:port/db (postgres:// too; ?host=/socket/dir works:
// the URL is handed to libpq as it is). Parsed once at start-up (src/config, --database);
// sql::Store opens the parsed value.
#include <string>
#include <string_view>

#include "common/result.hpp"

namespace plaudit {

enum class Dialect { kSqlite, kPostgres };

struct DatabaseUrl {
  Dialect dialect = Dialect::kSqlite;
  std::string target;  // SQLite file path, or the URL handed to libpq

  // Every connection to it would see its own empty database: it needs a pool of one.
  bool in_memory() const { return dialect == Dialect::kSqlite && target == ":memory:"; }

  friend bool operator==(const DatabaseUrl&, const DatabaseUrl&) = default;
};

// kInvalidArgument naming the problem (not the flag) when `url` is empty, has another scheme,
// or is a PostgreSQL URL libpq cannot parse (an unknown ?option, say).
Result<DatabaseUrl> ParseDatabaseUrl(std::string_view url);

}  // namespace plaudit
