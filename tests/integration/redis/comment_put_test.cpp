// comment_put.lua through CommentCache::Put: an import's comments (NewHashes::kOnlyCached) go
// into a thread cached now and update comments already cached, but put no new comment into
// Redis while its thread is not cached (a reader of one reads SQL, as after Forget).
#include "fixture.hpp"
#include "redis/comment_cache.hpp"
#include "redis/keys.hpp"

namespace plaudit::redis::test {
namespace {

using CommentPut = RedisTest;
using Hashes = CommentCache::NewHashes;

model::Comment Row(int64_t id, int64_t article, int64_t ver, std::string body) {
  model::Comment c;
  c.id = id;
  c.article_id = article;
  c.author = model::CommentUser{7, "alice", "Alice"};
  c.body = std::move(body);
  c.html = "<p>" + c.body + "</p>";
  c.ver = ver;
  return c;
}

TEST_F(CommentPut, AnImportPutsNoNewCommentIntoAThreadNotCachedButUpdatesThoseCached) {
  auto client = Connect(Server().unix_url());
  CommentCache cache(*client);
  constexpr int64_t kArticle = 5;
  const int64_t cached_id = keys::CommentIdFor(10, kArticle);
  const int64_t new_id = keys::CommentIdFor(11, kArticle);
  auto exists = [&](const std::string& key) { return Server().Cli("EXISTS " + key); };

  // One comment cached on its own (a single read filled it), its thread not cached.
  const model::Comment before = Row(cached_id, kArticle, 1, "before");
  ASSERT_TRUE(Run(cache.Put(kArticle, std::span(&before, 1))));
  ASSERT_EQ(exists(keys::Comment(cached_id)), "1");
  ASSERT_EQ(exists(keys::CommentMeta(kArticle)), "0");

  // The import's step: the cached comment takes its newer state, the new one stays out.
  const std::vector<model::Comment> imported{Row(cached_id, kArticle, 2, "after"),
                                             Row(new_id, kArticle, 1, "new")};
  ASSERT_TRUE(Run(cache.Put(kArticle, imported, Hashes::kOnlyCached)));
  EXPECT_EQ(exists(keys::Comment(new_id)), "0");
  auto got = Run(cache.GetMany({cached_id, new_id}));
  ASSERT_TRUE(got);
  ASSERT_TRUE((*got)[0].has_value());
  EXPECT_EQ((*got)[0]->body, "after");
  EXPECT_EQ((*got)[0]->ver, 2);
  EXPECT_FALSE((*got)[1].has_value());  // a miss: the reader goes to SQL

  // A server's own write creates it (kCreate), as before.
  ASSERT_TRUE(Run(cache.Put(kArticle, std::span(&imported[1], 1))));
  EXPECT_EQ(exists(keys::Comment(new_id)), "1");
}

TEST_F(CommentPut, AnImportIntoAThreadCachedNowIsListedAtOnce) {
  auto client = Connect(Server().unix_url());
  CommentCache cache(*client);
  constexpr int64_t kArticle = 6;
  const int64_t id = keys::CommentIdFor(12, kArticle);
  // The thread is cached (its meta present, as a finished rebuild leaves it).
  Server().Cli("HSET " + keys::CommentMeta(kArticle) + " state ready");

  const model::Comment c = Row(id, kArticle, 1, "imported");
  ASSERT_TRUE(Run(cache.Put(kArticle, std::span(&c, 1), Hashes::kOnlyCached)));
  EXPECT_EQ(Server().Cli("EXISTS " + keys::Comment(id)), "1");
  auto page = Run(cache.Page(kArticle, std::nullopt, CommentIndex::kByTime, false, 0, 10));
  ASSERT_TRUE(page);
  ASSERT_TRUE(page->has_value());
  ASSERT_EQ((*page)->entries.size(), 1u);
  EXPECT_EQ((*page)->entries[0].id, id);
}

}  // namespace
}  // namespace plaudit::redis::test
