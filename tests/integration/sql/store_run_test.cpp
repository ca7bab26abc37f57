// Store::Run from coroutines: results come back on the caller's io_context thread, under
// load, after Close(), and when fn throws.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "sql/connection_impl.hpp"
#include "sql_test_util.hpp"

namespace plaudit::sql::test {
namespace {

using namespace std::string_literals;

class StoreRun : public SqlTest {};

TEST_P(StoreRun, ManyConcurrentCoroutinesCompleteOnTheirOwnIoContextThread) {
  auto store = OpenWithTable(/*pool_size=*/4);
  ASSERT_TRUE(store);
  constexpr int kCoroutines = 200;
  net::io_context ioc;
  std::atomic<int> ok{0};
  std::atomic<int> wrong_thread{0};
  std::atomic<int> failed{0};
  std::thread::id io_thread;
  for (int i = 0; i < kCoroutines; ++i) {
    net::co_spawn(
        ioc,
        [&, i]() -> Awaitable<void> {
          const int64_t id = i + 1;
          auto result = co_await store->Run<int64_t>([id](Connection& conn) -> Result<int64_t> {
            auto inserted = conn.Query("INSERT INTO t (id, n, s) VALUES ($1, $2, $3)",
                                       {id, id * 1000, "row " + std::to_string(id)});
            if (!inserted) {
              return tl::unexpected(inserted.error());
            }
            auto rows = conn.Query("SELECT n FROM t WHERE id = $1", {id});
            if (!rows) {
              return tl::unexpected(rows.error());
            }
            return Int(rows->rows.at(0).at(0));
          });
          if (std::this_thread::get_id() != io_thread) {
            ++wrong_thread;
          }
          if (result && *result == id * 1000) {
            ++ok;
          } else {
            ++failed;
            ADD_FAILURE() << (result ? "wrong value" : result.error().message);
          }
        },
        net::detached);
  }
  // Run the loop on a thread of its own, so "resumed on the io thread" cannot be confused
  // with "resumed on the test thread".
  std::thread runner([&] {
    io_thread = std::this_thread::get_id();
    ioc.run();
  });
  runner.join();
  EXPECT_EQ(ok, kCoroutines);
  EXPECT_EQ(failed, 0);
  EXPECT_EQ(wrong_thread, 0);
  auto count = Query(*store, "SELECT COUNT(*) FROM t");
  ASSERT_TRUE(count);
  EXPECT_EQ(Int(count->rows[0][0]), kCoroutines);
}

TEST_P(StoreRun, TwoIoContextsShareOneStore) {
  auto store = OpenStore(/*pool_size=*/2);
  ASSERT_TRUE(store);
  std::atomic<int> wrong_thread{0};
  std::atomic<int> ok{0};
  auto work = [&] {
    net::io_context ioc;
    const auto me = std::this_thread::get_id();
    for (int i = 0; i < 50; ++i) {
      net::co_spawn(
          ioc,
          [&, i]() -> Awaitable<void> {
            auto r = co_await store->Run<int64_t>([i](Connection& conn) -> Result<int64_t> {
              auto rows = conn.Query("SELECT $1 + 0", {int64_t{i}});
              if (!rows) {
                return tl::unexpected(rows.error());
              }
              return Int(rows->rows[0][0]);
            });
            if (std::this_thread::get_id() != me) {
              ++wrong_thread;
            }
            if (r && *r == i) {
              ++ok;
            }
          },
          net::detached);
    }
    ioc.run();
  };
  std::thread a(work), b(work);
  a.join();
  b.join();
  EXPECT_EQ(ok, 100);
  EXPECT_EQ(wrong_thread, 0);
}

// Regression: two pool threads opening their first connections to a brand-new SQLite file
// raced on switching it to WAL, and one of them gave up at once with "database is locked".
TEST(SqliteOpen, ManyPoolThreadsOpeningAFreshFileAllSucceed) {
  for (int round = 0; round < 10; ++round) {
    plaudit::testing::TempDir dir{"plaudit-sqlite-race"};
    auto store = Store::Open(
        {.url = DatabaseUrl{Dialect::kSqlite, (dir.path() / "fresh.db").string()}, .pool_size = 8});
    ASSERT_TRUE(store);
    net::io_context ioc;
    std::atomic<int> ok{0};
    for (int i = 0; i < 64; ++i) {
      net::co_spawn(
          ioc,
          [&, i]() -> Awaitable<void> {
            std::function<Result<int64_t>(Connection&)> job =
                [i](Connection& conn) -> Result<int64_t> {
              auto rows = conn.Query("SELECT $1 + 0", {int64_t{i}});
              if (!rows) {
                return tl::unexpected(rows.error());
              }
              return Int(rows->rows[0][0]);
            };
            auto r = co_await (*store)->Run<int64_t>(std::move(job));
            if (r && *r == i) {
              ++ok;
            }
          },
          net::detached);
    }
    ioc.run();
    EXPECT_EQ(ok, 64) << "round " << round;
  }
}

// Several instances may share one SQLite file on one host (WAL, a 5 s busy timeout, BEGIN
// IMMEDIATE); across hosts WAL's shared memory cannot work, so a file on a network file
// system is refused. This box has none to mount, so the refusal's classifier is checked on
// the statfs(2) magic numbers, and a local file must not be taken for one.
TEST(SqliteOpen, ADatabaseOnANetworkFileSystemIsRefusedAndALocalOneIsNot) {
  EXPECT_EQ(NetworkFilesystemName(0x6969), "NFS");
  EXPECT_EQ(NetworkFilesystemName(0xff534d42), "CIFS");
  EXPECT_EQ(NetworkFilesystemName(static_cast<long>(0xfe534d42)), "SMB2");
  EXPECT_EQ(NetworkFilesystemName(0x65735546), "FUSE");
  EXPECT_EQ(NetworkFilesystemName(0xef53), std::nullopt);      // ext4
  EXPECT_EQ(NetworkFilesystemName(0x01021994), std::nullopt);  // tmpfs
  EXPECT_EQ(NetworkFilesystemName(0x794c7630), std::nullopt);  // overlayfs
  plaudit::testing::TempDir dir{"plaudit-sqlite-local"};
  auto local = OpenSqlite((dir.path() / "local.db").string());
  EXPECT_TRUE(local) << local.error().message;
}

TEST_P(StoreRun, ExceptionFromFnBecomesInternal) {
  auto store = OpenStore();
  ASSERT_TRUE(store);
  auto result =
      RunSync(store->Run<int>([](Connection&) -> Result<int> { throw std::logic_error("bug"); }));
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().code, ErrorCode::kInternal);
  // The pool survives.
  auto after = Query(*store, "SELECT 1");
  EXPECT_TRUE(after);
}

TEST_P(StoreRun, VoidResultsWork) {
  auto store = OpenStore();
  ASSERT_TRUE(store);
  Status ok = RunSync(store->Run<void>([](Connection& conn) -> Status {
    return conn.ExecScript("CREATE TABLE a (x INTEGER); CREATE TABLE b (y INTEGER);");
  }));
  EXPECT_TRUE(ok) << ok.error().message;
  EXPECT_TRUE(Query(*store, "SELECT x FROM a"));
  EXPECT_TRUE(Query(*store, "SELECT y FROM b"));
}

TEST_P(StoreRun, CloseCompletesQueuedWorkThenRefusesNewWork) {
  auto store = OpenStore(/*pool_size=*/1);
  ASSERT_TRUE(store);
  net::io_context ioc;
  std::atomic<int> ok{0};
  for (int i = 0; i < 20; ++i) {
    net::co_spawn(
        ioc,
        [&]() -> Awaitable<void> {
          auto r = co_await store->Run<int64_t>([](Connection& conn) -> Result<int64_t> {
            auto rows = conn.Query("SELECT 1");
            if (!rows) {
              return tl::unexpected(rows.error());
            }
            return Int(rows->rows[0][0]);
          });
          if (r && *r == 1) {
            ++ok;
          }
        },
        net::detached);
  }
  ioc.poll();  // every coroutine has submitted its job
  store->Close();
  ioc.restart();
  ioc.run();
  EXPECT_EQ(ok, 20);

  auto after = Query(*store, "SELECT 1");
  ASSERT_FALSE(after);
  EXPECT_EQ(after.error().code, ErrorCode::kUnavailable);
  store->Close();  // idempotent
}

TEST_P(StoreRun, PingSucceeds) {
  auto store = OpenStore();
  ASSERT_TRUE(store);
  Status ping = RunSync(store->Ping());
  EXPECT_TRUE(ping) << ping.error().message;
}

INSTANTIATE_TEST_SUITE_P(Dialects, StoreRun, AllDialects(), DialectName);

}  // namespace
}  // namespace plaudit::sql::test
