#pragma once
// The lines of an export (transfer/dump.hpp): a row encoded as its record, and a file's lines
// decoded and checked, apart from the SQL that reads and writes the rows, so the decoder of
// what `plauditd import` is handed can be fed any bytes alone (fuzz/export_lines.cpp).
#include <boost/json/object.hpp>
#include <cstdint>
#include <istream>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.hpp"
#include "sql/store.hpp"
#include "transfer/records.hpp"

namespace plaudit::transfer {

// A line longer than this is refused (an article's text is at most --max-body, 1 MiB by
// default; a record is that, escaped, and its other fields).
inline constexpr size_t kMaxLine = size_t{64} << 20;

// The file's first line, {"type":"plaudit-export","version":1}, and its last.
boost::json::object HeaderRecord();
boost::json::object EndRecord(int64_t records);
// One row (`t.columns`' order) as its record. The column's kind, not the value's, says what it
// is: PostgreSQL answers every value as text. Secret columns only `with_secrets`.
boost::json::object EncodeRecord(const RecordType& t, const sql::Row& row, bool with_secrets);

// The columns an import writes besides a record's own, derived from them: a user's
// username_key, a like's valid and seq.
std::span<const std::string_view> DerivedColumns(const RecordType& t);

// A record of the file, decoded: its row holds `type->columns`' values in their order, then
// DerivedColumns(*type)'s. A secret column the file does not carry holds what a new row
// would (no password hash, a new unsubscribe key).
struct ImportRecord {
  const RecordType* type = nullptr;
  size_t type_index = 0;  // in RecordTypes()
  sql::Row row;
  int64_t line = 0;
};

// "line N: message", as an import's errors name the line (kInvalidArgument).
Error AtLine(int64_t line, const std::string& message);
// "a comment", "an article".
std::string WithArticle(std::string_view noun);

// Reads an export line by line, checking what the file alone can say: its header, each
// record's type and fields, the records' order, and the end record's count. What needs the
// database (the references between rows, its constraints) is the importer's.
class ExportReader {
 public:
  explicit ExportReader(std::istream& in) : in_(in) {}

  // The next record; nullopt once the file has ended well (its end record, then only blank
  // lines). kInvalidArgument with the line's number for the first bad line, after which the
  // reader is not to be asked again; kUnavailable when the stream fails.
  Result<std::optional<ImportRecord>> Next();

  int64_t line() const { return line_; }

 private:
  Result<bool> ReadLine();

  std::istream& in_;
  std::string text_;
  int64_t line_ = 0;
  size_t at_ = 0;  // RecordTypes() index of the last record
  int64_t records_ = 0;
  bool ended_ = false;
};

}  // namespace plaudit::transfer
