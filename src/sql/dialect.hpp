#pragma once
// The few statements whose text differs by dialect, as helpers the tables share. Queries are
// written in the SQL that SQLite and PostgreSQL share (store.hpp); MySQL reads most of it too
// (its session runs with ANSI_QUOTES and PIPES_AS_CONCAT), but has no ON CONFLICT and no
// RETURNING. Tables with a dialect's own text of a statement ask Connection::dialect().
#include <cstdint>
#include <string_view>
#include <vector>

#include "sql/store.hpp"

namespace plaudit::sql {

// `sql` is `INSERT … ON CONFLICT … DO NOTHING`: runs it and returns its rows (affected 0 when
// the row was there). MySQL runs it without the clause and counts a duplicate key as no row
// inserted: a duplicate fails only that statement there, not the transaction (INSERT IGNORE
// would also turn NOT NULL and foreign-key failures into silent skips).
Result<Rows> InsertOrNothing(Connection& tx, std::string_view sql,
                             const std::vector<Value>& params);

// Deletes the like rows of targets `ids` of kind `type` ('a' or 'c'), in pieces of at most
// 512 ids; returns the rows deleted. (MySQL: where a subquery would read the table the like
// triggers write.)
Result<int64_t> DeleteLikesOf(Connection& tx, char type, const std::vector<int64_t>& ids);

// Sets plaudit_meta's `key` to `value` in one statement (an upsert, the row updated in place
// when it is there). A delete and an insert, or an update and an insert when it touched no row,
// fail with a duplicate key when two processes (two `plauditd flush` runs) do it at once: the
// second's delete or update saw no row, the first's insert committed before the second's.
Status SetMeta(Connection& tx, std::string_view key, std::string value);

// MySQL: the id AUTO_INCREMENT gave this session's last insert (or the value of its last
// LAST_INSERT_ID(expr)), where the others read RETURNING.
Result<int64_t> LastInsertId(Connection& tx);

}  // namespace plaudit::sql
