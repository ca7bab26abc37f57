// plauditd import: an export (transfer/dump.hpp) loaded into a new database, checked line by
// line, in one transaction.
#include <sodium.h>

#include <array>
#include <iterator>
#include <string>

#include "sql/dialect.hpp"
#include "transfer/dump.hpp"
#include "transfer/record_lines.hpp"
#include "transfer/records.hpp"

namespace plaudit::transfer {
namespace {

// A batch's rows go in one INSERT: at most this many rows, and parameters (SQLite allows
// 32,766, PostgreSQL and MariaDB 65,535).
constexpr size_t kBatchRows = 256;
constexpr size_t kBatchParams = 16'000;
// Where an import leaves the SHA-256 of its file.
constexpr std::string_view kImportedKey = "imported";

// Rows of one record type waiting for their INSERT.
class Batch {
 public:
  explicit Batch(sql::Connection& tx) : tx_(tx) {}

  Status Add(ImportRecord record) {
    const RecordType& t = *record.type;
    if (type_ != &t) {
      PL_CHECK(Flush());
      type_ = &t;
    }
    const size_t before = params_.size();
    std::move(record.row.begin(), record.row.end(), std::back_inserter(params_));
    ++rows_;
    lines_.push_back(record.line);
    if (t.replaces) {
      // A row a new database may hold already (start-up writes it): the file's wins.
      PL_CHECK(tx_.Query(
          "DELETE FROM " + std::string(t.table) + " WHERE " + QuotedName(t.key[0]) + " = $1",
          {params_[before]}));
    }
    if (t.replaces || rows_ >= kBatchRows || params_.size() >= kBatchParams) {
      return Flush();
    }
    return {};
  }

  Status Flush() {
    if (rows_ == 0) {
      return {};
    }
    const RecordType& t = *type_;
    const size_t rows = rows_;
    std::vector<sql::Value> params = std::move(params_);
    std::vector<int64_t> lines = std::move(lines_);
    params_.clear();
    lines_.clear();
    rows_ = 0;
    // In a savepoint: a refused batch leaves the transaction usable (PostgreSQL's too), and
    // its rows go in again one at a time to find the one refused.
    auto done = Insert(InsertSql(t, rows), params);
    if (done || done.error().code == ErrorCode::kUnavailable) {
      return done;
    }
    const size_t width = params.size() / rows;
    const std::string one = InsertSql(t, 1);
    for (size_t r = 0; r < rows; ++r) {
      const std::vector<sql::Value> row(
          params.begin() + static_cast<std::ptrdiff_t>(r * width),
          params.begin() + static_cast<std::ptrdiff_t>((r + 1) * width));
      if (auto single = Insert(one, row); !single) {
        return tl::unexpected(AtLine(
            lines[r],
            WithArticle(t.type) + " record the database refused: " + single.error().message));
      }
    }
    return {};
  }

 private:
  std::string InsertSql(const RecordType& t, size_t rows) const {
    std::string q = "INSERT INTO " + std::string(t.table) + " (";
    size_t width = 0;
    for (const Column& col : t.columns) {
      q += (width++ == 0 ? "" : ", ") + QuotedName(col.name);
    }
    for (std::string_view name : DerivedColumns(t)) {
      q += ", " + QuotedName(name);
      ++width;
    }
    q += ") VALUES ";
    size_t n = 0;
    for (size_t r = 0; r < rows; ++r) {
      q += r == 0 ? "(" : ", (";
      for (size_t i = 0; i < width; ++i) {
        q += (i == 0 ? "$" : ", $") + std::to_string(++n);
      }
      q += ")";
    }
    return q;
  }

  Status Insert(const std::string& q, const std::vector<sql::Value>& params) {
    return tx_.Transaction([&](sql::Connection& sp) -> Status {
      PL_CHECK(sp.Query(q, params));
      return {};
    });
  }

  sql::Connection& tx_;
  const RecordType* type_ = nullptr;
  std::vector<sql::Value> params_;
  std::vector<int64_t> lines_;  // each waiting row's line
  size_t rows_ = 0;
};

// Rows that name a row the file does not have: the first of each kind found, as an error.
// (The schema holds most references by convention, not by a foreign key.)
struct Orphans {
  std::string_view what;
  std::string_view query;  // the offending row's id and what it names, at most one row
};
constexpr std::array kOrphans{
    Orphans{"a comment names an article the file does not have",
            "SELECT c.id, c.article_id FROM comments c WHERE NOT EXISTS (SELECT 1 FROM "
            "articles a WHERE a.id = c.article_id) LIMIT 1"},
    Orphans{"a reply names a parent comment the file does not have",
            "SELECT c.id, c.parent_id FROM comments c WHERE c.parent_id IS NOT NULL AND NOT "
            "EXISTS (SELECT 1 FROM comments p WHERE p.id = c.parent_id) LIMIT 1"},
    Orphans{"a reply names a parent comment of another article",
            "SELECT c.id, c.parent_id FROM comments c JOIN comments p ON p.id = c.parent_id "
            "WHERE p.article_id <> c.article_id LIMIT 1"},
    Orphans{"a reply names a parent that is not a top-level comment",
            "SELECT c.id, c.parent_id FROM comments c JOIN comments p ON p.id = c.parent_id "
            "WHERE p.parent_id IS NOT NULL OR p.id = c.id LIMIT 1"},
    Orphans{"a comment answers a comment the file does not have",
            "SELECT c.id, c.answers_id FROM comments c WHERE c.answers_id IS NOT NULL AND NOT "
            "EXISTS (SELECT 1 FROM comments a WHERE a.id = c.answers_id) LIMIT 1"},
    Orphans{"a report names a comment the file does not have",
            "SELECT r.user_id, r.comment_id FROM comment_reports r WHERE NOT EXISTS (SELECT 1 "
            "FROM comments c WHERE c.id = r.comment_id) LIMIT 1"},
    Orphans{"a comment names an author the file does not have",
            "SELECT c.id, c.author_id FROM comments c WHERE NOT EXISTS (SELECT 1 FROM users u "
            "WHERE u.id = c.author_id) LIMIT 1"},
    Orphans{"an article names an author the file does not have",
            "SELECT a.id, a.author_id FROM articles a WHERE NOT EXISTS (SELECT 1 FROM users u "
            "WHERE u.id = a.author_id) LIMIT 1"},
    Orphans{"a like names an article the file does not have",
            "SELECT l.user_id, l.target_id FROM likes l WHERE l.target_type = 'a' AND NOT "
            "EXISTS (SELECT 1 FROM articles a WHERE a.id = l.target_id) LIMIT 1"},
    Orphans{"a like names a comment the file does not have",
            "SELECT l.user_id, l.target_id FROM likes l WHERE l.target_type = 'c' AND NOT "
            "EXISTS (SELECT 1 FROM comments c WHERE c.id = l.target_id) LIMIT 1"},
    Orphans{"a like names a user the file does not have",
            "SELECT l.target_id, l.user_id FROM likes l WHERE NOT EXISTS (SELECT 1 FROM users "
            "u WHERE u.id = l.user_id) LIMIT 1"},
    Orphans{"a page names an article the file does not have",
            "SELECT p.article_id, p.article_id FROM pages p WHERE NOT EXISTS (SELECT 1 FROM "
            "articles a WHERE a.id = p.article_id) LIMIT 1"},
};

Status CheckReferences(sql::Connection& tx) {
  // The reserved accounts every database has (migrations 017, 021): page threads and guests'
  // comments are theirs.
  PL_TRY(const auto reserved,
         tx.QueryInt("SELECT COUNT(*) FROM users WHERE username IN ('@pages', '@guest')"));
  if (reserved.value_or(0) != 2) {
    return Fail(ErrorCode::kInvalidArgument,
                "the file lacks the reserved accounts @pages and @guest; nothing was imported");
  }
  for (const Orphans& o : kOrphans) {
    PL_TRY(auto row, tx.QueryRow(o.query, {}, [](const sql::Row& r) {
      return std::to_string(sql::Int(r[0])) + " names " + std::to_string(sql::Int(r[1]));
    }));
    if (row) {
      return Fail(ErrorCode::kInvalidArgument,
                  std::string(o.what) + " (" + *row + "); nothing was imported");
    }
  }
  return {};
}

// After the records: what a new database's bookkeeping must say about them.
Status Complete(sql::Connection& tx, const std::string& digest) {
  PL_CHECK(CheckReferences(tx));
  // The like counts, from the rows (the like triggers counted them too; this is the same
  // count, whatever the dialect's triggers do).
  PL_CHECK(
      tx.Query("UPDATE articles SET like_count = (SELECT COUNT(*) FROM likes l WHERE "
               "l.target_type = 'a' AND l.target_id = articles.id AND l.valid = 1)"));
  PL_CHECK(
      tx.Query("UPDATE comments SET like_count = (SELECT COUNT(*) FROM likes l WHERE "
               "l.target_type = 'c' AND l.target_id = comments.id AND l.valid = 1)"));
  // The change feed's next id follows the imported ones (sql/article_changes.hpp).
  PL_CHECK(
      tx.Query("UPDATE article_change_seq SET last_id = (SELECT COALESCE(MAX(id), 0) FROM "
               "article_changes)"));
  if (tx.dialect() == Dialect::kPostgres) {
    // An explicit id does not move an IDENTITY's or a BIGSERIAL's sequence.
    for (const RecordType& t : RecordTypes()) {
      if (t.sequence) {
        std::string q = "SELECT setval(pg_get_serial_sequence('";
        q.append(t.table).append("', 'id'), COALESCE(MAX(id), 0) + 1, false) FROM ");
        q.append(t.table);
        PL_CHECK(tx.Query(q));
      }
    }
  }
  PL_CHECK(sql::SetMeta(tx, kImportedKey, digest));
  return {};
}

Status Load(sql::Connection& tx, std::istream& in, const std::string& digest, Counts& counts) {
  PL_TRY(const auto standing, StandingFor(tx, digest));
  if (standing != Standing::kEmpty) {
    return Fail(ErrorCode::kAlreadyExists,
                "the database is not new: an export is imported into a new database");
  }
  // A new database's reserved accounts ('@pages', '@guest'): the file has its own, under the
  // ids its rows refer to.
  PL_CHECK(tx.Query("DELETE FROM user_name_keys"));
  PL_CHECK(tx.Query("DELETE FROM users"));

  Batch batch(tx);
  ExportReader reader(in);
  for (;;) {
    PL_TRY(auto record, reader.Next());
    if (!record) {
      break;
    }
    ++counts[record->type_index].records;
    PL_CHECK(batch.Add(std::move(*record)));
  }
  PL_CHECK(batch.Flush());
  return Complete(tx, digest);
}

}  // namespace

Result<std::string> Digest(std::istream& in) {
  crypto_hash_sha256_state state;
  crypto_hash_sha256_init(&state);
  std::array<char, 1 << 16> buf{};
  while (in) {
    in.read(buf.data(), buf.size());
    const auto n = in.gcount();
    if (n > 0) {
      crypto_hash_sha256_update(&state, reinterpret_cast<const unsigned char*>(buf.data()),
                                static_cast<unsigned long long>(n));
    }
  }
  if (in.bad()) {
    return Fail(ErrorCode::kUnavailable, "cannot read the file");
  }
  std::array<unsigned char, crypto_hash_sha256_BYTES> hash{};
  crypto_hash_sha256_final(&state, hash.data());
  std::array<char, crypto_hash_sha256_BYTES * 2 + 1> hex{};
  sodium_bin2hex(hex.data(), hex.size(), hash.data(), hash.size());
  return std::string(hex.data());
}

Result<Standing> StandingFor(sql::Connection& c, const std::string& digest) {
  PL_TRY(const auto imported, c.QueryRow("SELECT value FROM plaudit_meta WHERE \"key\" = $1",
                                         {std::string(kImportedKey)},
                                         [](const sql::Row& r) { return sql::Text(r[0]); }));
  if (imported && *imported == digest) {
    return Standing::kImported;
  }
  for (const RecordType& t : RecordTypes()) {
    if (t.replaces) {
      continue;
    }
    std::string q = "SELECT COUNT(*) FROM " + std::string(t.table);
    if (t.type == "user") {
      q += " WHERE username NOT LIKE '@%'";  // the reserved accounts every database has
    }
    PL_TRY(const auto n, c.QueryInt(q));
    if (n.value_or(0) > 0) {
      return Standing::kOccupied;
    }
  }
  return Standing::kEmpty;
}

Result<Counts> ReadImport(sql::Connection& c, std::istream& in, const std::string& digest) {
  Counts counts;
  for (const RecordType& t : RecordTypes()) {
    counts.push_back({std::string(t.type), 0});
  }
  PL_CHECK(c.Transaction([&](sql::Connection& tx) { return Load(tx, in, digest, counts); }));
  return counts;
}

}  // namespace plaudit::transfer
