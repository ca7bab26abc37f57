// LikeTable::Apply cuts a batch into power-of-two statements (128, 64, … 1 rows): every row
// of any batch size is written exactly once, on SQLite and PostgreSQL, and replays change
// nothing.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sql/likes.hpp"
#include "sql_test_util.hpp"

namespace plaudit::sql::test {
namespace {

class LikeTableApply : public SqlTest {
 protected:
  void SetUp() override {
    SqlTest::SetUp();
    store_ = OpenStore();
    ASSERT_TRUE(store_);
    auto migrated = store_->Migrate();
    ASSERT_TRUE(migrated) << migrated.error().message;
  }

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

  std::unique_ptr<Store> store_;
};

TEST_P(LikeTableApply, WritesEveryRowOfAnyBatchSizeOnce) {
  LikeTable table(*store_);
  // Sizes around each piece boundary: 1, a power of two, one past it, the largest piece and
  // past it, and a batch of 3 pieces with a remainder (201 = 128 + 64 + 8 + 1).
  const std::vector<size_t> sizes{1, 2, 3, 7, 64, 127, 128, 129, 200, 201, 383};
  int64_t target = 1;
  int64_t total = 0;
  for (size_t n : sizes) {
    auto written = RunSync(table.Apply(Batch('a', target, 1000, n, 10), {}));
    ASSERT_TRUE(written) << "batch of " << n << ": " << written.error().message;
    EXPECT_EQ(*written, static_cast<int64_t>(n)) << "batch of " << n;
    EXPECT_EQ(Count("target_type = 'a' AND target_id = " + std::to_string(target)),
              static_cast<int64_t>(n))
        << "batch of " << n;
    EXPECT_EQ(Count("target_type = 'a' AND target_id = " + std::to_string(target) +
                    " AND valid = 1"),
              static_cast<int64_t>((n + 1) / 2))
        << "batch of " << n << ": users 1000, 1002, … are valid";
    total += static_cast<int64_t>(n);
    ++target;
  }
  EXPECT_EQ(Count("1 = 1"), total);

  // The same batch again (a replayed flush): the seq is not newer, nothing changes.
  auto replay = RunSync(table.Apply(Batch('a', 1, 1000, 1, 10), {}));
  ASSERT_TRUE(replay) << replay.error().message;
  EXPECT_EQ(Count("1 = 1"), total);
  // A newer seq flips every row of a 201-row target (all pieces), and adds none.
  std::vector<LikeChange> flip = Batch('a', 10, 1000, 201, 11);
  for (auto& ch : flip) ch.valid = !ch.valid;
  auto flipped = RunSync(table.Apply(std::move(flip), {}));
  ASSERT_TRUE(flipped) << flipped.error().message;
  EXPECT_EQ(Count("1 = 1"), total);
  EXPECT_EQ(Count("target_id = 10 AND valid = 1"), 100);
  EXPECT_EQ(Count("target_id = 10 AND seq = 11"), 201);
}

INSTANTIATE_TEST_SUITE_P(Dialects, LikeTableApply,
                         ::testing::Values(Dialect::kSqlite, Dialect::kPostgres), DialectName);

}  // namespace
}  // namespace plaudit::sql::test
