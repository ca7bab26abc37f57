// Issue 41, item 4: one anonymous read must not cost tens of megabytes, and a limiter that
// cannot answer must not wave a flood of costly anonymous reads through.
#include <set>

#include "api_test_base.hpp"
#include "domain/comments.hpp"

namespace plaudit::testing {
namespace {

class PageBudgetTest : public ApiTest {
 protected:
  void Configure(config::Config& c) override { c.rate_limits = false; }
};

// 20 top-level comments, the first three with 5 replies each, every body 10,000 three-byte
// characters (30 KB): ~1 MB of text, asked for in one page of size=50&replies=20.
TEST_P(PageBudgetTest, ABigPageIsCutAtItsTextBudgetAndTheCursorLosesNothing) {
  const std::string token = AuthorToken("ann");
  auto c = Client();
  const int64_t article = PublishArticle(token);
  ASSERT_NE(article, 0);
  const std::string path = "/api/v1/articles/" + std::to_string(article);
  std::string big;
  for (int i = 0; i < 10'000; ++i) {
    big += "评";
  }
  std::set<int64_t> tops;
  for (int t = 0; t < 20; ++t) {
    auto top = c.Post(path + "/comments", R"({"body":")" + big + R"("})", Bearer(token));
    ASSERT_EQ(top.status, 201) << top.body.substr(0, 200);
    const int64_t id = top.Json().at("id").as_int64();
    tops.insert(id);
    for (int r = 0; r < (t < 3 ? 5 : 0); ++r) {
      auto reply = c.Post(path + "/comments",
                          R"({"body":")" + big + R"(","parentId":)" + std::to_string(id) + "}",
                          Bearer(token));
      ASSERT_EQ(reply.status, 201) << reply.body.substr(0, 200);
    }
  }
  // Before the cut: 1 MB in one answer.
  // Anonymous and signed in alike (they render apart: the page cache and the liked flags).
  for (const auto& headers : {HttpClient::Headers{}, Bearer(token)}) {
    std::set<int64_t> seen;
    std::string target = path + "/comments?sort=old&size=50&replies=20";
    int pages = 0;
    while (true) {
      auto page = c.Get(target, headers);
      ASSERT_EQ(page.status, 200) << page.body.substr(0, 200);
      EXPECT_LT(page.body.size(), domain::CommentService::kPageTextBudget + 64 * 1024);
      auto json = page.Json();
      EXPECT_EQ(json.at("total").as_int64(), 20);
      for (const auto& item : json.at("items").as_array()) {
        EXPECT_TRUE(seen.insert(item.at("id").as_int64()).second) << "an item came twice";
        // Replies left out are still counted.
        EXPECT_EQ(item.at("replyCount").as_int64(), seen.size() <= 3 ? 5 : 0);
        EXPECT_LE(item.at("replies").as_array().size(), 5u);
      }
      ++pages;
      if (json.at("nextCursor").is_null()) {
        break;
      }
      target = path + "/comments?sort=old&size=50&replies=20&cursor=" +
               std::string(json.at("nextCursor").as_string());
      ASSERT_LT(pages, 10);
    }
    EXPECT_EQ(seen, tops);  // every top-level comment, once, by following nextCursor
    EXPECT_GT(pages, 1);
  }
}

INSTANTIATE_TEST_SUITE_P(Databases, PageBudgetTest, ::testing::Values(Db::kSqlite), DbName);

// The per-address limiter made unable to answer (its key holds a list, so its script fails):
// anonymous costly reads are refused, everything else is let through as before.
class LimiterDownTest : public ApiTest {};

TEST_P(LimiterDownTest, CostlyAnonymousReadsFailClosedWhenTheLimiterCannotAnswer) {
  const std::string token = AuthorToken("ann");
  auto c = Client();
  const int64_t article = PublishArticle(token);
  ASSERT_NE(article, 0);
  const std::string id = std::to_string(article);
  const std::string comments = "/api/v1/articles/" + id + "/comments";
  ASSERT_EQ(c.Post(comments, R"({"body":"hi"})", Bearer(token)).status, 201);
  ASSERT_EQ(c.Get(comments).status, 200);

  for (const char* ip : {"127.0.0.1", "::1"}) {
    const std::string key = std::string("'pl:rl:req-addr:") + ip + "'";
    redis_.Cli("DEL " + key);
    redis_.Cli("RPUSH " + key + " not-a-tat");
  }
  auto refused = c.Get(comments + "?size=50&replies=20");
  EXPECT_EQ(refused.status, 503) << refused.body;
  EXPECT_EQ(refused.ErrorCode(), "unavailable");
  EXPECT_EQ(c.Get("/api/v1/likes?article=" + id).status, 503);
  // Signed in, the same read goes through; so do the plain public routes.
  EXPECT_EQ(c.Get(comments, Bearer(token)).status, 200);
  EXPECT_EQ(c.Get("/api/v1/articles/" + id).status, 200);
}

INSTANTIATE_TEST_SUITE_P(Databases, LimiterDownTest, ::testing::Values(Db::kSqlite), DbName);

}  // namespace
}  // namespace plaudit::testing
