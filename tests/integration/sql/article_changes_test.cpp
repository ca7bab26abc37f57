// The article change outbox (migration 009, sql/article_changes.hpp) on SQLite and
// PostgreSQL: each change is recorded in its article's transaction with the op the committed
// rows decide, ids become visible in id order even under concurrent transactions, and
// retention keeps the newest rows.
#include "sql/article_changes.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <string>
#include <thread>
#include <vector>

#include "sql/articles.hpp"
#include "sql_test_util.hpp"

namespace plaudit::sql::test {
namespace {

using namespace std::chrono_literals;

class ArticleChanges : public MigratedStoreTest {
 protected:
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(MigratedStoreTest::SetUp());
    auto user = Query(*store_,
                      "INSERT INTO users (id, username, username_key, display_name, "
                      "password_hash, role, created_at, updated_at) "
                      "VALUES (9001, 'w', 'w', 'w', 'x', 'author', 0, 0)");
    ASSERT_TRUE(user) << user.error().message;
  }

  static ArticleRow Article(int64_t id, std::string status, int64_t at_ms) {
    ArticleRow a;
    a.id = id;
    a.kind = model::ArticleKind::kArticle;
    a.author_id = 9001;  // ids below are the migrations' (017: the page author)
    a.title = "t" + std::to_string(id);
    a.summary = "s";
    a.content = "c";
    a.status = *model::ParseStatus(status);
    a.created_at_ms = a.updated_at_ms = at_ms;
    return a;
  }

  std::vector<ChangeRow> All(Store& store, int64_t after = 0) {
    ChangeTable changes(store);
    auto rows = RunSync(changes.After(after, 1000));
    EXPECT_TRUE(rows) << rows.error().message;
    return rows ? *rows : std::vector<ChangeRow>{};
  }

  static std::vector<std::string> Ops(const std::vector<ChangeRow>& rows) {
    std::vector<std::string> ops;
    for (const auto& r : rows) {
      ops.push_back(r.op);
    }
    return ops;
  }
};

TEST_P(ArticleChanges, EachWriteRecordsTheOpOfTheCommittedRowsInItsTransaction) {
  ArticleTable table(*store_);
  ASSERT_TRUE(RunSync(table.Insert(Article(7, "draft", 1000))));
  const std::vector<std::pair<std::string, int64_t>> updates{
      {"draft", 2000}, {"published", 3000}, {"published", 4000}, {"draft", 5000}};
  for (const auto& [status, at] : updates) {
    auto r = RunSync(table.Update(Article(7, status, at)));
    ASSERT_TRUE(r && *r) << status;
  }
  auto deleted = RunSync(table.Delete(7, 6000));
  ASSERT_TRUE(deleted && *deleted);
  // Writes that change nothing record nothing: a missing row, a taken id.
  auto missing = RunSync(table.Update(Article(8, "published", 7000)));
  ASSERT_TRUE(missing);
  EXPECT_FALSE(*missing);
  auto again = RunSync(table.Delete(7, 7000));
  ASSERT_TRUE(again);
  EXPECT_FALSE(*again);
  ASSERT_TRUE(RunSync(table.Insert(Article(9, "published", 8000))));
  auto taken = RunSync(table.Insert(Article(9, "draft", 9000)));
  ASSERT_FALSE(taken);
  EXPECT_EQ(taken.error().code, ErrorCode::kAlreadyExists);

  auto rows = All(*store_);
  EXPECT_EQ(Ops(rows), (std::vector<std::string>{"create", "update", "publish", "update",
                                                 "unpublish", "delete", "create"}));
  std::vector<int64_t> ats;
  for (size_t i = 0; i < rows.size(); ++i) {
    EXPECT_EQ(rows[i].id, static_cast<int64_t>(i) + 1);  // gapless: nothing rolled back left one
    ats.push_back(rows[i].at_ms);
  }
  EXPECT_EQ(ats, (std::vector<int64_t>{1000, 2000, 3000, 4000, 5000, 6000, 8000}));
  EXPECT_EQ(rows[0].article_id, 7);
  EXPECT_EQ(rows[6].article_id, 9);

  ChangeTable changes(*store_);
  auto from = RunSync(changes.FromTime(3500, 2));
  ASSERT_TRUE(from);
  ASSERT_EQ(from->size(), 2u);
  EXPECT_EQ((*from)[0].id, 4);
  EXPECT_EQ((*from)[1].id, 5);
  auto none = RunSync(changes.FromTime(8001, 10));
  ASSERT_TRUE(none);
  EXPECT_TRUE(none->empty());
  auto page = RunSync(changes.After(5, 10));
  ASSERT_TRUE(page);
  ASSERT_EQ(page->size(), 2u);
  EXPECT_EQ((*page)[0].id, 6);
}

// An update's op follows the row it replaces as committed, also when another transaction
// changed the status meanwhile: here A publishes the draft and holds its row; B, an update
// that also sets "published", must wait for A and then record "update", not "publish".
TEST_P(ArticleChanges, AnUpdateRacingAnotherReadsTheCommittedStatus) {
  ArticleTable table(*store_);
  ASSERT_TRUE(RunSync(table.Insert(Article(7, "draft", 1000))));
  auto probe = OpenStore(1);
  ASSERT_TRUE(probe);
  std::promise<void> a_wrote, a_may_commit;
  auto a_may_commit_f = a_may_commit.get_future().share();
  auto a = std::async(std::launch::async, [&]() -> Result<bool> {
    std::function<Result<bool>(Connection&)> job = [&](Connection& c) -> Result<bool> {
      auto st = c.Transaction([&](Connection& tx) -> Status {
        auto r = tx.Query("UPDATE articles SET status = 'published' WHERE id = 7");
        if (!r) {
          return tl::unexpected(r.error());
        }
        a_wrote.set_value();
        a_may_commit_f.wait();
        return {};
      });
      if (!st) {
        return tl::unexpected(st.error());
      }
      return true;
    };
    return RunSync(store_->Run<bool>(std::move(job)));
  });
  a_wrote.get_future().wait();
  auto b = std::async(std::launch::async,
                      [&] { return RunSync(table.Update(Article(7, "published", 2000))); });
  ASSERT_NO_FATAL_FAILURE(ExpectWaitsForLock(*probe, b));
  a_may_commit.set_value();
  ASSERT_TRUE(a.get());
  auto updated = b.get();
  ASSERT_TRUE(updated && *updated);
  EXPECT_EQ(Ops(All(*store_)), (std::vector<std::string>{"create", "update"}));
}

// A transaction that took id n holds the counter row until it ends, so one taking n+1 cannot
// commit first: a reader never sees n+1 without n. (With a sequence, B would commit id 2
// while A still held 1, and a reader paging by id would move past 1 for good.)
TEST_P(ArticleChanges, IdsCommitInOrderUnderConcurrentTransactions) {
  auto reader_store = OpenStore(1);
  ASSERT_TRUE(reader_store);
  std::promise<void> a_has_id, a_may_commit;
  auto a_may_commit_f = a_may_commit.get_future().share();
  auto a = std::async(std::launch::async, [&]() -> Result<int64_t> {
    std::function<Result<int64_t>(Connection&)> job = [&](Connection& c) -> Result<int64_t> {
      int64_t id = 0;
      auto st = c.Transaction([&](Connection& tx) -> Status {
        auto r = AppendChange(tx, 1, "create", 1000, {});
        if (!r) {
          return tl::unexpected(r.error());
        }
        id = *r;
        a_has_id.set_value();
        a_may_commit_f.wait();
        return {};
      });
      if (!st) {
        return tl::unexpected(st.error());
      }
      return id;
    };
    return RunSync(store_->Run<int64_t>(std::move(job)));
  });
  a_has_id.get_future().wait();
  auto b = std::async(std::launch::async, [&]() -> Result<int64_t> {
    std::function<Result<int64_t>(Connection&)> job = [](Connection& c) -> Result<int64_t> {
      int64_t id = 0;
      auto st = c.Transaction([&](Connection& tx) -> Status {
        auto r = AppendChange(tx, 2, "create", 2000, {});
        if (!r) {
          return tl::unexpected(r.error());
        }
        id = *r;
        return {};
      });
      if (!st) {
        return tl::unexpected(st.error());
      }
      return id;
    };
    return RunSync(store_->Run<int64_t>(std::move(job)));
  });
  // B waits for A's lock on the counter row (PostgreSQL) or the database (SQLite).
  ASSERT_NO_FATAL_FAILURE(ExpectWaitsForLock(*reader_store, b));
  EXPECT_TRUE(All(*reader_store).empty()) << "a change became visible before A committed";
  a_may_commit.set_value();
  auto id_a = a.get();
  auto id_b = b.get();
  ASSERT_TRUE(id_a) << id_a.error().message;
  ASSERT_TRUE(id_b) << id_b.error().message;
  EXPECT_EQ(*id_b, *id_a + 1);
  auto rows = All(*reader_store);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].article_id, 1);
  EXPECT_EQ(rows[1].article_id, 2);
}

// Many writers at once: every change gets its own id, ids have no gaps, and a reader paging
// concurrently sees each change exactly once.
TEST_P(ArticleChanges, ConcurrentWritersAndAPagingReaderSeeEveryChangeOnce) {
  auto reader_store = OpenStore(1);
  ASSERT_TRUE(reader_store);
  constexpr int kThreads = 4;
  constexpr int kEach = 25;
  std::atomic<bool> writing{true};
  std::vector<ChangeRow> seen;
  std::thread reader([&] {
    ChangeTable changes(*reader_store);
    int64_t after = 0;
    auto poll = [&] {
      auto page = RunSync(changes.After(after, 7));
      EXPECT_TRUE(page) << page.error().message;
      if (!page || page->empty()) {
        return false;
      }
      after = page->back().id;
      seen.insert(seen.end(), page->begin(), page->end());
      return true;
    };
    while (writing.load()) {
      poll();
    }
    while (poll()) {
    }
  });
  std::vector<std::thread> writers;
  for (int t = 0; t < kThreads; ++t) {
    writers.emplace_back([&, t] {
      ArticleTable table(*store_);
      const int64_t id = 100 + t;
      EXPECT_TRUE(RunSync(table.Insert(Article(id, "draft", 1))));
      for (int i = 1; i < kEach; ++i) {
        auto r = RunSync(table.Update(Article(id, i % 2 ? "published" : "draft", 1 + i)));
        EXPECT_TRUE(r && *r) << (r ? "no row" : r.error().message);
      }
    });
  }
  for (auto& w : writers) {
    w.join();
  }
  writing = false;
  reader.join();
  ASSERT_EQ(seen.size(), static_cast<size_t>(kThreads * kEach));
  for (size_t i = 0; i < seen.size(); ++i) {
    EXPECT_EQ(seen[i].id, static_cast<int64_t>(i) + 1);
  }
  for (int t = 0; t < kThreads; ++t) {
    std::vector<std::string> ops;
    std::vector<int64_t> ats;
    for (const auto& r : seen) {
      if (r.article_id == 100 + t) {
        ops.push_back(r.op);
        ats.push_back(r.at_ms);
      }
    }
    ASSERT_EQ(ops.size(), static_cast<size_t>(kEach));
    EXPECT_EQ(ops[0], "create");
    for (int i = 1; i < kEach; ++i) {
      EXPECT_EQ(ops[i], i % 2 ? "publish" : "unpublish");
      EXPECT_EQ(ats[i], 1 + i);  // each article's changes in the order they were made
    }
  }
}

TEST_P(ArticleChanges, RetentionKeepsTheNewestChanges) {
  ArticleTable table(*store_, ChangeRetention{.keep = 10, .trim_every = 4});
  ASSERT_TRUE(RunSync(table.Insert(Article(1, "draft", 0))));
  for (int i = 1; i < 31; ++i) {
    auto r = RunSync(table.Update(Article(1, "draft", i)));
    ASSERT_TRUE(r && *r);
  }
  // 31 changes; the trim at id 28 removed ids <= 18.
  auto rows = All(*store_);
  ASSERT_EQ(rows.size(), 13u);
  EXPECT_EQ(rows.front().id, 19);
  EXPECT_EQ(rows.back().id, 31);
  ASSERT_TRUE(RunSync(table.Update(Article(1, "draft", 31))));  // id 32: trims to (22, 32]
  rows = All(*store_);
  ASSERT_EQ(rows.size(), 10u);
  EXPECT_EQ(rows.front().id, 23);
  // A cursor older than the kept rows resumes at the oldest kept one.
  EXPECT_EQ(All(*store_, 5).front().id, 23);
}

INSTANTIATE_TEST_SUITE_P(Databases, ArticleChanges, AllDialects(), DialectName);

}  // namespace
}  // namespace plaudit::sql::test
