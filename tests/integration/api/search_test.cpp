// API.md "Search": GET /api/v1/search on each database. Words and CJK substrings, best first,
// snippets with <mark>; drafts and deleted articles never answered, even before the indexer
// has taken their change up; edits found once it has; a rebuild (never built, reset, or a
// feed trimmed past the cursor) finds the same; bad input is 400 and changes nothing.
#include <algorithm>
#include <boost/json.hpp>
#include <cctype>

#include "api_test_base.hpp"

namespace plaudit::testing {
namespace {

std::string Encode(std::string_view s) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) != 0 || c == '-' || c == '_' || c == '.') {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 0xF]);
    }
  }
  return out;
}

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
    return Client().Get("/api/v1/search?q=" + Encode(q) + extra);
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
  // Paging: the total of every match, the page's share of them.
  auto second = Search("redis", "&size=2&page=2");
  EXPECT_EQ(second.at("total").as_int64(), 3);
  EXPECT_EQ(second.at("items").as_array().size(), 1u);
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
}

TEST_P(SearchTest, BadInputIs400AndAQueryOfNothingFindsNothing) {
  Write("Anything", "<p>text</p>");
  Index();
  EXPECT_EQ(Client().Get("/api/v1/search").status, 400);
  EXPECT_EQ(Get("   ").status, 400);
  EXPECT_EQ(Get(std::string(201, 'a')).status, 400);
  EXPECT_EQ(Client().Get("/api/v1/search?q=%FF%FE").status, 400);
  EXPECT_EQ(Get("text", "&kind=page").status, 400);
  EXPECT_EQ(Get("text", "&kind=nope").status, 400);
  EXPECT_EQ(Get("text", "&size=51").status, 400);
  EXPECT_EQ(Get("text", "&page=0").status, 400);
  EXPECT_EQ(Get("text", "&cursor=abc").status, 400);
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
