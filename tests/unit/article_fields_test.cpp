// An article's cached hash read back (redis::DecodeArticle): from a map (one article) and from
// HGETALL's (field, value) pairs in any order (a list page) alike, with the same defaults.
#include <gtest/gtest.h>

#include <algorithm>

#include "redis/article_codec.hpp"

namespace plaudit::redis {
using model::Article;
using model::ArticleKind;
using model::ArticleStatus;

namespace {

Article Sample() {
  Article a;
  a.id = 42;
  a.kind = ArticleKind::kArticle;
  a.author_id = 7;
  a.author_username = "alice";
  a.author_display_name = "Alice Liddell, who went down the rabbit hole";
  a.title = "A title long enough to live on the heap, not in the string";
  a.summary = "summary";
  a.status = ArticleStatus::kPublished;
  a.pinned = true;
  a.allow_comments = false;
  a.created_at_ms = 1795000000000;
  a.updated_at_ms = 1795000000001;
  a.published_at_ms = 1795000000002;
  a.view_count = 3;
  a.like_count = 4;
  a.comment_count = 5;
  a.comment_ver = 6;
  return a;
}

void ExpectSameArticle(const Article& x, const Article& y) {
  EXPECT_EQ(x.id, y.id);
  EXPECT_EQ(x.kind, y.kind);
  EXPECT_EQ(x.author_id, y.author_id);
  EXPECT_EQ(x.author_username, y.author_username);
  EXPECT_EQ(x.author_display_name, y.author_display_name);
  EXPECT_EQ(x.title, y.title);
  EXPECT_EQ(x.summary, y.summary);
  EXPECT_EQ(x.status, y.status);
  EXPECT_EQ(x.pinned, y.pinned);
  EXPECT_EQ(x.allow_comments, y.allow_comments);
  EXPECT_EQ(x.created_at_ms, y.created_at_ms);
  EXPECT_EQ(x.updated_at_ms, y.updated_at_ms);
  EXPECT_EQ(x.published_at_ms, y.published_at_ms);
  EXPECT_EQ(x.view_count, y.view_count);
  EXPECT_EQ(x.like_count, y.like_count);
  EXPECT_EQ(x.comment_count, y.comment_count);
  EXPECT_EQ(x.comment_ver, y.comment_ver);
}

ArticleFieldList AsList(const ArticleFields& map, bool reversed) {
  ArticleFieldList list(map.begin(), map.end());
  if (reversed) {
    std::reverse(list.begin(), list.end());
  }
  return list;
}

TEST(ArticleFields, MapAndPairsReadBackWhatWasWritten) {
  const Article a = Sample();
  const auto fields = EncodeArticle(a);
  auto from_map = DecodeArticle(fields);
  ASSERT_TRUE(from_map);
  ExpectSameArticle(*from_map, a);
  for (bool reversed : {false, true}) {
    auto from_list = DecodeArticle(AsList(fields, reversed));
    ASSERT_TRUE(from_list);
    ExpectSameArticle(*from_list, a);
  }
}

TEST(ArticleFields, DefaultsAndRefusalsAreTheSameBothWays) {
  auto fields = EncodeArticle(Sample());
  fields.erase("allow_comments");  // absent: comments allowed
  fields["published_at"] = "";     // a draft: no publish time
  fields["views"] = "12abc";       // not a number: 0
  for (const auto& a : {DecodeArticle(fields), DecodeArticle(AsList(fields, true))}) {
    ASSERT_TRUE(a);
    EXPECT_TRUE(a->allow_comments);
    EXPECT_FALSE(a->published_at_ms);
    EXPECT_EQ(a->view_count, 0);
  }
  auto no_id = EncodeArticle(Sample());
  no_id.erase("id");
  EXPECT_FALSE(DecodeArticle(no_id));
  EXPECT_FALSE(DecodeArticle(AsList(no_id, false)));
  auto bad_kind = EncodeArticle(Sample());
  bad_kind["kind"] = "poem";
  EXPECT_FALSE(DecodeArticle(bad_kind));
  EXPECT_FALSE(DecodeArticle(AsList(bad_kind, false)));
  auto zero_id = EncodeArticle(Sample());
  zero_id["id"] = "0";
  EXPECT_FALSE(DecodeArticle(zero_id));
  EXPECT_FALSE(DecodeArticle(AsList(zero_id, true)));
  EXPECT_FALSE(DecodeArticle(ArticleFieldList{}));
}

}  // namespace
}  // namespace plaudit::redis
