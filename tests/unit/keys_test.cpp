// The Redis key builders: the exact names docs/architecture.md lists (the data in a running
// Redis and the Lua scripts depend on them), whatever way they are assembled.
#include "redis/keys.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

namespace plaudit::redis::keys {
namespace {

TEST(Keys, CatJoinsTextAndNumbersInOrder) {
  EXPECT_EQ(Cat(), "");
  EXPECT_EQ(Cat("a", Num(0), "", Num(-7), std::string_view("z")), "a0-7z");
  EXPECT_EQ(Cat(Num(std::numeric_limits<int64_t>::max())), "9223372036854775807");
  EXPECT_EQ(Cat(Num(std::numeric_limits<int64_t>::min())), "-9223372036854775808");
}

TEST(Keys, ShardTaggedKeysKeepTheirDocumentedNames) {
  EXPECT_EQ(LikeTag(0), "{l0}");
  EXPECT_EQ(LikeTag(255), "{l255}");
  EXPECT_EQ(Article(42), "pl:art:{l42}:42");
  EXPECT_EQ(Article(256 + 3), "pl:art:{l3}:259");
  EXPECT_EQ(ArticleBody(259), "pl:art:{l3}:259:body");
  EXPECT_EQ(ArticleFloor(259), "pl:art:{l3}:259:floor");
  EXPECT_EQ(CacheMarks(3), "pl:cpend:{l3}");
  EXPECT_EQ(PublishedListVersion(259), "pl:arts:{pub}:v:259");
  EXPECT_EQ(LikeBucket(3, "a259:s"), "pl:lk:{l3}:a259:s");
  EXPECT_EQ(LikeBig(3, "a259"), "pl:lb:{l3}:a259");
  EXPECT_EQ(LikeCount(3, "c1027"), "pl:lc:{l3}:c1027");
  EXPECT_EQ(LikePending(3, "a259:12"), "pl:lp:{l3}:a259:12");
  EXPECT_EQ(LikeInFlight(3, "a259:12"), "pl:lf:{l3}:a259:12");
  EXPECT_EQ(LikeDirty(3), "pl:ld:{l3}");
  EXPECT_EQ(LikeInFlightSet(3), "pl:lfi:{l3}");
  EXPECT_EQ(LikeSeq(3), "pl:lseq:{l3}");
  EXPECT_EQ(Comment(1027), "pl:cm:{l3}:1027");
  EXPECT_EQ(CommentMeta(259), "pl:cmeta:{l3}:259");
  EXPECT_EQ(CommentsByTime(259), "pl:ct:{l3}:259");
  EXPECT_EQ(CommentsByLikes(259), "pl:ch:{l3}:259");
  EXPECT_EQ(RepliesByTime(1027), "pl:crt:{l3}:1027");
  EXPECT_EQ(RepliesByLikes(1027), "pl:crh:{l3}:1027");
}

TEST(Keys, UnshardedKeysKeepTheirDocumentedNames) {
  EXPECT_EQ(Session("ab12"), "pl:sess:ab12");
  EXPECT_EQ(UserSessions(17), "pl:usess:17");
  EXPECT_EQ(PublishedList("all"), "pl:arts:{pub}:all");
  EXPECT_EQ(PublishedListRebuild("post"), "pl:arts:{pub}:post:new");
}

// view_claim.lua moves ids between these in one script: one hash slot, one tag.
TEST(Keys, ViewFlushKeysShareOneHashTag) {
  EXPECT_EQ(kViewsDirty, "pl:vd:{views}");
  EXPECT_EQ(kViewsInFlight, "pl:vf:{views}");
  EXPECT_EQ(kViewsSeq, "pl:vseq:{views}");
}

}  // namespace
}  // namespace plaudit::redis::keys
