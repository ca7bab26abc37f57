// SQLite's WAL checkpoints run on the store's own thread, never in a commit (issue 47): the
// pool connections have SQLite's autocheckpoint replaced by a hook, and the thread copies the
// WAL into the database file once it passes SqliteCheckpointer::kCheckpointPages.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <latch>
#include <thread>
#include <vector>

#include "sql/connection_impl.hpp"
#include "sql_test_util.hpp"

namespace plaudit::sql::test {
namespace {

class SqliteCheckpoints : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = dir_.path() / "plaudit.db";
    auto store = Store::Open(
        {.url = ParseDatabaseUrl("sqlite://" + path_.string()).value(), .pool_size = 2});
    ASSERT_TRUE(store) << store.error().message;
    store_ = std::move(*store);
    ASSERT_TRUE(Query(*store_, "CREATE TABLE blobs (id INTEGER PRIMARY KEY, b TEXT)"));
  }

  // `rows` rows of ~4 KB (one page each, about), `per_commit` to a transaction.
  void Write(int first, int rows, int per_commit) {
    const std::string text(4000, 'x');
    for (int at = first; at < first + rows; at += per_commit) {
      Status st = RunSync(store_->Run<void>([at, per_commit, &text](Connection& conn) -> Status {
        return conn.Transaction([&](Connection& tx) -> Status {
          for (int i = at; i < at + per_commit; ++i) {
            PL_CHECK(tx.Query("INSERT INTO blobs (id, b) VALUES ($1, $2)", {int64_t{i}, text}));
          }
          return {};
        });
      }));
      ASSERT_TRUE(st) << st.error().message;
    }
  }

  plaudit::testing::TempDir dir_{"plaudit-checkpoint"};
  std::filesystem::path path_;
  std::unique_ptr<Store> store_;
};

// `pragma` on both pool connections at once (each call waits for the other to start, so they
// cannot share one), as integers.
std::vector<int64_t> OnBothConnections(Store& store, const std::string& pragma) {
  std::latch both(2);
  std::vector<int64_t> out(2, -1);
  std::vector<std::thread> callers;
  for (int i = 0; i < 2; ++i) {
    callers.emplace_back([&, i] {
      std::function<Result<int64_t>(Connection&)> job = [&](Connection& conn) -> Result<int64_t> {
        both.arrive_and_wait();
        PL_TRY(auto n, conn.QueryInt(pragma));
        return n.value_or(-1);
      };
      auto n = RunSync(store.Run<int64_t>(std::move(job)));
      EXPECT_TRUE(n) << n.error().message;
      out[i] = n.value_or(-1);
    });
  }
  for (auto& t : callers) {
    t.join();
  }
  return out;
}

TEST_F(SqliteCheckpoints, PoolConnectionsNeverCheckpointInACommit) {
  // SQLite answers 0 once a WAL hook replaced its autocheckpoint (1000 otherwise).
  EXPECT_EQ(OnBothConnections(*store_, "PRAGMA wal_autocheckpoint"), (std::vector<int64_t>{0, 0}));
}

// Group commit and the checkpoint thread change when syncs happen, never whether: a commit
// is answered once its WAL frames are synced (FULL = 2), power loss included.
TEST_F(SqliteCheckpoints, CommitsStaySynchronousFull) {
  EXPECT_EQ(OnBothConnections(*store_, "PRAGMA synchronous"), (std::vector<int64_t>{2, 2}));
}

TEST_F(SqliteCheckpoints, TheThreadCopiesTheWalIntoTheDatabaseOnceItPassesItsThreshold) {
  const auto before = std::filesystem::file_size(path_);
  // Past kCheckpointPages (1,000 pages of 4 KB) in commits of 50 rows.
  Write(1, 1600, 50);
  // Nothing here checkpoints: only the store's thread can have grown the database file.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (std::filesystem::file_size(path_) < before + (3u << 20) &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_GE(std::filesystem::file_size(path_), before + (3u << 20))
      << "the WAL passed " << SqliteCheckpointer::kCheckpointPages
      << " pages and no checkpoint copied it into the database file";
  // A checkpoint asked for now finds the WAL copied (no reader holds it back).
  auto state = store_->Checkpoint();
  ASSERT_TRUE(state) << state.error().message;
  EXPECT_GT(state->frames, 0);
  EXPECT_EQ(state->checkpointed, state->frames);
  auto count = RunSync(store_->QueryInt("SELECT COUNT(*) FROM blobs"));
  ASSERT_TRUE(count);
  EXPECT_EQ(count->value_or(0), 1600);
}

TEST_F(SqliteCheckpoints, AnAskedCheckpointCopiesWhatWasCommitted) {
  Write(1, 200, 20);  // under the threshold: the thread has not run
  auto state = store_->Checkpoint();
  ASSERT_TRUE(state) << state.error().message;
  EXPECT_GT(state->frames, 150);
  EXPECT_EQ(state->checkpointed, state->frames);
}

}  // namespace
}  // namespace plaudit::sql::test
