// The rows a like claim writes (flush::ClaimedChanges): which seq each change carries and
// which of two changes of one user is kept.
#include <gtest/gtest.h>

#include "flush/like_flush.hpp"

namespace plaudit::flush {
namespace {

// A bucket as like_claim.lua returns it, decoded by the store (LikeStore::DecodeClaim).
redis::ClaimedBucket Bucket(std::string bucket, std::optional<int64_t> seq,
                            std::vector<std::pair<int64_t, std::string>> changes) {
  std::vector<std::pair<std::string, std::string>> fields;
  if (seq) {
    fields.emplace_back("#", std::to_string(*seq));
  }
  for (auto& [uid, value] : changes) {
    fields.emplace_back(std::to_string(uid), std::move(value));
  }
  auto b = redis::LikeStore::DecodeClaim("a42:" + bucket, fields);
  EXPECT_TRUE(b);
  return b ? *b : redis::ClaimedBucket{};
}

TEST(ClaimedChanges, AChangeTakesItsHashsStampUnlessItCarriesItsOwn) {
  // A recovery merged user 2's pending unlike into the hash claimed at 10, stamped 13.
  auto rows = ClaimedChanges({Bucket("s", 10, {{1, "1"}, {2, "0:13"}})});
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].user_id, 1);
  EXPECT_TRUE(rows[0].valid);
  EXPECT_EQ(rows[0].seq, 10);
  EXPECT_EQ(rows[1].user_id, 2);
  EXPECT_FALSE(rows[1].valid);
  EXPECT_EQ(rows[1].seq, 13);
  // A hash written before the seq moved to the claim: no stamp, each value its own.
  auto legacy = ClaimedChanges({Bucket("s", std::nullopt, {{1, "1:7"}, {2, "0"}})});
  ASSERT_EQ(legacy.size(), 2u);
  EXPECT_EQ(legacy[0].seq, 7);
  EXPECT_EQ(legacy[1].seq, 0);
}

TEST(ClaimedChanges, OfAUsersTwoChangesTheNewerIsKeptAndOnATieTheBucketsOne) {
  // One claim took the small-mode hash and a bucket's (a split came between the changes).
  auto tie = ClaimedChanges({Bucket("s", 20, {{5, "1"}, {6, "1"}}), Bucket("0", 20, {{5, "0"}})});
  ASSERT_EQ(tie.size(), 2u);
  for (const auto& r : tie) {
    if (r.user_id == 5) {
      EXPECT_FALSE(r.valid) << "the small-mode change won a tie";
    }
  }
  // The bucket first in the claim: the same answer.
  auto swapped = ClaimedChanges({Bucket("0", 20, {{5, "0"}}), Bucket("s", 20, {{5, "1"}})});
  ASSERT_EQ(swapped.size(), 1u);
  EXPECT_FALSE(swapped[0].valid);
  // A higher seq wins wherever it is.
  auto higher = ClaimedChanges({Bucket("s", 30, {{5, "1"}}), Bucket("0", 20, {{5, "0"}})});
  ASSERT_EQ(higher.size(), 1u);
  EXPECT_TRUE(higher[0].valid);
  EXPECT_EQ(higher[0].seq, 30);
}

}  // namespace
}  // namespace plaudit::flush
