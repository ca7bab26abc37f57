// API.md "Search": GET /api/v1/search on each database. Words and CJK substrings, best first,
// snippets with <mark>; drafts and deleted articles never answered, even before the indexer
// has taken their change up; edits found once it has; a rebuild (never built, reset, or a
// feed trimmed past the cursor) finds the same; bad input is 400 and changes nothing.
#include <algorithm>
#include <boost/json.hpp>
#include <set>

#include "api_test_base.hpp"

namespace plaudit::testing {
namespace {

class SearchTest : public ApiTest {
 protected:
  void Configure(config::Config& c) override {
    c.rate_limits = false;
    c.search_interval_ms = 3'600'000;  // the tests take the index's steps themselves
  }
  void SetUp() override {
    ApiTest::SetUp();
    root_ = Login("root", "rootpassword");
  }

  int64_t Write(const std::string& title, const std::string& content,
                const std::string& kind = "article", const std::string& status = "published") {
    boost::json::object o{
        {"title", title}, {"content", content}, {"kind", kind}, {"status", status}};
    auto r = Client().Post("/api/v1/articles", boost::json::serialize(o), Bearer(root_));
    EXPECT_EQ(r.status, 201) << r.body;
    return r.status == 201 ? r.Json().at("id").as_int64() : 0;
  }
  void Patch(int64_t id, const std::string& json) {
    auto r = Client().Patch("/api/v1/articles/" + std::to_string(id), json, Bearer(root_));
    EXPECT_EQ(r.status, 200) << r.body;
  }
  // The index takes up every change so far.
  void Index() {
    auto r = OnLoop(app_->app().search().Index());
    ASSERT_TRUE(r) << r.error().message;
  }
  HttpResponse Get(const std::string& q, const std::string& extra = "") {
    return Client().Get("/api/v1/search?q=" + UrlEncode(q) + extra);
  }
  boost::json::object Search(const std::string& q, const std::string& extra = "") {
    auto r = Get(q, extra);
    EXPECT_EQ(r.status, 200) << q << ": " << r.body;
    return r.status == 200 ? r.Json().as_object() : boost::json::object{};
  }
  std::vector<int64_t> Ids(const std::string& q, const std::string& extra = "") {
    std::vector<int64_t> out;
    auto o = Search(q, extra);
    if (auto* items = o.if_contains("items")) {
      for (const auto& item : items->as_array()) {
        out.push_back(item.at("id").as_int64());
      }
    }
    return out;
  }

  std::string root_;
};

TEST_P(SearchTest, FindsWordsAndChineseSubstringsBestFirstWithSnippets) {
  const int64_t hot = Write("Redis hot path", "<p>Plaudit keeps likes in <b>Redis</b>.</p>");
  const int64_t plain = Write("Comments", "<p>Only SQL here, and the word redistribute.</p>");
  const int64_t zh = Write("中文搜索", "<p>支持中文搜索，两字也能找到。Redis 也在。</p>");
  const int64_t post = Write("Forum", "<p>A post that says redis once.</p>", "post");
  Index();

  const std::vector<int64_t> redis = Ids("redis");
  ASSERT_EQ(redis.size(), 3u);
  EXPECT_EQ(redis.front(), hot);                                // in its title and its text
  EXPECT_EQ(std::count(redis.begin(), redis.end(), plain), 0);  // a word, not a prefix
  EXPECT_EQ(Ids("REDIS"), redis);
  EXPECT_EQ(Ids("Ｒｅｄｉｓ"), redis);
  EXPECT_EQ(Ids("redis", "&kind=post"), std::vector<int64_t>{post});
  EXPECT_EQ(Ids("两字"), std::vector<int64_t>{zh});
  EXPECT_EQ(Ids("中文搜"), std::vector<int64_t>{zh});
  EXPECT_EQ(Ids("redis 中文"), std::vector<int64_t>{zh});  // every term, in any order
  EXPECT_TRUE(Ids("postgres").empty());
  EXPECT_TRUE(Ids("搜中").empty());

  auto page = Search("两字");
  EXPECT_EQ(page.at("total").as_int64(), 1);
  const auto& item = page.at("items").as_array().at(0).as_object();
  EXPECT_EQ(item.at("title").as_string(), "中文搜索");
  EXPECT_FALSE(item.contains("content"));  // a list item
  EXPECT_TRUE(item.contains("likeCount"));
  const std::string snippet(item.at("snippet").as_string());
  EXPECT_NE(snippet.find("<mark>两字</mark>"), std::string::npos) << snippet;
  auto first = Search("redis").at("items").as_array().at(0).as_object();
  EXPECT_NE(std::string(first.at("snippet").as_string()).find("<mark>Redis</mark>"),
            std::string::npos)
      << first.at("snippet");
  // Paging: the total of every match, the page's share of them; by page or by cursor.
  auto second = Search("redis", "&size=2&page=2");
  EXPECT_EQ(second.at("total").as_int64(), 3);
  EXPECT_EQ(second.at("items").as_array().size(), 1u);
  EXPECT_TRUE(second.at("nextCursor").is_null());
  auto head = Search("redis", "&size=2");
  ASSERT_TRUE(head.at("nextCursor").is_string()) << boost::json::serialize(head);
  auto rest = Search("redis", "&size=2&cursor=" + std::string(head.at("nextCursor").as_string()));
  EXPECT_TRUE(rest.at("page").is_null());
  EXPECT_TRUE(rest.at("nextCursor").is_null());
  std::vector<int64_t> paged;
  for (const auto* p : {&head, &rest}) {
    for (const auto& item : p->at("items").as_array()) {
      paged.push_back(item.at("id").as_int64());
    }
  }
  EXPECT_EQ(paged, redis);
  EXPECT_EQ(Search("redis", "&size=100").at("items").as_array().size(), 3u);  // API.md's max
}

TEST_P(SearchTest, EveryWordIsFoundOnEveryDatabaseAndQuerySyntaxIsPlainText) {
  // Words that InnoDB's stopword list would drop once prefixed (a "w" prefix made "here"
  // the stopword "where"), short words, and the backends' own query operators as text.
  const int64_t a = Write("I am here", "<p>as it is, with all of this; www and ill hat</p>");
  Index();
  for (const char* word :
       {"here", "am", "as", "is", "it", "with", "all", "of", "this", "www", "ill", "hat", "HERE"}) {
    EXPECT_EQ(Ids(word), std::vector<int64_t>{a}) << word;
  }
  for (const char* q : {"\"here", "here*", "-here", "+here", "(here)", "here:", "NEAR(here)",
                        "here AND with", "here OR nothing", "title_terms:here", "'here'",
                        "here\xF0\x9F\x98\x80", "~here", "@here", "here^2", "<here>"}) {
    auto r = Get(q);
    EXPECT_EQ(r.status, 200) << q << ": " << r.body;
  }
  // Operators are words like any other: every one must be found.
  EXPECT_EQ(Ids("here AND with"), std::vector<int64_t>{a});  // the text has "and"
  EXPECT_TRUE(Ids("here OR nothing").empty());
  EXPECT_EQ(Ids("-here"), std::vector<int64_t>{a});  // not "without here"
}

TEST_P(SearchTest, DraftsAndDeletedArticlesAreNeverFoundEvenBeforeTheIndexSeesTheirChange) {
  const int64_t a = Write("Xylophone notes", "<p>about the xylophone</p>");
  Write("Xylophone draft", "<p>xylophone, unpublished</p>", "article", "draft");
  Index();
  EXPECT_EQ(Ids("xylophone"), std::vector<int64_t>{a});
  // Unpublished: gone at once, before the index has taken the change up, and after.
  Patch(a, R"({"status":"draft"})");
  EXPECT_TRUE(Ids("xylophone").empty());
  EXPECT_EQ(Search("xylophone").at("total").as_int64(), 0);
  Index();
  EXPECT_TRUE(Ids("xylophone").empty());
  // Published again: found once indexed.
  Patch(a, R"({"status":"published"})");
  Index();
  EXPECT_EQ(Ids("xylophone"), std::vector<int64_t>{a});
  // Deleted: gone at once.
  ASSERT_EQ(Client().Delete("/api/v1/articles/" + std::to_string(a), Bearer(root_)).status, 204);
  EXPECT_TRUE(Ids("xylophone").empty());
  Index();
  EXPECT_TRUE(Ids("xylophone").empty());
}

TEST_P(SearchTest, EditsAreFoundOnceTheIndexTakesThemUp) {
  const int64_t a = Write("Marimba", "<p>first text</p>");
  Index();
  EXPECT_EQ(Ids("marimba"), std::vector<int64_t>{a});
  Patch(a, R"({"title":"Vibraphone","content":"<p>second text</p>"})");
  Index();
  EXPECT_TRUE(Ids("marimba").empty());
  EXPECT_EQ(Ids("vibraphone"), std::vector<int64_t>{a});
  EXPECT_EQ(Ids("second"), std::vector<int64_t>{a});
  EXPECT_TRUE(Ids("first").empty());
}

TEST_P(SearchTest, ARebuildFindsTheSameWhetherResetOrTheFeedWasTrimmedPastTheCursor) {
  const int64_t a = Write("Harpsichord", "<p>one</p>");
  const int64_t b = Write("Clavichord", "<p>harpsichord's cousin</p>");
  Index();
  const std::vector<int64_t> before = Ids("harpsichord");
  ASSERT_EQ(before.size(), 2u);
  auto reset = OnLoop(app_->app().search().Rebuild());
  ASSERT_TRUE(reset) << reset.error().message;
  Index();
  EXPECT_EQ(Ids("harpsichord"), before);
  // The feed trimmed past the cursor (what it dropped is unknown): a rebuild, which also
  // drops what the index holds of an article deleted meanwhile.
  ASSERT_EQ(Client().Delete("/api/v1/articles/" + std::to_string(a), Bearer(root_)).status, 204);
  const int64_t c = Write("Spinet", "<p>harpsichord again</p>");
  SqlExec("DELETE FROM article_changes");
  SqlExec("UPDATE plaudit_meta SET value = '0' WHERE \"key\" = 'search_through'");
  const int64_t d = Write("Virginal", "<p>a harpsichord too</p>");  // a change after the gap
  Index();
  std::vector<int64_t> after = Ids("harpsichord");
  std::sort(after.begin(), after.end());
  EXPECT_EQ(after, (std::vector<int64_t>{b, c, d}));
  // A trim that took the cursor's next change after the indexer checked the feed's start
  // (older changes still there): the gap after the cursor is seen, and it rebuilds.
  const int64_t e = Write("Celesta", "<p>no harpsichord</p>");
  const int64_t f = Write("Clavinet", "<p>harpsichord, electric</p>");
  ASSERT_GE(SqlExec("DELETE FROM article_changes WHERE article_id = " + std::to_string(e)), 1);
  Index();
  after = Ids("harpsichord");
  std::sort(after.begin(), after.end());
  EXPECT_EQ(after, (std::vector<int64_t>{b, c, d, e, f}));
}

TEST_P(SearchTest, AWordInEveryArticleRanksAndCountsTheNewestThousandAndPagesEndThere) {
  // 1,001 published articles written straight into SQL (as an import would), then indexed.
  auto me = Client().Get("/api/v1/users/me", Bearer(root_));
  ASSERT_EQ(me.status, 200) << me.body;
  const std::string author = std::to_string(me.Json().at("id").as_int64());
  const std::string digit =
      "(SELECT 0 AS i UNION ALL SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3 UNION ALL "
      "SELECT 4 UNION ALL SELECT 5 UNION ALL SELECT 6 UNION ALL SELECT 7 UNION ALL SELECT 8 "
      "UNION ALL SELECT 9)";
  const std::string columns =
      "INSERT INTO articles (id, kind, author_id, title, summary, content, status, created_at, "
      "updated_at, published_at) ";
  SqlExec(columns + "SELECT 600000 + a.i * 100 + b.i * 10 + c.i, 'article', " + author +
          ", 'Capybara', '', '<p>capybara</p>', 'published', 1, 1, 1 FROM " + digit + " a, " +
          digit + " b, " + digit + " c");
  SqlExec(columns + "VALUES (599999, 'article', " + author +
          ", 'Capybara', '', '<p>capybara</p>', 'published', 1, 1, 1)");
  auto reset = OnLoop(app_->app().search().Rebuild());
  ASSERT_TRUE(reset) << reset.error().message;
  Index();
  auto first = Search("capybara", "&size=100");
  EXPECT_EQ(first.at("total").as_int64(), 1000);
  std::set<int64_t> seen;
  std::string cursor(first.at("nextCursor").is_string() ? first.at("nextCursor").as_string() : "");
  for (const auto& item : first.at("items").as_array()) {
    seen.insert(item.at("id").as_int64());
  }
  for (int pages = 1; !cursor.empty() && pages < 20; ++pages) {
    auto next = Search("capybara", "&size=100&cursor=" + cursor);
    for (const auto& item : next.at("items").as_array()) {
      seen.insert(item.at("id").as_int64());
    }
    cursor = next.contains("nextCursor") && next.at("nextCursor").is_string()
                 ? std::string(next.at("nextCursor").as_string())
                 : "";
  }
  EXPECT_EQ(seen.size(), 1000u);  // every one of the newest thousand, once
  EXPECT_EQ(seen.count(599999), 0u);
  EXPECT_EQ(seen.count(600999), 1u);
  auto past = Search("capybara", "&size=100&page=11");
  EXPECT_TRUE(past.at("items").as_array().empty());
  EXPECT_EQ(past.at("total").as_int64(), 1000);
}

TEST_P(SearchTest, BadInputIs400AndAQueryOfNothingFindsNothing) {
  Write("Anything", "<p>text</p>");
  Index();
  EXPECT_EQ(Client().Get("/api/v1/search").status, 400);
  EXPECT_EQ(Get("   ").status, 400);
  EXPECT_EQ(Get(std::string(201, 'a')).status, 400);
  std::string zh200;  // 200 characters (600 bytes): what the search box lets through
  for (int i = 0; i < 200; ++i) {
    zh200 += "中";
  }
  EXPECT_EQ(Get(zh200).status, 200);
  EXPECT_EQ(Get(zh200 + "中").status, 400);
  EXPECT_EQ(Client().Get("/api/v1/search?q=%FF%FE").status, 400);
  EXPECT_EQ(Get("text", "&kind=page").status, 400);
  EXPECT_EQ(Get("text", "&kind=nope").status, 400);
  EXPECT_EQ(Get("text", "&size=101").status, 400);
  EXPECT_EQ(Get("text", "&page=0").status, 400);
  EXPECT_EQ(Get("text", "&cursor=abc").status, 400);
  EXPECT_EQ(Get("text", "&cursor=r").status, 400);
  EXPECT_EQ(Get("text", "&cursor=r99999999").status, 400);
  auto bad = Get("   ");
  EXPECT_EQ(bad.Json().at("error").at("code").as_string(), "invalid_field") << bad.body;
  // One CJK character, punctuation: nothing to look for, nothing found.
  auto one = Search("中");
  EXPECT_EQ(one.at("total").as_int64(), 0);
  EXPECT_TRUE(one.at("items").as_array().empty());
  EXPECT_TRUE(Ids("?!").empty());
  // Past the last page: an empty page, with the total.
  auto past = Search("text", "&page=9");
  EXPECT_EQ(past.at("total").as_int64(), 1);
  EXPECT_TRUE(past.at("items").as_array().empty());
}

INSTANTIATE_TEST_SUITE_P(Databases, SearchTest, AllDbs(), DbName);

}  // namespace
}  // namespace plaudit::testing
