#pragma once
// The schema migrations compiled into the binary (src/sql/migrations/*.sql).
//
// A file is `NNN_name.sql` for both dialects, or a pair `NNN_name.sqlite.sql` /
// `NNN_name.postgresql.sql` when the dialects need different SQL. NNN is the version recorded
// in schema_migrations. A script must not BEGIN or COMMIT itself: Migrate() runs each one in
// a transaction together with its schema_migrations row.
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
};

// The migrations for `dialect` in version order. Fails (kInternal) on a file name that does
// not follow the convention or on two files with the same version for one dialect.
Result<std::vector<Migration>> MigrationsFor(Dialect dialect);

}  // namespace plaudit::sql
