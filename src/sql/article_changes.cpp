#include "sql/article_changes.hpp"

#include "sql/dialect.hpp"

namespace plaudit::sql {
namespace {

// Jobs are named std::function variables, never lambda temporaries inside co_await (GCC 12).

// The counter's row lock is held to COMMIT; see article_changes.hpp for why.
constexpr std::string_view kClaimId =
    "UPDATE article_change_seq SET last_id = last_id + 1 WHERE one = 1 RETURNING last_id";
// MySQL has no RETURNING: LAST_INSERT_ID(expr) keeps the new value for this session.
constexpr std::string_view kClaimIdMysql =
    "UPDATE article_change_seq SET last_id = LAST_INSERT_ID(last_id + 1) WHERE one = 1";
constexpr std::string_view kInsert =
    "INSERT INTO article_changes (id, article_id, op, at) VALUES ($1, $2, $3, $4)";
constexpr std::string_view kTrim = "DELETE FROM article_changes WHERE id <= $1";
// Page threads stay out of the feed (issue 41): an indexer has nothing to index in them, and
// their titles are whatever the first commenter sent.
constexpr std::string_view kIsPage = "SELECT 1 FROM articles WHERE id = $1 AND kind = 'page'";
constexpr std::string_view kAfter =
    "SELECT id, article_id, op, at FROM article_changes WHERE id > $1 ORDER BY id LIMIT $2";
// Scans from the oldest row to the first with at >= $1: after an upgrade that is the first
// row (the outbox starts then), and the table is bounded by retention in any case.
constexpr std::string_view kFromTime =
    "SELECT id, article_id, op, at FROM article_changes WHERE id >= "
    "(SELECT id FROM article_changes WHERE at >= $1 ORDER BY id LIMIT 1) ORDER BY id LIMIT $2";

// kAfter's and kFromTime's row.
ChangeRow ChangeFromRow(const Row& row) {
  return {Int(row[0]), Int(row[1]), Text(row[2]), Int(row[3])};
}

}  // namespace

Result<int64_t> AppendChange(Connection& tx, int64_t article_id, std::string_view op, int64_t at_ms,
                             const ChangeRetention& retention) {
  // Before the counter: a skipped change takes no id, so ids stay gapless.
  PL_TRY(auto page, tx.Query(kIsPage, {article_id}));
  if (!page.rows.empty()) {
    return int64_t{0};
  }
  int64_t id = 0;
  if (tx.dialect() == Dialect::kMysql) {
    PL_TRY(auto claimed, tx.Query(kClaimIdMysql));
    if (claimed.affected == 0) {
      return Fail(ErrorCode::kInternal, "article_change_seq is empty");
    }
    PL_TRY(auto last, LastInsertId(tx));
    id = last;
  } else {
    PL_TRY(auto claimed, tx.QueryInt(kClaimId));
    if (!claimed) {
      return Fail(ErrorCode::kInternal, "article_change_seq is empty");
    }
    id = *claimed;
  }
  PL_CHECK(tx.Query(kInsert, {id, article_id, std::string(op), at_ms}));
  if (retention.trim_every > 0 && id % retention.trim_every == 0 && id > retention.keep) {
    PL_CHECK(tx.Query(kTrim, {id - retention.keep}));
  }
  return id;
}

std::string_view UpdateOp(std::string_view old_status, std::string_view new_status) {
  if (old_status == new_status) {
    return "update";
  }
  return new_status == "published" ? "publish" : "unpublish";
}

Awaitable<Result<std::vector<ChangeRow>>> ChangeTable::After(int64_t after_id, int64_t limit) {
  std::function<Result<std::vector<ChangeRow>>(Connection&)> job =
      [after_id, limit](Connection& c) -> Result<std::vector<ChangeRow>> {
    return c.QueryRows(kAfter, {after_id, limit}, ChangeFromRow);
  };
  co_return co_await store_.Run<std::vector<ChangeRow>>(std::move(job));
}

Awaitable<Result<std::vector<ChangeRow>>> ChangeTable::FromTime(int64_t at_ms, int64_t limit) {
  std::function<Result<std::vector<ChangeRow>>(Connection&)> job =
      [at_ms, limit](Connection& c) -> Result<std::vector<ChangeRow>> {
    return c.QueryRows(kFromTime, {at_ms, limit}, ChangeFromRow);
  };
  co_return co_await store_.Run<std::vector<ChangeRow>>(std::move(job));
}

}  // namespace plaudit::sql
