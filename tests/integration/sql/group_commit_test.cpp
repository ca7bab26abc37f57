// Store::RunGrouped (group commit, issue 47) on every dialect: the jobs waiting together share
// one transaction and one COMMIT, each is answered only once that commit is durable and
// visible, a failing job fails alone, and a job that must run again (a deadlock) or an error
// that ends the transaction by itself gives the group up without losing or doubling anything.
//
// The groups are made deterministic by a pool of one thread held by a plain Run() job while
// the grouped jobs are submitted: when it lets go, they are all waiting.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "sql_test_util.hpp"

namespace plaudit::sql::test {
namespace {

constexpr std::string_view kInsert = "INSERT INTO t (id, n, s) VALUES ($1, $2, $3)";

class GroupCommit : public SqlTest {
 protected:
  void SetUp() override {
    SqlTest::SetUp();
    store_ = OpenWithTable(/*pool_size=*/1);
    ASSERT_TRUE(store_);
    store_->SetGroupObserver([this](size_t jobs) {
      std::lock_guard lock(m_);
      groups_.push_back(jobs);
    });
    // Another connection, to see what is committed (a second store on the same database).
    reader_ = OpenStore(/*pool_size=*/1);
    ASSERT_TRUE(reader_);
  }

  // Holds the pool's one thread until Release(): grouped jobs submitted meanwhile wait
  // together.
  void Hold() {
    auto running = started_.get_future();
    hold_thread_ = std::thread([this] {
      auto held = RunSync(store_->Run<int>([this](Connection&) -> Result<int> {
        started_.set_value();
        release_.get_future().wait();
        return 1;
      }));
      EXPECT_TRUE(held);
    });
    running.wait();
  }
  void Release() {
    release_.set_value();
    hold_thread_.join();
  }

  // Spawns one grouped job per fn on `ioc` (submitted by ioc.poll()); answers[i] is job i's.
  void Spawn(net::io_context& ioc, std::vector<std::function<Result<int64_t>(Connection&)>> fns,
             std::vector<std::optional<Result<int64_t>>>& answers,
             std::function<void(size_t, const Result<int64_t>&)> on_answer = nullptr,
             std::vector<int64_t> orders = {}) {
    answers.assign(fns.size(), std::nullopt);
    for (size_t i = 0; i < fns.size(); ++i) {
      const int64_t order = i < orders.size() ? orders[i] : 0;
      net::co_spawn(
          ioc,
          [this, &answers, i, fn = std::move(fns[i]), on_answer,
           order]() mutable -> Awaitable<void> {
            auto r = co_await store_->RunGrouped<int64_t>(std::move(fn), order);
            if (on_answer) {
              on_answer(i, r);
            }
            answers[i] = std::move(r);
          },
          net::detached);
    }
    ioc.poll();
  }

  // A job inserting row `id`.
  static std::function<Result<int64_t>(Connection&)> InsertRow(int64_t id) {
    return [id](Connection& conn) -> Result<int64_t> {
      PL_CHECK(conn.Query(kInsert, {id, id * 10, "row " + std::to_string(id)}));
      return id;
    };
  }
  // Jobs inserting rows 1..n.
  static std::vector<std::function<Result<int64_t>(Connection&)>> InsertRows(int n) {
    std::vector<std::function<Result<int64_t>(Connection&)>> fns;
    for (int i = 1; i <= n; ++i) {
      fns.push_back(InsertRow(i));
    }
    return fns;
  }
  // Every job answered: job `failing` with `code`, every other one with success.
  static void ExpectAnswers(const std::vector<std::optional<Result<int64_t>>>& answers,
                            size_t failing, ErrorCode code) {
    for (size_t i = 0; i < answers.size(); ++i) {
      ASSERT_TRUE(answers[i].has_value()) << "job " << i << " was never answered";
      if (i == failing) {
        ASSERT_FALSE(*answers[i]) << "job " << i;
        EXPECT_EQ(answers[i]->error().code, code);
      } else {
        EXPECT_TRUE(*answers[i]) << "job " << i << " failed with the one that failed: "
                                 << answers[i]->error().message;
      }
    }
  }

  std::vector<int64_t> Ids() {
    auto rows = Query(*reader_, "SELECT id FROM t ORDER BY id");
    EXPECT_TRUE(rows) << rows.error().message;
    std::vector<int64_t> out;
    if (rows) {
      for (const auto& r : rows->rows) {
        out.push_back(Int(r[0]));
      }
    }
    return out;
  }
  std::vector<size_t> Groups() {
    std::lock_guard lock(m_);
    return groups_;
  }

  std::unique_ptr<Store> store_;
  std::unique_ptr<Store> reader_;
  std::mutex m_;
  std::vector<size_t> groups_;
  std::promise<void> started_;
  std::promise<void> release_;
  std::thread hold_thread_;
};

TEST_P(GroupCommit, JobsWaitingTogetherShareCommitsAndAreAnsweredOnceVisible) {
  constexpr int kJobs = 200;
  Hold();
  net::io_context ioc;
  auto fns = InsertRows(kJobs);
  // One job takes its time (the last of SQLite's first group, mid-group on the servers): an
  // answer given before its group's COMMIT would reach its coroutine well before the row is
  // visible.
  fns[127] = [insert = InsertRow(128)](Connection& conn) {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    return insert(conn);
  };
  std::atomic<int> unseen{0};
  std::vector<std::optional<Result<int64_t>>> answers;
  // Answered means committed: another connection sees the row at once.
  Spawn(ioc, std::move(fns), answers, [&](size_t i, const Result<int64_t>& r) {
    if (!r) {
      return;
    }
    auto row = Query(*reader_, "SELECT n FROM t WHERE id = $1", {static_cast<int64_t>(i + 1)});
    if (!row || row->rows.size() != 1) {
      ++unseen;
    }
  });
  Release();
  ioc.run();
  for (int i = 0; i < kJobs; ++i) {
    ASSERT_TRUE(answers[i].has_value()) << "job " << i << " was never answered";
    ASSERT_TRUE(*answers[i]) << "job " << i << ": " << answers[i]->error().message;
    EXPECT_EQ(**answers[i], i + 1);
  }
  EXPECT_EQ(unseen, 0) << "a job was answered before its row was committed";
  if (GetParam() == Dialect::kSqlite) {
    EXPECT_EQ(Groups(), (std::vector<size_t>{128, 72}));
  } else {  // two savepoints a job: 30 stay within PostgreSQL's 64 cached subtransactions
    EXPECT_EQ(Groups(), (std::vector<size_t>{30, 30, 30, 30, 30, 30, 20}));
  }
  EXPECT_EQ(Ids().size(), static_cast<size_t>(kJobs));
}

TEST_P(GroupCommit, AFailingJobFailsAloneAndLeavesNothingWhileTheOthersCommit) {
  Hold();
  net::io_context ioc;
  auto fns = InsertRows(10);
  // Job 5 writes a row of its own, then collides with job 2's row: all of it is undone.
  fns[4] = [](Connection& conn) -> Result<int64_t> {
    PL_CHECK(conn.Query(kInsert, {int64_t{500}, int64_t{0}, "half"}));
    PL_CHECK(conn.Query(kInsert, {int64_t{2}, int64_t{0}, "taken"}));
    return 5;
  };
  std::vector<std::optional<Result<int64_t>>> answers;
  Spawn(ioc, std::move(fns), answers);
  Release();
  ioc.run();
  ExpectAnswers(answers, 4, ErrorCode::kAlreadyExists);
  EXPECT_EQ(Ids(), (std::vector<int64_t>{1, 2, 3, 4, 6, 7, 8, 9, 10}));
  EXPECT_EQ(Groups(), (std::vector<size_t>{10}));
}

TEST_P(GroupCommit, ARetryableFailureGivesTheGroupUpAndEveryJobRunsAloneOnce) {
  Hold();
  net::io_context ioc;
  std::vector<std::atomic<int>> runs(10);
  std::vector<std::function<Result<int64_t>(Connection&)>> fns;
  for (int i = 0; i < 10; ++i) {
    fns.push_back([&runs, i](Connection& conn) -> Result<int64_t> {
      const int run = ++runs[i];
      PL_CHECK(conn.Query(kInsert, {int64_t{i + 1}, int64_t{run}, "x"}));
      if (i == 3 && run == 1) {
        Error e{ErrorCode::kUnavailable, "deadlock (test)"};
        e.retryable = true;
        return tl::unexpected(e);
      }
      return i + 1;
    });
  }
  std::vector<std::optional<Result<int64_t>>> answers;
  Spawn(ioc, std::move(fns), answers);
  Release();
  ioc.run();
  for (int i = 0; i < 10; ++i) {
    ASSERT_TRUE(answers[i].has_value());
    EXPECT_TRUE(*answers[i]) << "job " << i << ": " << answers[i]->error().message;
  }
  // Jobs 0-2 ran in the group (undone with it) and again alone; job 3 failed there and ran
  // again alone; jobs 4-9 never ran in the given-up group.
  for (int i = 0; i < 10; ++i) {
    EXPECT_EQ(runs[i], i <= 3 ? 2 : 1) << "job " << i;
  }
  EXPECT_EQ(Ids(), (std::vector<int64_t>{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}));
}

// SQLite ends the whole transaction by itself on SQLITE_FULL or an I/O error, InnoDB on a
// deadlock: the jobs after it must not then run (and commit) one by one outside any
// transaction, answered with the group's failed COMMIT. A job that ends the transaction
// itself stands in for those errors here.
TEST_P(GroupCommit, AnErrorThatEndsTheTransactionGivesTheGroupUp) {
  Hold();
  net::io_context ioc;
  auto fns = InsertRows(8);
  fns[3] = [](Connection& conn) -> Result<int64_t> {
    PL_CHECK(conn.Query(kInsert, {int64_t{4}, int64_t{0}, "undone"}));
    PL_CHECK(conn.ExecScript("ROLLBACK"));
    return Fail(ErrorCode::kUnavailable, "disk full (test)");
  };
  std::vector<std::optional<Result<int64_t>>> answers;
  Spawn(ioc, std::move(fns), answers);
  Release();
  ioc.run();
  ExpectAnswers(answers, 3, ErrorCode::kUnavailable);
  EXPECT_EQ(Ids(), (std::vector<int64_t>{1, 2, 3, 5, 6, 7, 8}));
}

// Article rows are locked in ascending id by the like flush: a group takes them in the same
// order, whatever order its jobs arrived in.
TEST_P(GroupCommit, AGroupRunsItsJobsInAscendingOrder) {
  Hold();
  net::io_context ioc;
  std::mutex m;
  std::vector<int64_t> ran;
  const std::vector<int64_t> orders = {5, 3, 9, 1, 3};
  std::vector<std::function<Result<int64_t>(Connection&)>> fns;
  for (size_t i = 0; i < orders.size(); ++i) {
    fns.push_back([&m, &ran, order = orders[i], insert = InsertRow(static_cast<int64_t>(i) + 1)](
                      Connection& conn) -> Result<int64_t> {
      {
        std::lock_guard lock(m);
        ran.push_back(order);
      }
      return insert(conn);
    });
  }
  std::vector<std::optional<Result<int64_t>>> answers;
  Spawn(ioc, std::move(fns), answers, nullptr, orders);
  Release();
  ioc.run();
  ExpectAnswers(answers, answers.size(), ErrorCode::kInternal);  // none fails
  EXPECT_EQ(ran, (std::vector<int64_t>{1, 3, 3, 5, 9}));
}

// With one pool thread, comment writes arriving during every group must not keep a plain job
// (a read, a ping, the flusher) waiting: it runs between two groups. More grouped jobs wait
// than one group takes (128 on SQLite, 30 on the servers), and a plain job beside them.
TEST_P(GroupCommit, APlainJobRunsBetweenTwoGroups) {
  const size_t per_group = GetParam() == Dialect::kSqlite ? 128 : 30;
  Hold();
  net::io_context ioc;
  std::mutex m;
  std::vector<std::string> ran;  // in the pool thread's order
  std::vector<std::function<Result<int64_t>(Connection&)>> fns;
  for (size_t i = 1; i <= per_group + 2; ++i) {
    fns.push_back([&, insert = InsertRow(static_cast<int64_t>(i))](Connection& conn) {
      {
        std::lock_guard lock(m);
        ran.emplace_back("grouped");
      }
      return insert(conn);
    });
  }
  std::vector<std::optional<Result<int64_t>>> answers;
  Spawn(ioc, std::move(fns), answers);
  std::optional<Result<int>> plain;
  net::co_spawn(
      ioc,
      [&]() -> Awaitable<void> {
        std::function<Result<int>(Connection&)> job = [&](Connection&) -> Result<int> {
          std::lock_guard lock(m);
          ran.emplace_back("plain");
          return 1;
        };
        plain = co_await store_->Run<int>(std::move(job));
      },
      net::detached);
  ioc.poll();
  Release();
  ioc.run();
  ASSERT_TRUE(plain.has_value() && *plain);
  ExpectAnswers(answers, answers.size(), ErrorCode::kInternal);  // none fails
  std::vector<std::string> expected(per_group, "grouped");
  expected.emplace_back("plain");
  expected.emplace_back("grouped");
  expected.emplace_back("grouped");
  EXPECT_EQ(ran, expected);
  EXPECT_EQ(Groups(), (std::vector<size_t>{per_group, 2}));
}

TEST_P(GroupCommit, AfterCloseAGroupedJobIsUnavailable) {
  store_->Close();
  auto r = RunSync(store_->RunGrouped<int64_t>(InsertRow(1)));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ErrorCode::kUnavailable);
}

INSTANTIATE_TEST_SUITE_P(Dialects, GroupCommit, AllDialects(), DialectName);

}  // namespace
}  // namespace plaudit::sql::test
