#pragma once
// Which database a URL names: sqlite:///abs/path/file.db (sqlite://rel, sqlite:rel, or a plain
// file path), postgresql://user:pass@host:port/db (postgres:// too; ?host=/socket/dir works:
// the URL is handed to libpq as it is), or mysql://user:pass@host:port/db (mariadb:// too; see
// MysqlTarget for its options). Parsed once at start-up (src/config, --database); sql::Store
// opens the parsed value.
#include <string>
#include <string_view>

#include "common/result.hpp"

namespace plaudit {

enum class Dialect { kSqlite, kPostgres, kMysql };

struct DatabaseUrl {
  Dialect dialect = Dialect::kSqlite;
  std::string target;  // SQLite file path, or the URL handed to libpq or MysqlTarget::Parse

  // Every connection to it would see its own empty database: it needs a pool of one.
  bool in_memory() const { return dialect == Dialect::kSqlite && target == ":memory:"; }

  friend bool operator==(const DatabaseUrl&, const DatabaseUrl&) = default;
};

// A MySQL or MariaDB server, from mysql://user:pass@host:port/db or mariadb://… (user and
// password percent-decoded). Options: ?socket=/path (a Unix socket; the host is then ignored),
// ?tls=off|on|verify (default off on a socket or loopback, `on` elsewhere: encrypted; `verify`
// also checks the server's certificate and name), ?tls-ca=/path/ca.pem (implies verify).
struct MysqlTarget {
  std::string user;
  std::string password;
  std::string host = "localhost";
  int port = 3306;
  std::string database;
  std::string socket;
  enum class Tls { kOff, kOn, kVerify } tls = Tls::kOff;
  std::string tls_ca;

  static Result<MysqlTarget> Parse(std::string_view url);
};

// kInvalidArgument naming the problem (not the flag) when `url` is empty, has another scheme,
// or is a PostgreSQL URL libpq cannot parse (an unknown ?option, say), or a MySQL URL
// MysqlTarget::Parse refuses.
Result<DatabaseUrl> ParseDatabaseUrl(std::string_view url);

}  // namespace plaudit
