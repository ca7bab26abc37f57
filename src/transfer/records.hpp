#pragma once
// The records of `plauditd export` and `plauditd import` (API.md "Moving data in and out"):
// one JSON object a line, each a row of one table, named by its "type".
//
// What is carried is what the site holds: accounts, articles and page threads, comments,
// likes, reports, the moderation log, guests' addresses, notices not yet delivered, the
// change feed, and the marks of ids already handed out. What is not carried is bookkeeping
// that belongs to the Redis beside the database (like and cache shard seqs, a like row's seq,
// an article's cache seqs: the import starts them again, as for a new Redis, and the like
// counts are counted again from the like rows) and the search index (built again from the
// articles by the indexer, as for a new database).
//
// The file's order is the table order below, each table's rows in its key's order, so two
// exports of the same data are the same bytes, and an import inserts a row only after the
// rows it refers to.
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace plaudit::transfer {

inline constexpr std::string_view kHeaderType = "plaudit-export";
inline constexpr int64_t kFormatVersion = 1;

enum class Kind { kInt, kText };

struct Column {
  std::string_view name;
  Kind kind = Kind::kInt;
  bool nullable = false;
  // Written only with --with-secrets (password hashes, token hashes, unsubscribe keys). An
  // import without them gets what a new row would: no password (the account signs in
  // another way, or an admin sets one), a new unsubscribe key.
  bool secret = false;
};

struct RecordType {
  std::string_view type;   // the record's "type"
  std::string_view table;  // its table
  std::span<const Column> columns;
  // The rows' order and paging key: a unique prefix of `columns`' names.
  std::span<const std::string_view> key;
  // Which rows are carried ("" all): an SQL condition on the table's columns.
  std::string_view where;
  // Which of those only with --with-secrets ("" all): rows that hold a secret in a column
  // that is not one (a notice's payload with its confirmation link's token).
  std::string_view public_where;
  // Its id comes from a sequence on PostgreSQL (IDENTITY, BIGSERIAL), moved past the imported
  // ids after an import.
  bool sequence = false;
  // Its rows may already be there in a new database (written at start-up): an imported row
  // replaces the one of the same key.
  bool replaces = false;
};

// Every record type, in the file's order.
std::span<const RecordType> RecordTypes();
// The record type named `type`, or nullptr.
const RecordType* FindRecordType(std::string_view type);

// A column's or table's name as SQL spells it on every backend ("name": the columns of
// RecordTypes() are plain lower-case words, so nothing in them needs escaping).
inline std::string QuotedName(std::string_view name) { return "\"" + std::string(name) + "\""; }

}  // namespace plaudit::transfer
