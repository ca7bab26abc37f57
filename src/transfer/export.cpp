// plauditd export: every table of transfer/records.hpp, in one read snapshot, as JSON Lines.
#include <boost/json.hpp>
#include <string>

#include "transfer/dump.hpp"
#include "transfer/record_lines.hpp"
#include "transfer/records.hpp"

namespace plaudit::transfer {
namespace {

namespace json = boost::json;

constexpr int64_t kPage = 1000;

bool IsText(const RecordType& t, std::string_view column) {
  for (const Column& c : t.columns) {
    if (c.name == column) {
      return c.kind == Kind::kText;
    }
  }
  return false;
}

// A key column as it is compared and ordered: text by its bytes on every backend (PostgreSQL's
// and MariaDB's collations order "B" and "a" otherwise, and the file's order with them).
std::string KeyTerm(const RecordType& t, std::string_view column, Dialect d) {
  std::string q = QuotedName(column);
  if (!IsText(t, column)) {
    return q;
  }
  switch (d) {
    case Dialect::kPostgres:
      return q + " COLLATE \"C\"";
    case Dialect::kMysql:
      return "CAST(" + q + " AS BINARY)";
    case Dialect::kSqlite:
      break;
  }
  return q;  // SQLite compares text by its bytes (BINARY)
}

// SELECT <columns> FROM <table> [WHERE <where> [AND <key> > <last key>]] ORDER BY <key>
// LIMIT <page>: the next page after `after` (none for the first).
std::string PageQuery(const RecordType& t, bool after, bool with_secrets, Dialect d) {
  std::string q = "SELECT ";
  for (size_t i = 0; i < t.columns.size(); ++i) {
    q += (i == 0 ? "" : ", ") + QuotedName(t.columns[i].name);
  }
  q += " FROM " + std::string(t.table);
  std::string cond(t.where);
  if (!with_secrets && !t.public_where.empty()) {
    cond = cond.empty() ? std::string(t.public_where)
                        : "(" + cond + ") AND (" + std::string(t.public_where) + ")";
  }
  if (after) {
    std::string lhs;
    std::string rhs;
    for (size_t i = 0; i < t.key.size(); ++i) {
      lhs += (i == 0 ? "" : ", ") + KeyTerm(t, t.key[i], d);
      rhs += (i == 0 ? "$" : ", $") + std::to_string(i + 1);
    }
    const std::string row = t.key.size() == 1 ? lhs + " > " + rhs : "(" + lhs + ") > (" + rhs + ")";
    cond = cond.empty() ? row : "(" + cond + ") AND " + row;
  }
  if (!cond.empty()) {
    q += " WHERE " + cond;
  }
  q += " ORDER BY ";
  for (size_t i = 0; i < t.key.size(); ++i) {
    q += (i == 0 ? "" : ", ") + KeyTerm(t, t.key[i], d);
  }
  q += " LIMIT " + std::to_string(kPage);
  return q;
}

size_t ColumnIndex(const RecordType& t, std::string_view name) {
  for (size_t i = 0; i < t.columns.size(); ++i) {
    if (t.columns[i].name == name) {
      return i;
    }
  }
  return t.columns.size();  // records.cpp names only its own columns as keys
}

Status WriteLine(std::ostream& out, const json::object& o) {
  out << json::serialize(o) << '\n';
  if (!out) {
    return Fail(ErrorCode::kUnavailable, "export: cannot write the file");
  }
  return {};
}

Result<int64_t> WriteTable(sql::Connection& c, const RecordType& t, std::ostream& out,
                           bool with_secrets) {
  const std::string first = PageQuery(t, false, with_secrets, c.dialect());
  const std::string next = PageQuery(t, true, with_secrets, c.dialect());
  std::vector<sql::Value> last;
  int64_t written = 0;
  for (;;) {
    PL_TRY(auto rows, c.Query(last.empty() ? first : next, last));
    for (const sql::Row& row : rows.rows) {
      PL_CHECK(WriteLine(out, EncodeRecord(t, row, with_secrets)));
    }
    written += static_cast<int64_t>(rows.rows.size());
    if (static_cast<int64_t>(rows.rows.size()) < kPage) {
      return written;
    }
    last.clear();
    for (std::string_view k : t.key) {
      const size_t i = ColumnIndex(t, k);
      const sql::Value& v = rows.rows.back()[i];
      last.push_back(t.columns[i].kind == Kind::kInt ? sql::Value{sql::Int(v)}
                                                     : sql::Value{sql::Text(v)});
    }
  }
}

std::string_view BeginSnapshot(Dialect d) {
  switch (d) {
    case Dialect::kPostgres:
      return "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY";
    case Dialect::kMysql:
      // The session's READ COMMITTED (sql/mysql_connection.cpp) would read each page from a
      // snapshot of its own, WITH CONSISTENT SNAPSHOT or not: this transaction is REPEATABLE
      // READ. (ExecScript: the two statements in one call.)
      return "SET TRANSACTION ISOLATION LEVEL REPEATABLE READ; "
             "START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY";
    case Dialect::kSqlite:
      break;
  }
  // WAL: the first read fixes the snapshot the transaction's reads all see.
  return "BEGIN";
}

}  // namespace

Result<Counts> WriteExport(sql::Connection& c, std::ostream& out, bool with_secrets) {
  PL_CHECK(c.ExecScript(BeginSnapshot(c.dialect())));
  PL_CHECK(WriteLine(out, HeaderRecord()));
  Counts counts;
  int64_t records = 0;
  for (const RecordType& t : RecordTypes()) {
    PL_TRY(auto n, WriteTable(c, t, out, with_secrets));
    counts.push_back({std::string(t.type), n});
    records += n;
  }
  PL_CHECK(WriteLine(out, EndRecord(records)));
  out.flush();
  if (!out) {
    return Fail(ErrorCode::kUnavailable, "export: cannot write the file");
  }
  PL_CHECK(c.ExecScript("COMMIT"));
  return counts;
}

}  // namespace plaudit::transfer
