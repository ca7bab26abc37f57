#pragma once
// The schema migrations compiled into the binary (src/sql/migrations/*.sql).
//
// A file is `NNN_name.sql` for every dialect, or `NNN_name.sqlite.sql` /
// `NNN_name.postgresql.sql` / `NNN_name.mysql.sql` when a dialect needs different SQL (a
// dialect's own file replaces the shared one of its version: MySQL wants lengths on indexed
// text where the other two share one text). NNN is the version recorded in
// schema_migrations. A script must not BEGIN or COMMIT itself: Migrate() runs each one in a
// transaction together with its schema_migrations row (MySQL commits DDL by itself: see
// migrations.cpp).
#include <string>
#include <string_view>
#include <vector>

#include "common/result.hpp"
#include "sql/store.hpp"

namespace plaudit::sql {

struct Migration {
  int version = 0;
  std::string name;  // "meta" for 001_meta.sql
  std::string_view sql;
  bool dialect_only = false;  // from a .sqlite/.postgresql/.mysql file
};

// The migrations for `dialect` in version order. Fails (kInternal) on a file name that does
// not follow the convention or on two files with the same version for one dialect.
Result<std::vector<Migration>> MigrationsFor(Dialect dialect);

}  // namespace plaudit::sql
