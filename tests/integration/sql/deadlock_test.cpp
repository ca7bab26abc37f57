// A deadlock between two pool jobs (MySQL 1213, PostgreSQL 40P01) is not an error the caller
// sees: the server undoes the victim's transaction and Store::Run runs the victim's job again
// from its start, so both jobs complete and each row holds both writes.
#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <latch>

#include "sql/store.hpp"
#include "sql_test_util.hpp"

namespace plaudit::sql::test {
namespace {

class DeadlockRetry : public SqlTest {};

using detail::kJobAttempts;

// Job `first` locks row `first` then `second`; the two jobs run at once with opposite orders,
// and wait for each other (on their first run only) after their first lock, so they
// deadlock for sure.
Result<int64_t> LockBoth(Connection& c, int64_t first, int64_t second, std::latch& both_hold,
                         std::atomic<int>& runs) {
  const int run = ++runs;
  int64_t out = 0;
  auto st = c.Transaction([&](Connection& tx) -> Status {
    auto a = tx.Query("UPDATE t SET n = n + 1 WHERE id = $1", {first});
    if (!a) {
      return tl::unexpected(a.error());
    }
    if (run == 1) {
      both_hold.arrive_and_wait();
    }
    auto b = tx.Query("UPDATE t SET n = n + 1 WHERE id = $1", {second});
    if (!b) {
      return tl::unexpected(b.error());
    }
    out = b->affected;
    return {};
  });
  if (!st) {
    return tl::unexpected(st.error());
  }
  return out;
}

TEST_P(DeadlockRetry, TheVictimRunsAgainAndBothJobsComplete) {
  if (GetParam() == Dialect::kSqlite) {
    GTEST_SKIP() << "one writer: SQLite cannot deadlock";
  }
  auto store = OpenWithTable(/*pool_size=*/2);
  ASSERT_TRUE(store);
  ASSERT_TRUE(Query(*store, "INSERT INTO t (id, n) VALUES (1, 0), (2, 0)"));
  std::latch both_hold(2);
  std::atomic<int> runs_a{0}, runs_b{0};
  auto a = std::async(std::launch::async, [&] {
    return RunSync(
        store->Run<int64_t>([&](Connection& c) { return LockBoth(c, 1, 2, both_hold, runs_a); }));
  });
  auto b = std::async(std::launch::async, [&] {
    return RunSync(
        store->Run<int64_t>([&](Connection& c) { return LockBoth(c, 2, 1, both_hold, runs_b); }));
  });
  auto ra = a.get();
  auto rb = b.get();
  ASSERT_TRUE(ra) << ra.error().message;
  ASSERT_TRUE(rb) << rb.error().message;
  // At least the deadlock's victim ran again. Its rerun can take its first lock before the
  // winner, woken by the abort, takes its second (a loaded machine: seen on PostgreSQL), and
  // deadlock once more: then a job ran a third time. Each job's writes still landed once.
  EXPECT_GE(runs_a + runs_b, 3) << "the deadlock's victim ran again";
  EXPECT_LE(runs_a + runs_b, 2 * kJobAttempts);
  auto rows = Query(*store, "SELECT n FROM t ORDER BY id");
  ASSERT_TRUE(rows) << rows.error().message;
  EXPECT_EQ(Int(rows->rows.at(0).at(0)), 2) << "both jobs' writes, once each";
  EXPECT_EQ(Int(rows->rows.at(1).at(0)), 2);
}

// A retryable error from a job that keeps failing is answered after three runs, not looped on.
TEST_P(DeadlockRetry, AJobThatKeepsFailingIsAnsweredAfterThreeRuns) {
  auto store = OpenStore();
  ASSERT_TRUE(store);
  std::atomic<int> runs{0};
  auto r = RunSync(store->Run<int64_t>([&](Connection&) -> Result<int64_t> {
    ++runs;
    auto failure = Fail(ErrorCode::kUnavailable, "deadlock (simulated)");
    failure.value().retryable = true;
    return failure;
  }));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ErrorCode::kUnavailable);
  EXPECT_EQ(runs, 3);
}

INSTANTIATE_TEST_SUITE_P(Dialects, DeadlockRetry, AllDialects(), DialectName);

}  // namespace
}  // namespace plaudit::sql::test
