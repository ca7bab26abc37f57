// render::PageCache: a page is found only at the version it was rendered at, the byte bound
// evicts the least recently used, readers' flags are charged to their page within a share of
// the bound, a signed-in reader's flags are written in at the recorded places, and the gzip
// copy inflates back to the body.
#include "render/page_cache.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "common/gzip.hpp"
#include "render/comment_text.hpp"

namespace plaudit::render {
namespace {

RenderedPage Page(std::string version, std::string body) {
  RenderedPage p;
  p.version = std::move(version);
  p.body = std::move(body);
  p.etag = "\"c1.x.1\"";
  return p;
}

TEST(PageCache, FindsAPageOnlyAtItsVersion) {
  PageCache cache(1 << 20);
  cache.Put("1/0/1/20/3", Page("0:b.1", "{}"));
  EXPECT_TRUE(cache.Find("1/0/1/20/3", "0:b.1"));
  EXPECT_FALSE(cache.Find("1/0/1/20/3", "0:b.2"));
  EXPECT_FALSE(cache.Find("1/0/1/20/3", "1:b.1"));  // another connection's generation
  EXPECT_FALSE(cache.Find("1/0/2/20/3", "0:b.1"));
  cache.Put("1/0/1/20/3", Page("0:b.2", "{\"n\":2}"));  // replaces the older version
  EXPECT_EQ(cache.size(), 1u);
  auto p = cache.Find("1/0/1/20/3", "0:b.2");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->body, "{\"n\":2}");
  EXPECT_EQ(cache.hits(), 2u);
  EXPECT_EQ(cache.misses(), 3u);
}

TEST(PageCache, TheByteBoundEvictsTheLeastRecentlyUsed) {
  const std::string body(10'000, 'x');
  PageCache cache(35'000);
  cache.Put("a", Page("v", body));
  cache.Put("b", Page("v", body));
  cache.Put("c", Page("v", body));
  ASSERT_TRUE(cache.Find("a", "v"));  // a is now the most recently used
  cache.Put("d", Page("v", body));    // over the bound: b goes
  EXPECT_TRUE(cache.Find("a", "v"));
  EXPECT_FALSE(cache.Find("b", "v"));
  EXPECT_TRUE(cache.Find("c", "v"));
  EXPECT_TRUE(cache.Find("d", "v"));
  EXPECT_LE(cache.bytes(), 35'000u);
  PageCache off(0);
  off.Put("a", Page("v", "{}"));
  EXPECT_FALSE(off.Find("a", "v"));
  EXPECT_EQ(off.bytes(), 0u);
}

TEST(PageCache, AGzipCopyCountsInTheBoundAndCanEvict) {
  std::string body;
  for (int i = 0; i < 2000; ++i) {
    body += std::to_string(i * 7919 % 10007) + ",";
  }
  PageCache cache(2 * body.size() + 4000);
  cache.Put("a", Page("v", body));
  cache.Put("b", Page("v", body));
  const size_t before = cache.bytes();
  auto b = cache.Find("b", "v");
  ASSERT_TRUE(b);
  const std::string& z = cache.Gzipped("b", *b);
  ASSERT_FALSE(z.empty());
  // Counted, and over the bound: the least recently used page went.
  EXPECT_FALSE(cache.Find("a", "v"));
  EXPECT_TRUE(cache.Find("b", "v"));
  EXPECT_LE(cache.bytes(), 2 * body.size() + 4000);
  EXPECT_GT(cache.bytes(), before - body.size());
  EXPECT_EQ(&cache.Gzipped("b", *b), &z);  // made once
}

TEST(PageCache, ReadersFlagsAreChargedToAKeptPageUpToAnEighthOfTheBound) {
  PageCache cache(80'000);
  auto a = cache.Put("a", Page("v", std::string(2'000, 'x')));
  const size_t before = cache.bytes();
  EXPECT_TRUE(cache.Charge("a", *a, 5'000));
  EXPECT_EQ(cache.bytes(), before + 5'000);
  // Past an eighth of the bound (10,000 bytes): refused, nothing counted.
  EXPECT_FALSE(cache.Charge("a", *a, 5'000));
  EXPECT_EQ(cache.bytes(), before + 5'000);
  // A page no longer kept under its key (replaced by another version) takes nothing.
  cache.Put("a", Page("w", "{}"));
  const size_t replaced = cache.bytes();
  EXPECT_FALSE(cache.Charge("a", *a, 100));
  EXPECT_EQ(cache.bytes(), replaced);
}

TEST(PageCache, ASignedInReadersFlagsAreWrittenWhereTheRenderPutThem) {
  domain::Comment top;
  top.id = 7;
  top.body = R"(says "liked":false in its text)";
  domain::Comment reply;
  reply.id = 9;
  reply.parent_id = 7;
  top.replies.push_back(reply);
  domain::Comment other;
  other.id = 8;
  other.like_count = 2;
  std::string out = "[";
  LikedSlots slots;
  AppendCommentJson(out, top, true, &slots);
  out += ',';
  AppendCommentJson(out, other, true, &slots);
  out += ']';
  ASSERT_EQ(slots.size(), 3u);
  EXPECT_FALSE(slots[0].liked_by_anyone);  // like_count 0: no reader's flag to ask for
  EXPECT_TRUE(slots[2].liked_by_anyone);
  EXPECT_EQ(slots[0].id, 7);
  EXPECT_EQ(slots[1].id, 9);
  EXPECT_EQ(slots[2].id, 8);
  RenderedPage p = Page("v", out);
  p.liked = slots;
  const std::string both = p.WithLiked({8, 9});
  const auto json = boost::json::parse(both).as_array();
  EXPECT_FALSE(json[0].at("liked").as_bool());
  EXPECT_TRUE(json[0].at("replies").as_array()[0].at("liked").as_bool());
  EXPECT_TRUE(json[1].at("liked").as_bool());
  EXPECT_EQ(json[0].at("body").as_string(), R"(says "liked":false in its text)");
  EXPECT_EQ(p.WithLiked({}), out);
}

TEST(PageCache, TheGzipCopyInflatesToTheBodyAndSmallBodiesGetNone) {
  std::string body;
  for (int i = 0; i < 200; ++i) {
    body += R"({"id":)" + std::to_string(i) + R"(,"liked":false},)";
  }
  RenderedPage big = Page("v", body);
  const std::string& z = big.Gzipped();
  ASSERT_FALSE(z.empty());
  EXPECT_LT(z.size(), body.size() / 3);
  EXPECT_EQ(Gunzip(z), body);
  EXPECT_EQ(big.GzipEtag(), "\"c1.x.1-gz\"");
  RenderedPage small = Page("v", "{}");
  EXPECT_TRUE(small.Gzipped().empty());
  EXPECT_FALSE(Gunzip("not gzip"));
}

}  // namespace
}  // namespace plaudit::render
