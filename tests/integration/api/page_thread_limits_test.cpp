// Issue 41, item 6: one account created 121 page threads in 0.8 s, each kept for good and
// titled as it chose, and each title went into the change feed. Thread creation is limited per
// user and per address (--limit-pages-user, --limit-pages-address), charged only for a thread
// really created, and page threads stay out of GET /api/v1/changes.
#include <future>
#include <thread>

#include "api_test_base.hpp"

namespace plaudit::testing {
namespace {

class PageLimitsTest : public ApiTest {
 protected:
  void Configure(config::Config& c) override {
    c.sites = SiteList::Parse("https://blog.example").value();
    c.limit_writes_user = RateLimit{};
    c.limit_requests_address = RateLimit{};
    c.limit_pages_user = RateLimit{per_user_, 3'600'000};
    c.limit_pages_address = RateLimit{per_address_, 3'600'000};
  }

  static HttpResponse Comment(HttpClient& c, const std::string& token, int page) {
    return c.Post(
        "/api/v1/pages/comments?url=https%3A%2F%2Fblog.example%2Fp" + std::to_string(page),
        R"({"body":"hello","title":"Page )" + std::to_string(page) + "\"}", Bearer(token));
  }

  int64_t PageThreads() { return SqlInt("SELECT COUNT(*) FROM articles WHERE kind = 'page'"); }

  int64_t per_user_ = 3;
  int64_t per_address_ = 5;
};

TEST_P(PageLimitsTest, NewThreadsAreLimitedPerUserAndPerAddressButCommentsOnOldOnesAreNot) {
  Register("ann");
  Register("bea");
  const std::string ann = Login("ann");
  const std::string bea = Login("bea");
  auto c = Client();
  // Comments that land on an existing thread cost nothing.
  for (int i = 0; i < 5; ++i) {
    ASSERT_EQ(Comment(c, ann, 1).status, 201);
  }
  ASSERT_EQ(Comment(c, ann, 2).status, 201);
  ASSERT_EQ(Comment(c, ann, 3).status, 201);
  auto over = Comment(c, ann, 4);
  EXPECT_EQ(over.status, 429) << over.body;
  EXPECT_EQ(over.ErrorCode(), "rate_limited");
  EXPECT_GE(std::stoi(over.Header("retry-after")), 1);
  auto like = c.Put("/api/v1/pages/like?url=https%3A%2F%2Fblog.example%2Fp4", "", Bearer(ann));
  EXPECT_EQ(like.status, 429) << like.body;
  EXPECT_EQ(PageThreads(), 3);  // refused, nothing made
  EXPECT_EQ(Comment(c, ann, 1).status, 201);
  // The address (both sign in from 127.0.0.1) has made 3 of its 5.
  EXPECT_EQ(Comment(c, bea, 5).status, 201);
  EXPECT_EQ(Comment(c, bea, 6).status, 201);
  EXPECT_EQ(Comment(c, bea, 7).status, 429);
  EXPECT_EQ(Comment(c, bea, 3).status, 201);  // an existing thread
  EXPECT_EQ(PageThreads(), 5);
}

TEST_P(PageLimitsTest, PageThreadsStayOutOfTheChangeFeed) {
  const std::string root = Login("root", "rootpassword");
  auto c = Client();
  auto a = c.Post("/api/v1/articles", R"({"title":"Real","content":"c","status":"published"})",
                  Bearer(root));
  ASSERT_EQ(a.status, 201);
  ASSERT_EQ(Comment(c, root, 1).status, 201);
  ASSERT_EQ(Comment(c, root, 2).status, 201);
  auto b = c.Post("/api/v1/articles", R"({"title":"Later","content":"c","status":"draft"})",
                  Bearer(root));
  ASSERT_EQ(b.status, 201);
  auto feed = c.Get("/api/v1/changes?limit=1000", Bearer(root));
  ASSERT_EQ(feed.status, 200) << feed.body;
  const boost::json::value json = feed.Json();
  std::vector<int64_t> ids;
  for (const auto& item : json.at("items").as_array()) {
    ids.push_back(item.at("articleId").as_int64());
  }
  EXPECT_EQ(ids, (std::vector<int64_t>{a.Json().at("id").as_int64(), b.Json().at("id").as_int64()}))
      << feed.body;
}

// Concurrent first comments on one page make one thread and cost the writer one creation.
class PageLimitRaceTest : public PageLimitsTest {
 protected:
  void Configure(config::Config& c) override {
    per_user_ = 20;
    per_address_ = 100;
    PageLimitsTest::Configure(c);
  }
};

TEST_P(PageLimitRaceTest, ConcurrentFirstCommentsOnOnePageAreChargedOnce) {
  Register("ann");
  const std::string ann = Login("ann");
  std::vector<std::future<int>> writes;
  for (int i = 0; i < 8; ++i) {
    writes.push_back(std::async(std::launch::async, [&] {
      auto c = Client();
      return Comment(c, ann, 1).status;
    }));
  }
  for (auto& w : writes) {
    EXPECT_EQ(w.get(), 201);
  }
  EXPECT_EQ(PageThreads(), 1);
  auto c = Client();
  int made = 0;
  for (int page = 2; page < 40; ++page) {
    const int status = Comment(c, ann, page).status;
    if (status != 201) {
      EXPECT_EQ(status, 429);
      break;
    }
    ++made;
  }
  EXPECT_EQ(made, 19);  // 20 per user, one of them spent on the raced page
}

INSTANTIATE_TEST_SUITE_P(Databases, PageLimitsTest, AllDbs(), DbName);
INSTANTIATE_TEST_SUITE_P(Databases, PageLimitRaceTest, AllDbs(), DbName);

}  // namespace
}  // namespace plaudit::testing
