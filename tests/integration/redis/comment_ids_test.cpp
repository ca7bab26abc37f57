// Comment ids from the Redis sequence (next_id.lua through CommentCache): one at a time for a
// comment write, a block in one call for an import, never one at or below SQL's highest.
#include <set>

#include "fixture.hpp"
#include "redis/comment_cache.hpp"
#include "redis/keys.hpp"

namespace plaudit::redis::test {
namespace {

using CommentIds = RedisTest;

TEST_F(CommentIds, ABlockIsTheNextIdsOnTheArticlesShardAboveTheFloor) {
  auto client = Connect(Server().unix_url());
  CommentCache cache(*client);
  constexpr int64_t kArticle = 7 * keys::kLikeShards + 3;  // shard 3

  // An empty Redis and no floor: the caller must read SQL's highest id first.
  auto none = Run(cache.NextCommentIds(kArticle, std::nullopt, 5));
  ASSERT_TRUE(none);
  EXPECT_FALSE(none->has_value());

  // SQL's highest id is seq 40 of some shard: the block starts above it.
  const int64_t sql_max = 40 * keys::kLikeShards + 200;
  auto block = Run(cache.NextCommentIds(kArticle, sql_max, 5));
  ASSERT_TRUE(block && block->has_value());
  ASSERT_EQ((*block)->size(), 5u);
  std::set<int64_t> seen;
  int64_t seq = 41;
  for (const int64_t id : **block) {
    EXPECT_EQ(id, keys::CommentIdFor(seq++, kArticle));
    EXPECT_EQ(keys::LikeShard(id), 3);
    EXPECT_GT(id, sql_max);
    seen.insert(id);
  }
  EXPECT_EQ(seen.size(), 5u);

  // The next single id comes after the block, on another article's shard too.
  auto one = Run(cache.NextCommentId(12, std::nullopt));
  ASSERT_TRUE(one && one->has_value());
  EXPECT_EQ(**one, keys::CommentIdFor(46, 12));

  // A floor above the sequence (Redis came back older) moves it up, for blocks as for one.
  auto after = Run(cache.NextCommentIds(kArticle, 100 * keys::kLikeShards, 2));
  ASSERT_TRUE(after && after->has_value());
  EXPECT_EQ((*after)->front(), keys::CommentIdFor(101, kArticle));
  EXPECT_EQ((*after)->back(), keys::CommentIdFor(102, kArticle));

  auto nothing = Run(cache.NextCommentIds(kArticle, sql_max, 0));
  EXPECT_FALSE(nothing);
}

}  // namespace
}  // namespace plaudit::redis::test
