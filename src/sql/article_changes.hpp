#pragma once
// The article change feed's outbox (migration 009): one row per article change, written by
// ArticleTable in the change's own transaction, read by id for GET /api/v1/changes.
//
// Why it loses nothing: the row commits or rolls back with the change itself, so neither a
// Redis failure after the commit nor an emptied Redis can drop it. Why paging by id is exact:
// ids come from a one-row counter that each writing transaction updates last, holding its
// row lock until COMMIT, so on PostgreSQL a transaction that wants the next id waits for the
// one holding n to commit (it then takes n+1) or roll back (it takes n); ids therefore become
// visible in order and without gaps, and a reader that has seen id n has seen every id below.
// A sequence would not do: two transactions may take 10 and 11 and commit 11 first; a reader
// at that moment moves its cursor to 11 and never sees 10. The cost is that article writes
// serialise on that row for the length of their commit; they are rare next to likes and
// views, which never touch it.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sql/store.hpp"

namespace plaudit::sql {

struct ChangeRow {
  int64_t id = 0;
  int64_t article_id = 0;
  std::string op;  // create, update, publish, unpublish, delete
  int64_t at_ms = 0;
};

// How much of the outbox is kept: the newest `keep` rows, give or take: when a change takes
// an id that is a multiple of `trim_every`, rows with id <= id - keep are deleted in the same
// transaction, so at most keep + trim_every - 1 rows exist at any time.
struct ChangeRetention {
  int64_t keep = 100'000;
  int64_t trim_every = 1'000;
};

// Appends one change inside `tx`, a transaction the caller has open (and that holds the
// article change). Returns the change's id, or 0 (nothing appended) for an article of kind
// page: page threads are no indexer's business (issue 41). Their deletion, which finds the row
// gone already, still appends a bare "delete" of an id the feed never announced.
Result<int64_t> AppendChange(Connection& tx, int64_t article_id, std::string_view op, int64_t at_ms,
                             const ChangeRetention& retention);

// The op an update records, from the article's status before it (read in the same
// transaction) and after it: "publish", "unpublish" or "update".
std::string_view UpdateOp(std::string_view old_status, std::string_view new_status);

class ChangeTable {
 public:
  explicit ChangeTable(Store& store) : store_(store) {}

  // Changes with id > after_id, by id, at most `limit`.
  Awaitable<Result<std::vector<ChangeRow>>> After(int64_t after_id, int64_t limit);
  // Changes from the first one (by id) whose `at` is >= at_ms, by id, at most `limit`: where
  // an old Redis-stream cursor "<ms>-<seq>" resumes.
  Awaitable<Result<std::vector<ChangeRow>>> FromTime(int64_t at_ms, int64_t limit);

 private:
  Store& store_;
};

}  // namespace plaudit::sql
