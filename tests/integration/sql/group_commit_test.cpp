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

#include "sql/cache_shards.hpp"
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

// A transaction on a store of its own (another connection) that runs `first`, says so, and on
// its first run waits to be let go before `then`; it is let go when it goes out of scope, so a
// test that fails midway never waits for it forever.
class HeldTransaction {
 public:
  HeldTransaction(Store& store, std::string first, std::function<Status(Connection&)> then)
      : go_on_(go_.get_future()) {
    done_ = std::async(std::launch::async,
                       [this, &store, first = std::move(first), then = std::move(then)] {
                         return RunSync(store.Run<int64_t>([&](Connection& c) -> Result<int64_t> {
                           const int run = ++runs_;
                           PL_CHECK(c.Transaction([&](Connection& tx) -> Status {
                             PL_CHECK(tx.Query(first));
                             if (run == 1) {
                               holds_.set_value();
                               go_on_.wait();
                             }
                             return then(tx);
                           }));
                           return run;
                         }));
                       });
  }
  ~HeldTransaction() {
    LetGo();
    if (done_.valid()) {
      done_.wait();
    }
  }
  HeldTransaction(const HeldTransaction&) = delete;
  HeldTransaction& operator=(const HeldTransaction&) = delete;

  // Whether it holds what `first` took (within 30 s).
  bool Holds() {
    return holds_.get_future().wait_for(std::chrono::seconds(30)) == std::future_status::ready;
  }
  void LetGo() {
    if (!let_go_) {
      let_go_ = true;
      go_.set_value();
    }
  }
  // Its outcome, once it has ended; and how often it ran (a deadlock's victim runs again).
  Result<int64_t> Outcome() { return done_.get(); }
  int runs() const { return runs_; }

 private:
  std::promise<void> holds_;
  std::promise<void> go_;
  std::shared_future<void> go_on_;
  bool let_go_ = false;
  std::atomic<int> runs_{0};
  std::future<Result<int64_t>> done_;
};

// The cache_shards table of migration 014, for the tests of shard raises.
void CreateShards(Store& store) {
  auto created =
      Query(store, "CREATE TABLE cache_shards (shard INTEGER PRIMARY KEY, seq BIGINT NOT NULL)");
  ASSERT_TRUE(created) << created.error().message;
}

std::vector<std::pair<int64_t, int64_t>> Shards(Store& store) {
  auto rows = Query(store, "SELECT shard, seq FROM cache_shards ORDER BY shard");
  EXPECT_TRUE(rows) << rows.error().message;
  std::vector<std::pair<int64_t, int64_t>> out;
  if (rows) {
    for (const auto& r : rows->rows) {
      out.emplace_back(Int(r[0]), Int(r[1]));
    }
  }
  return out;
}

// A job's RaiseCacheShard is held back and made for the whole group after its last job
// (sql::ShardRaises): a later job of the group does not see it yet, the highest seq of each
// shard lands, and a job whose savepoint rolled back raises nothing.
TEST_P(GroupCommit, AGroupRaisesItsJobsShardsAfterTheLastJobAndNoneForAFailedOne) {
  CreateShards(*store_);
  Hold();
  net::io_context ioc;
  std::vector<std::function<Result<int64_t>(Connection&)>> fns;
  fns.push_back([](Connection& conn) -> Result<int64_t> {
    PL_CHECK(RaiseCacheShard(conn, CacheStamp{2, 10, 1}));
    PL_CHECK(conn.Query(kInsert, {int64_t{1}, int64_t{0}, "a"}));
    return 1;
  });
  fns.push_back([](Connection& conn) -> Result<int64_t> {
    PL_CHECK(RaiseCacheShard(conn, CacheStamp{1, 50, 2}));
    PL_CHECK(conn.Query(kInsert, {int64_t{2}, int64_t{0}, "b"}));
    return Fail(ErrorCode::kInvalidArgument, "refused (test)");
  });
  fns.push_back([](Connection& conn) -> Result<int64_t> {
    PL_TRY(auto seen, conn.QueryInt("SELECT COUNT(*) FROM cache_shards"));
    PL_CHECK(RaiseCacheShard(conn, CacheStamp{2, 7, 3}));
    PL_CHECK(RaiseCacheShard(conn, CacheStamp{3, 4, 3}));
    PL_CHECK(conn.Query(kInsert, {int64_t{3}, int64_t{0}, "c"}));
    return seen.value_or(-1);
  });
  std::vector<std::optional<Result<int64_t>>> answers;
  Spawn(ioc, std::move(fns), answers, nullptr, {1, 2, 3});
  Release();
  ioc.run();
  ExpectAnswers(answers, 1, ErrorCode::kInvalidArgument);
  ASSERT_TRUE(answers[2].has_value() && *answers[2]);
  EXPECT_EQ(**answers[2], 0) << "a shard was raised before the group's last job";
  EXPECT_EQ(Shards(*reader_), (std::vector<std::pair<int64_t, int64_t>>{{2, 10}, {3, 4}}));
  EXPECT_EQ(Ids(), (std::vector<int64_t>{1, 3}));
  EXPECT_EQ(Groups(), (std::vector<size_t>{2 + 1}));
}

// The shards' raise after the last job fails (here a CHECK refuses job 1's seq): the group is
// given up and every job runs again alone, also the last one that had failed by itself in the
// group (on writes now undone), so each is answered as it is alone.
TEST_P(GroupCommit, AShardRaiseThatFailsAfterTheLastJobGivesTheGroupUp) {
  auto created = Query(*store_,
                       "CREATE TABLE cache_shards (shard INTEGER PRIMARY KEY, seq BIGINT NOT NULL "
                       "CHECK (seq < 100))");
  ASSERT_TRUE(created) << created.error().message;
  Hold();
  net::io_context ioc;
  std::vector<std::atomic<int>> runs(3);
  std::vector<std::function<Result<int64_t>(Connection&)>> fns;
  for (int i = 0; i < 3; ++i) {
    // As the comment writes: one transaction of their own (a savepoint in the group).
    fns.push_back([&runs, i](Connection& conn) -> Result<int64_t> {
      const int run = ++runs[i];
      PL_CHECK(conn.Transaction([&](Connection& tx) -> Status {
        PL_CHECK(tx.Query(kInsert, {int64_t{i + 1}, int64_t{run}, "x"}));
        PL_CHECK(RaiseCacheShard(tx, CacheStamp{i + 1, i == 0 ? 500 : 10, i + 1}));
        if (i == 2 && run == 1) {
          return Fail(ErrorCode::kNotFound, "gone in the group (test)");
        }
        return Status{};
      }));
      return i + 1;
    });
  }
  std::vector<std::optional<Result<int64_t>>> answers;
  Spawn(ioc, std::move(fns), answers, nullptr, {1, 2, 3});
  Release();
  ioc.run();
  ExpectAnswers(answers, 0, ErrorCode::kInvalidArgument);  // job 1's own raise, alone
  EXPECT_EQ(runs[0], 2);
  EXPECT_EQ(runs[1], 2);
  EXPECT_EQ(runs[2], 2) << "the last job kept the error of a run the group undid";
  EXPECT_EQ(Ids(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(Shards(*reader_), (std::vector<std::pair<int64_t, int64_t>>{{2, 10}, {3, 10}}));
}

// Rows standing for two articles (5 and 9) of two shards. A transaction that writes several
// articles (an import) holds article 9 and then raises shard 2; a group writes article 5 (of
// shard 2) and then article 9. Raised after each job, the group would hold shard 2 while it
// waited for article 9, and the import would wait for shard 2: a deadlock, one side undone
// and run again. Held to the end, the group holds no shard while it waits: each runs once.
TEST_P(GroupCommit, AGroupAndAnImportOfTheSameArticlesNeverWaitOnEachOtherInACircle) {
  if (GetParam() == Dialect::kSqlite) {
    GTEST_SKIP() << "one writer: SQLite cannot deadlock";
  }
  CreateShards(*store_);
  ASSERT_TRUE(Query(*store_, "INSERT INTO t (id, n) VALUES (5, 0), (9, 0)"));
  auto other = OpenStore(/*pool_size=*/1);
  ASSERT_TRUE(other);
  HeldTransaction import(*other, "UPDATE t SET n = n + 1 WHERE id = 9",
                         [](Connection& tx) { return RaiseCacheShard(tx, CacheStamp{2, 20, 9}); });
  ASSERT_TRUE(import.Holds());
  Hold();
  net::io_context ioc;
  std::vector<std::atomic<int>> runs(2);
  std::promise<void> nine_wanted;
  std::vector<std::function<Result<int64_t>(Connection&)>> fns;
  for (const int64_t article : {5, 9}) {
    fns.push_back([&runs, &nine_wanted, article](Connection& conn) -> Result<int64_t> {
      if (++runs[article == 5 ? 0 : 1] == 1 && article == 9) {
        nine_wanted.set_value();
      }
      PL_CHECK(conn.Query("UPDATE t SET n = n + 1 WHERE id = $1", {article}));
      PL_CHECK(RaiseCacheShard(conn, CacheStamp{article == 5 ? 2 : 1, 10 + article, article}));
      return article;
    });
  }
  std::vector<std::optional<Result<int64_t>>> answers;
  Spawn(ioc, std::move(fns), answers, nullptr, {5, 9});
  Release();
  // The group's second job is about to want article 9: its first has run (and, raising its
  // shard at once, would hold shard 2). The import may go on.
  const bool reached =
      nine_wanted.get_future().wait_for(std::chrono::seconds(30)) == std::future_status::ready;
  import.LetGo();
  ASSERT_TRUE(reached) << "the group never came to article 9";
  ioc.run();
  auto imported = import.Outcome();
  ASSERT_TRUE(imported) << imported.error().message;
  EXPECT_EQ(import.runs(), 1) << "the import was undone as a deadlock's victim";
  ExpectAnswers(answers, answers.size(), ErrorCode::kInternal);  // none fails
  EXPECT_EQ(runs[0], 1) << "the group was given up (a deadlock) and its jobs ran alone";
  EXPECT_EQ(runs[1], 1);
  EXPECT_EQ(Shards(*reader_), (std::vector<std::pair<int64_t, int64_t>>{{1, 19}, {2, 20}}));
  auto rows = Query(*reader_, "SELECT n FROM t ORDER BY id");
  ASSERT_TRUE(rows) << rows.error().message;
  EXPECT_EQ(Int(rows->rows.at(0).at(0)), 1);
  EXPECT_EQ(Int(rows->rows.at(1).at(0)), 2);
}

// A flush-like transaction holds article 9 and then wants a comment of article 5; a group
// writes a comment of article 5 (a reply count: its row) and then article 9. A group that took
// its rows job by job would hold the comment while it waited for 9: a deadlock, one side undone
// and run again. Locking its articles first (Store::SetGroupLocks, LockArticleRows), it waits
// for 9 holding only article 5, and each side runs once.
TEST_P(GroupCommit, AGroupLocksAllItsArticlesBeforeAnyRowUnderThem) {
  if (GetParam() == Dialect::kSqlite) {
    GTEST_SKIP() << "one writer: SQLite cannot deadlock";
  }
  ASSERT_TRUE(Query(*store_, "CREATE TABLE articles (id INTEGER PRIMARY KEY, n BIGINT)"));
  ASSERT_TRUE(Query(*store_, "INSERT INTO articles (id, n) VALUES (5, 0), (9, 0)"));
  ASSERT_TRUE(Query(*store_, "INSERT INTO t (id, n) VALUES (50, 0)"));  // a comment of 5
  store_->SetGroupLocks(LockArticleRows);
  auto other = OpenStore(/*pool_size=*/1);
  ASSERT_TRUE(other);
  HeldTransaction flush(*other, "UPDATE articles SET n = n + 1 WHERE id = 9",
                        [](Connection& tx) -> Status {
                          PL_CHECK(tx.Query("UPDATE t SET n = n + 1 WHERE id = 50"));
                          return Status{};
                        });
  ASSERT_TRUE(flush.Holds());
  Hold();
  net::io_context ioc;
  std::vector<std::atomic<int>> runs(2);
  std::promise<void> nine_wanted;
  std::vector<std::function<Result<int64_t>(Connection&)>> fns;
  fns.push_back([&runs](Connection& conn) -> Result<int64_t> {
    ++runs[0];
    PL_CHECK(conn.Query("UPDATE articles SET n = n + 1 WHERE id = 5"));
    PL_CHECK(conn.Query("UPDATE t SET n = n + 1 WHERE id = 50"));
    return 5;
  });
  fns.push_back([&runs, &nine_wanted](Connection& conn) -> Result<int64_t> {
    if (++runs[1] == 1) {
      nine_wanted.set_value();
    }
    PL_CHECK(conn.Query("UPDATE articles SET n = n + 1 WHERE id = 9"));
    return 9;
  });
  std::vector<std::optional<Result<int64_t>>> answers;
  Spawn(ioc, std::move(fns), answers, nullptr, {5, 9});
  Release();
  // Taking its rows job by job, the group comes to article 9 holding comment 50 at once;
  // locking its articles first, it waits in its locks and never comes there before the flush
  // is let go (2 s, then the flush goes on either way).
  (void)nine_wanted.get_future().wait_for(std::chrono::seconds(2));
  flush.LetGo();
  ioc.run();
  auto flushed = flush.Outcome();
  ASSERT_TRUE(flushed) << flushed.error().message;
  EXPECT_EQ(flush.runs(), 1) << "the flush was undone as a deadlock's victim";
  ExpectAnswers(answers, answers.size(), ErrorCode::kInternal);  // none fails
  EXPECT_EQ(runs[0], 1) << "the group was given up (a deadlock) and its jobs ran alone";
  EXPECT_EQ(runs[1], 1);
  auto rows = Query(*reader_, "SELECT n FROM articles ORDER BY id");
  ASSERT_TRUE(rows) << rows.error().message;
  EXPECT_EQ(Int(rows->rows.at(0).at(0)), 1);
  EXPECT_EQ(Int(rows->rows.at(1).at(0)), 2);
  auto comment = Query(*reader_, "SELECT n FROM t WHERE id = 50");
  ASSERT_TRUE(comment) << comment.error().message;
  EXPECT_EQ(Int(comment->rows.at(0).at(0)), 2);
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
