#pragma once
// `plauditd export` and `plauditd import` of Plaudit's own format (API.md "Moving data in
// and out"; the records: transfer/records.hpp). Both run on an SQL pool thread, with one
// connection, inside sql::Store::Run().
//
// The file: a header line {"type":"plaudit-export","version":1}, the records, and an end line
// {"type":"end","records":N} (N: the records between the two), so that a file cut short at a
// line's end is refused rather than imported in part.
//
// Export: one snapshot (a read transaction: REPEATABLE READ on PostgreSQL, a consistent
// snapshot on MariaDB, SQLite's WAL snapshot), each table paged by its key 1,000 rows at a
// time, so memory stays the same whatever the size. The caller flushes the write-behind first.
//
// Import: into a new database only (its own reserved accounts aside), in one transaction, so
// it loads the whole file or, on the first bad line, nothing. A database that already holds
// the import of the same file (its SHA-256, kept in plaudit_meta) is left as it is: importing
// a file twice changes nothing.
#include <cstdint>
#include <istream>
#include <ostream>
#include <string>
#include <vector>

#include "sql/store.hpp"

namespace plaudit::transfer {

struct TypeCount {
  std::string type;
  int64_t records = 0;
};
using Counts = std::vector<TypeCount>;  // RecordTypes()' order

// Writes every record to `out` (std::ios failures become errors).
Result<Counts> WriteExport(sql::Connection& c, std::ostream& out, bool with_secrets);

// The SHA-256 of what is left of `in`, as 64 hex digits.
Result<std::string> Digest(std::istream& in);

enum class Standing {
  kEmpty,     // a new database: an import may load into it
  kImported,  // it holds the import of the file with this digest already
  kOccupied,  // it holds other data: an import is refused
};
// What an import of the file with `digest` would find.
Result<Standing> StandingFor(sql::Connection& c, const std::string& digest);

// Loads `in` (an export) into the database in one transaction. kAlreadyExists when the
// database is not new; kInvalidArgument, with the line's number, for the first bad line.
Result<Counts> ReadImport(sql::Connection& c, std::istream& in, const std::string& digest);

}  // namespace plaudit::transfer
