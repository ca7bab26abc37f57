// LikeTable::Apply cuts a batch into power-of-two statements (128, 64, … 1 rows): every row
// of any batch size is written exactly once, on SQLite and PostgreSQL, and replays change
// nothing.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "sql/likes.hpp"
#include "sql_test_util.hpp"

namespace plaudit::sql::test {
namespace {

class LikeTableApply : public MigratedStoreTest {
 protected:
  // `n` changes on target (type, id): users first_user … first_user + n - 1, valid when the
  // user id is even, at `seq`.
  static std::vector<LikeChange> Batch(char type, int64_t id, int64_t first_user, size_t n,
                                       int64_t seq) {
    std::vector<LikeChange> out;
    for (size_t i = 0; i < n; ++i) {
      const int64_t uid = first_user + static_cast<int64_t>(i);
      out.push_back({type, id, uid, uid % 2 == 0, seq});
    }
    return out;
  }

  int64_t Count(const std::string& where) {
    auto r = Query(*store_, "SELECT COUNT(*) FROM likes WHERE " + where);
    EXPECT_TRUE(r) << r.error().message;
    return r ? Int(r->rows.at(0).at(0)) : -1;
  }
};

TEST_P(LikeTableApply, WritesEveryRowOfAnyBatchSizeOnce) {
  LikeTable table(*store_);
  // Sizes around each piece boundary: 1, a power of two, one past it, the largest piece and
  // past it, and a batch of 3 pieces with a remainder (201 = 128 + 64 + 8 + 1).
  const std::vector<size_t> sizes{1, 2, 3, 7, 64, 127, 128, 129, 200, 201, 383};
  int64_t target = 1;
  int64_t total = 0;
  for (size_t n : sizes) {
    auto written = RunSync(table.Apply(Batch('a', target, 1000, n, 10)));
    ASSERT_TRUE(written) << "batch of " << n << ": " << written.error().message;
    EXPECT_EQ(*written, static_cast<int64_t>(n)) << "batch of " << n;
    EXPECT_EQ(Count("target_type = 'a' AND target_id = " + std::to_string(target)),
              static_cast<int64_t>(n))
        << "batch of " << n;
    EXPECT_EQ(
        Count("target_type = 'a' AND target_id = " + std::to_string(target) + " AND valid = 1"),
        static_cast<int64_t>((n + 1) / 2))
        << "batch of " << n << ": users 1000, 1002, … are valid";
    total += static_cast<int64_t>(n);
    ++target;
  }
  EXPECT_EQ(Count("1 = 1"), total);

  // The same batch again (a replayed flush): the seq is not newer, nothing changes.
  auto replay = RunSync(table.Apply(Batch('a', 1, 1000, 1, 10)));
  ASSERT_TRUE(replay) << replay.error().message;
  EXPECT_EQ(Count("1 = 1"), total);
  // A newer seq flips every row of a 201-row target (all pieces), and adds none.
  std::vector<LikeChange> flip = Batch('a', 10, 1000, 201, 11);
  for (auto& ch : flip) {
    ch.valid = !ch.valid;
  }
  auto flipped = RunSync(table.Apply(std::move(flip)));
  ASSERT_TRUE(flipped) << flipped.error().message;
  EXPECT_EQ(Count("1 = 1"), total);
  EXPECT_EQ(Count("target_id = 10 AND valid = 1"), 100);
  EXPECT_EQ(Count("target_id = 10 AND seq = 11"), 201);
}

// Migration 007: a target's like_count follows its valid rows in the same transaction, for
// any mix of inserts, flips, stale replays (refused by seq) and deletes, on both targets'
// kinds. A seeded random sequence against a model of the rows.
TEST_P(LikeTableApply, CountsFollowTheRowsWhateverIsWritten) {
  for (const std::string& sql :
       {std::string(
            "INSERT INTO users (id, username, username_key, display_name, password_hash, "
            "role, created_at, updated_at) VALUES (9001, 'u', 'u', 'u', 'x', 'author', 1, 1)"),
        std::string("INSERT INTO articles (id, kind, author_id, title, summary, content, status, "
                    "created_at, updated_at, published_at) VALUES (7, 'article', 9001, 't', 's', "
                    "'c', 'published', 1, 1, 1)"),
        std::string("INSERT INTO comments (id, article_id, author_id, body, created_at, "
                    "updated_at) VALUES (263, 7, 9001, 'b', 1, 1)")}) {
    auto r = Query(*store_, sql);
    ASSERT_TRUE(r) << r.error().message;
  }
  LikeTable table(*store_);
  std::mt19937 rng(2026);
  // (type, target, user) -> (valid, seq)
  std::map<std::tuple<char, int64_t, int64_t>, std::pair<bool, int64_t>> model;
  int64_t seq = 100;
  for (int round = 0; round < 40; ++round) {
    std::vector<LikeChange> batch;
    std::map<std::tuple<char, int64_t, int64_t>, bool> in_batch;
    const int n = 1 + static_cast<int>(rng() % 150);
    for (int i = 0; i < n; ++i) {
      const char type = rng() % 2 ? 'a' : 'c';
      const int64_t target = type == 'a' ? 7 : 263;
      const int64_t user = 1 + static_cast<int64_t>(rng() % 300);
      if (in_batch.count({type, target, user})) {
        continue;  // one row once per statement
      }
      in_batch[{type, target, user}] = true;
      // Mostly newer seqs; a few stale replays that must change nothing.
      const int64_t s = rng() % 5 == 0 ? seq - static_cast<int64_t>(rng() % 50) : ++seq;
      const bool valid = rng() % 3 != 0;
      batch.push_back({type, target, user, valid, s});
      auto& row = model[{type, target, user}];
      if (row.second < s) {
        row = {valid, s};
      }
    }
    ASSERT_TRUE(RunSync(table.Apply(std::move(batch))));
    for (const auto& [type, target] : {std::pair<char, int64_t>{'a', 7}, {'c', 263}}) {
      int64_t valid = 0;
      for (const auto& [key, row] : model) {
        if (std::get<0>(key) == type && row.first) {
          ++valid;
        }
      }
      auto state = RunSync(table.CountState(
          type == 'c' ? model::Target::Comment(target) : model::Target::Article(target), {}));
      ASSERT_TRUE(state) << state.error().message;
      ASSERT_TRUE(state->count.has_value());
      ASSERT_EQ(*state->count, valid) << "round " << round << " target " << type << target;
    }
  }
  // Deleting rows (an article's or comment's delete takes its likes) takes them off the count.
  auto del = Query(*store_, "DELETE FROM likes WHERE target_type = 'c' AND user_id <= 150");
  ASSERT_TRUE(del) << del.error().message;
  int64_t left = 0;
  for (const auto& [key, row] : model) {
    if (std::get<0>(key) == 'c' && std::get<2>(key) > 150 && row.first) {
      ++left;
    }
  }
  auto after = RunSync(table.CountState(model::Target::Comment(263), {}));
  ASSERT_TRUE(after && after->count);
  EXPECT_EQ(*after->count, left);
  // CountState also names which of the asked users like the target (one snapshot).
  std::vector<int64_t> asked{151, 152, 153, 999};
  auto some = RunSync(table.CountState(model::Target::Comment(263), asked));
  ASSERT_TRUE(some);
  std::vector<int64_t> expect;
  for (int64_t u : asked) {
    auto it = model.find({'c', 263, u});
    if (it != model.end() && it->second.first) {
      expect.push_back(u);
    }
  }
  std::sort(some->liked.begin(), some->liked.end());
  EXPECT_EQ(some->liked, expect);
  auto none = RunSync(table.CountState(model::Target::Article(999), asked));
  ASSERT_TRUE(none);
  EXPECT_FALSE(none->count.has_value()) << "no such article";
}

// Flushers run concurrently (several plauditd, or `plauditd flush` beside one): each writes
// its own claimed rows, but they share targets, and every batch spans many targets and
// statements. None may deadlock (PostgreSQL aborts one side of a lock cycle), and every
// count must equal its rows afterwards (migration 012 updates each target once per
// statement, locking targets in one order).
TEST_P(LikeTableApply, ConcurrentFlushersOfSharedTargetsNeitherDeadlockNorMiscount) {
  auto seeded = Query(*store_,
                      "INSERT INTO users (id, username, username_key, display_name, "
                      "password_hash, role, created_at, updated_at) VALUES (9001, 'u', 'u', 'u', "
                      "'x', 'author', 1, 1)");
  ASSERT_TRUE(seeded) << seeded.error().message;
  constexpr int64_t kArticles = 24;
  for (int64_t id = 1; id <= kArticles; ++id) {
    auto r = Query(*store_,
                   "INSERT INTO articles (id, kind, author_id, title, summary, content, "
                   "status, created_at, updated_at, published_at) VALUES ($1, "
                   "'article', 9001, 't', 's', 'c', 'published', 1, 1, 1)",
                   {id});
    ASSERT_TRUE(r) << r.error().message;
    r = Query(*store_,
              "INSERT INTO comments (id, article_id, author_id, body, created_at, "
              "updated_at) VALUES ($1, $2, 9001, 'b', 1, 1)",
              {id * 256 + 1, id});
    ASSERT_TRUE(r) << r.error().message;
  }
  auto store = OpenStore(/*pool_size=*/4);  // four flushers at once
  ASSERT_TRUE(store);
  LikeTable table(*store);
  std::mt19937 rng(24);
  constexpr int kFlushers = 4;
  for (int round = 0; round < 6; ++round) {
    // Flusher f owns the users f, f + 4, f + 8, ... (what its claims took): disjoint rows,
    // shared targets, in whatever order the claims came.
    std::vector<std::vector<LikeChange>> batches(kFlushers);
    for (int f = 0; f < kFlushers; ++f) {
      for (int64_t user = 1 + f; user <= 400; user += kFlushers) {
        for (int k = 0; k < 2; ++k) {
          const int64_t article = 1 + static_cast<int64_t>(rng() % kArticles);
          const bool comment = rng() % 2 == 0;
          batches[f].push_back({comment ? 'c' : 'a', comment ? article * 256 + 1 : article, user,
                                rng() % 3 != 0, 1000 * (round + 1) + k});
        }
      }
      // One change per row and batch, as a claim gives.
      std::sort(batches[f].begin(), batches[f].end(), [](const auto& a, const auto& b) {
        return std::tie(a.type, a.target_id, a.user_id) < std::tie(b.type, b.target_id, b.user_id);
      });
      batches[f].erase(std::unique(batches[f].begin(), batches[f].end(),
                                   [](const auto& a, const auto& b) {
                                     return a.type == b.type && a.target_id == b.target_id &&
                                            a.user_id == b.user_id;
                                   }),
                       batches[f].end());
      std::shuffle(batches[f].begin(), batches[f].end(), rng);
    }
    net::io_context ioc;
    std::vector<std::optional<Result<int64_t>>> results(kFlushers);
    for (int f = 0; f < kFlushers; ++f) {
      net::co_spawn(
          ioc, [&, f]() -> Awaitable<void> { results[f] = co_await table.Apply(batches[f]); },
          net::detached);
    }
    ioc.run();
    for (int f = 0; f < kFlushers; ++f) {
      ASSERT_TRUE(results[f].has_value());
      ASSERT_TRUE(*results[f]) << "round " << round << " flusher " << f << ": "
                               << results[f]->error().message;
    }
    auto drift = Query(*store_,
                       "SELECT COUNT(*) FROM articles a WHERE a.like_count <> (SELECT COUNT(*) "
                       "FROM likes l WHERE l.target_type = 'a' AND l.target_id = a.id AND "
                       "l.valid = 1)");
    ASSERT_TRUE(drift) << drift.error().message;
    EXPECT_EQ(Int(drift->rows.at(0).at(0)), 0) << "round " << round;
    drift = Query(*store_,
                  "SELECT COUNT(*) FROM comments c WHERE c.like_count <> (SELECT COUNT(*) "
                  "FROM likes l WHERE l.target_type = 'c' AND l.target_id = c.id AND "
                  "l.valid = 1)");
    ASSERT_TRUE(drift) << drift.error().message;
    EXPECT_EQ(Int(drift->rows.at(0).at(0)), 0) << "round " << round;
  }
  EXPECT_GT(Count("valid = 1"), 0);
}

// Issue 23, defect 9: SQLite commits of the flusher (and of every write) survive a power
// loss: WAL with synchronous=FULL syncs the log at each commit (NORMAL only at checkpoints).
TEST_P(LikeTableApply, SqliteCommitsAreDurable) {
  if (GetParam() != Dialect::kSqlite) {
    GTEST_SKIP() << "SQLite's setting";
  }
  for (int i = 0; i < 3; ++i) {  // every pool connection
    auto r = Query(*store_, "PRAGMA synchronous");
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_EQ(Int(r->rows.at(0).at(0)), 2) << "2 = FULL";
  }
}

INSTANTIATE_TEST_SUITE_P(Dialects, LikeTableApply, AllDialects(), DialectName);

}  // namespace
}  // namespace plaudit::sql::test
