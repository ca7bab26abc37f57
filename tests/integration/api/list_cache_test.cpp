// Kept article list pages (render/article_lists.cpp) never show less than every write
// acknowledged before the read started, on SQLite and PostgreSQL:
// - a seeded random mix of article likes and unlikes, views, comments and their deletion,
//   new articles (published or drafts), publishing and unpublishing, edits, pinning and
//   deletes, each followed by reads of several list pages on the caching instance compared
//   byte for byte with a second instance on the same Redis and database that keeps nothing
//   (anonymous and signed-in), and the page's previous ETag no longer answered with 304;
// - likes and comments from several threads while other threads read: each list page shows
//   at least the like and comment counts acknowledged before its request left;
// - view counts lag by at most --list-views-max-age-ms, and nothing else lags with them;
// - a Redis restored from an older snapshot, or emptied (FLUSHALL), never has an older page
//   served under version numbers it counts up to again.
#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <future>
#include <map>
#include <mutex>
#include <random>
#include <thread>

#include "api_test_base.hpp"

namespace plaudit::testing {
namespace {

using namespace std::chrono_literals;

class ListCacheTest : public ApiTest {
 protected:
  void Configure(config::Config& c) override {
    c.rate_limits = false;
    c.list_views_max_age_ms = views_max_age_ms_;
  }

  void SetUp() override {
    ApiTest::SetUp();
    admin_ = Login("root", "rootpassword");
    for (int i = 0; i < kUsers; ++i) {
      const std::string name = "reader" + std::to_string(i);
      Register(name);
      tokens_.push_back(Login(name));
    }
  }

  // A new article by the admin: its id, 0 on failure.
  int64_t NewArticle(const std::string& title, bool published = true,
                     const std::string& kind = "article") {
    auto r = Client().Post("/api/v1/articles",
                           R"({"title":")" + title + R"(","content":"<p>)" + title +
                               R"(</p>","kind":")" + kind + R"(","status":")" +
                               (published ? "published" : "draft") + "\"}",
                           Bearer(admin_));
    EXPECT_EQ(r.status, 201) << r.body;
    return r.status == 201 ? r.Json().at("id").as_int64() : 0;
  }

  static std::string ArticlePath(int64_t id) { return "/api/v1/articles/" + std::to_string(id); }

  // The item of article `id` in a list body (null when absent).
  static boost::json::object Item(const std::string& body, int64_t id) {
    auto v = boost::json::parse(body);
    for (const auto& item : v.at("items").as_array()) {
      if (item.at("id").as_int64() == id) {
        return item.as_object();
      }
    }
    return {};
  }

  static constexpr int kUsers = 8;
  int64_t views_max_age_ms_ = 0;  // exact: the oracle comparison includes view counts
  std::string admin_;
  std::vector<std::string> tokens_;
};

TEST_P(ListCacheTest, KeptListsEqualFreshRendersAfterEveryKindOfWrite) {
  auto fresh = UncachedInstance();
  std::mt19937 rng(20261202);
  std::vector<int64_t> articles;
  for (int i = 0; i < 10; ++i) {
    articles.push_back(NewArticle("seed " + std::to_string(i), true, i % 3 ? "article" : "post"));
  }
  std::map<int64_t, std::vector<int64_t>> comments;  // article -> its comments
  const std::vector<std::string> queries = {
      "",      "?size=3", "?size=3&page=2", "?kind=article", "?kind=post&size=2", "?size=4&page=3",
      "cursor"};
  std::map<std::string, std::string> etags;  // the last ETag each query was answered with
  const uint64_t hits_before = CacheHits();
  int stale_etags_checked = 0;
  for (int step = 0; step < 150; ++step) {
    const int u = static_cast<int>(rng() % kUsers);
    const int64_t a = articles[rng() % articles.size()];
    std::string what;
    switch (rng() % 12) {
      case 0:
      case 1: {
        what = "like " + std::to_string(a);
        auto r = Client().Put(ArticlePath(a) + "/like", "", Bearer(tokens_[u]));
        EXPECT_TRUE(r.status == 200 || r.status == 404) << r.status << " " << r.body;
        break;
      }
      case 2: {
        what = "unlike " + std::to_string(a);
        auto r = Client().Delete(ArticlePath(a) + "/like", Bearer(tokens_[u]));
        EXPECT_TRUE(r.status == 200 || r.status == 404) << r.status << " " << r.body;
        break;
      }
      case 3: {
        what = "view " + std::to_string(a);
        auto r = Client().Get(ArticlePath(a));
        EXPECT_TRUE(r.status == 200 || r.status == 404) << r.body;
        break;
      }
      case 4: {
        what = "comment on " + std::to_string(a);
        auto r = Client().Post(ArticlePath(a) + "/comments", R"({"body":"c"})", Bearer(tokens_[u]));
        if (r.status == 201) {
          comments[a].push_back(r.Json().at("id").as_int64());
        }
        EXPECT_TRUE(r.status == 201 || r.status == 403 || r.status == 404) << r.body;
        break;
      }
      case 5: {
        what = "delete a comment of " + std::to_string(a);
        auto& list = comments[a];
        if (list.empty()) {
          break;
        }
        auto r = Client().Delete("/api/v1/comments/" + std::to_string(list.back()), Bearer(admin_));
        EXPECT_TRUE(r.status == 204 || r.status == 404) << r.body;
        list.pop_back();
        break;
      }
      case 6: {
        const bool published = rng() % 3 != 0;
        what = published ? "new article" : "new draft";
        if (int64_t id = NewArticle("new " + std::to_string(step), published,
                                    rng() % 2 ? "article" : "post")) {
          articles.push_back(id);
        }
        break;
      }
      case 7:
      case 8: {
        const bool publish = rng() % 2;
        what = (publish ? "publish " : "unpublish ") + std::to_string(a);
        auto r = Client().Patch(ArticlePath(a),
                                publish ? R"({"status":"published"})" : R"({"status":"draft"})",
                                Bearer(admin_));
        EXPECT_TRUE(r.status == 200 || r.status == 404) << r.body;
        break;
      }
      case 9: {
        what = "rename " + std::to_string(a);
        auto r = Client().Patch(
            ArticlePath(a), R"({"title":"renamed )" + std::to_string(step) + "\"}", Bearer(admin_));
        EXPECT_TRUE(r.status == 200 || r.status == 404) << r.body;
        break;
      }
      case 10: {
        const bool pin = rng() % 2;
        what = (pin ? "pin " : "unpin ") + std::to_string(a);
        auto r = Client().Patch(ArticlePath(a), pin ? R"({"pinned":true})" : R"({"pinned":false})",
                                Bearer(admin_));
        EXPECT_TRUE(r.status == 200 || r.status == 404) << r.body;
        break;
      }
      default: {
        if (rng() % 3) {  // deletes are rarer: the list would empty
          what = "nothing";
          break;
        }
        what = "delete " + std::to_string(a);
        auto r = Client().Delete(ArticlePath(a), Bearer(admin_));
        EXPECT_TRUE(r.status == 204 || r.status == 404) << r.body;
      }
    }
    for (int k = 0; k < 2; ++k) {
      std::string q = queries[rng() % queries.size()];
      if (q == "cursor") {
        // The second page by cursor, as the first page (read fresh) names it.
        auto first = fresh->Client().Get("/api/v1/articles?size=4");
        ASSERT_EQ(first.status, 200) << first.body;
        const boost::json::value json = first.Json();
        const auto& next = json.at("nextCursor");
        if (next.is_null()) {
          continue;
        }
        q = "?size=4&cursor=" + std::string(next.as_string());
      }
      const std::string path = "/api/v1/articles" + q;
      auto cached = Client().Get(path);
      auto oracle = fresh->Client().Get(path);
      ASSERT_EQ(cached.status, 200) << cached.body;
      EXPECT_EQ(cached.body, oracle.body)
          << "step " << step << " after " << what << ", '" << q << "'";
      // Read again: this one is kept, and must be the same.
      auto again = Client().Get(path);
      EXPECT_EQ(again.body, oracle.body) << "step " << step << " (kept) after " << what;
      const std::string& reader = tokens_[rng() % kUsers];
      auto signed_in = Client().Get(path, Bearer(reader));
      auto signed_oracle = fresh->Client().Get(path, Bearer(reader));
      EXPECT_EQ(signed_in.body, signed_oracle.body) << "step " << step << " signed in, " << what;
      EXPECT_EQ(signed_in.Header("cache-control"), "private, no-store");
      EXPECT_TRUE(signed_in.Header("etag").empty());
      // The ETag this query had before the write names older bytes: no 304 for it.
      const std::string etag = cached.Header("etag");
      EXPECT_FALSE(etag.empty());
      EXPECT_EQ(etag, oracle.Header("etag")) << "the same bytes, the same tag, kept or not";
      EXPECT_EQ(cached.Header("cache-control"), oracle.Header("cache-control"));
      if (q.find("cursor") != std::string::npos) {
        continue;  // another page each time
      }
      if (auto it = etags.find(q); it != etags.end() && it->second != etag) {
        auto old = Client().Get(path, {{"If-None-Match", it->second}});
        EXPECT_EQ(old.status, 200) << "step " << step << ": a stale ETag was confirmed";
        ++stale_etags_checked;
      }
      auto same = Client().Get(path, {{"If-None-Match", etag}});
      EXPECT_EQ(same.status, 304) << "step " << step;
      EXPECT_TRUE(same.body.empty());
      etags[q] = etag;
    }
  }
  EXPECT_GT(CacheHits() - hits_before, 150u) << "the cache was hardly used: the test shows little";
  EXPECT_GT(stale_etags_checked, 20);
}

TEST_P(ListCacheTest, ReadsShowEveryLikeAndCommentAcknowledgedBeforeThey) {
  constexpr int kArticles = 6;
  std::vector<int64_t> ids;
  for (int i = 0; i < kArticles; ++i) {
    ids.push_back(NewArticle("a" + std::to_string(i)));
  }
  // Liked and unliked all along (never checked): every page in between is a new version.
  const int64_t churned = NewArticle("churned");
  std::map<int64_t, size_t> slot;
  for (size_t i = 0; i < ids.size(); ++i) {
    slot[ids[i]] = i;
  }
  // Likes and comments only grow: what an acknowledged write answered is a floor for every
  // later read.
  std::array<std::atomic<int64_t>, kArticles> acked_likes{};
  std::array<std::atomic<int64_t>, kArticles> acked_comments{};
  std::atomic<bool> stop{false}, writing{true};
  std::atomic<int> reads{0}, violations{0};
  std::mutex failures_mu;
  std::vector<std::string> failures;

  std::vector<std::thread> readers;
  for (int rd = 0; rd < 3; ++rd) {
    readers.emplace_back([&, rd] {
      auto client = Client();
      while (!stop.load()) {
        std::array<int64_t, kArticles> likes{}, counted{};
        for (int i = 0; i < kArticles; ++i) {
          likes[i] = acked_likes[i].load();
          counted[i] = acked_comments[i].load();
        }
        auto r = client.Get("/api/v1/articles?size=20",
                            rd == 2 ? Bearer(tokens_[0]) : HttpClient::Headers{});
        if (r.status != 200) {
          ++violations;
          continue;
        }
        if (writing.load()) {
          ++reads;
        }
        std::string why;
        const boost::json::value json = r.Json();
        for (const auto& item : json.at("items").as_array()) {
          auto it = slot.find(item.at("id").as_int64());
          if (it == slot.end()) {
            continue;
          }
          const int64_t l = item.at("likeCount").as_int64();
          const int64_t c = item.at("commentCount").as_int64();
          if (l < likes[it->second] || c < counted[it->second]) {
            why += " article " + std::to_string(it->first) + " shows " + std::to_string(l) +
                   " likes, " + std::to_string(c) + " comments < acknowledged " +
                   std::to_string(likes[it->second]) + ", " + std::to_string(counted[it->second]);
          }
        }
        if (!why.empty()) {
          ++violations;
          std::lock_guard lock(failures_mu);
          if (failures.size() < 5) {
            failures.push_back(why);
          }
        }
      }
    });
  }
  std::vector<std::thread> writers;
  for (int w = 0; w < 4; ++w) {
    writers.emplace_back([&, w] {
      auto client = Client();
      for (int u = w; u < kUsers; u += 4) {
        for (int i = 0; i < kArticles; ++i) {
          auto r = client.Put(ArticlePath(ids[i]) + "/like", "", Bearer(tokens_[u]));
          for (int k = 0; k < 3; ++k) {
            const std::string churn = ArticlePath(churned) + "/like";
            auto c = k % 2 == 0 ? client.Put(churn, "", Bearer(tokens_[u]))
                                : client.Delete(churn, Bearer(tokens_[u]));
            EXPECT_EQ(c.status, 200) << c.body;
          }
          if (r.status != 200) {
            continue;
          }
          const int64_t count = r.Json().at("likeCount").as_int64();
          int64_t seen = acked_likes[i].load();
          while (seen < count && !acked_likes[i].compare_exchange_weak(seen, count)) {
          }
        }
      }
      const auto deadline = std::chrono::steady_clock::now() + 20s;
      for (int k = 0; reads.load() < 60 && std::chrono::steady_clock::now() < deadline; ++k) {
        const std::string churn = ArticlePath(churned) + "/like";
        auto c = k % 2 == 0 ? client.Put(churn, "", Bearer(tokens_[w]))
                            : client.Delete(churn, Bearer(tokens_[w]));
        EXPECT_EQ(c.status, 200) << c.body;
      }
    });
  }
  writers.emplace_back([&] {
    auto client = Client();
    for (int n = 0; n < 18; ++n) {
      const int i = n % kArticles;
      auto r = client.Post(ArticlePath(ids[i]) + "/comments", R"({"body":"late"})",
                           Bearer(tokens_[n % kUsers]));
      if (r.status == 201) {
        ++acked_comments[i];
      }
    }
  });
  for (auto& t : writers) {
    t.join();
  }
  writing = false;
  stop = true;
  for (auto& t : readers) {
    t.join();
  }
  EXPECT_EQ(violations.load(), 0) << (failures.empty() ? "" : failures.front());
  EXPECT_GT(reads.load(), 50);
  const boost::json::value page = Client().Get("/api/v1/articles?size=20").Json();
  for (const auto& item : page.at("items").as_array()) {
    auto it = slot.find(item.at("id").as_int64());
    if (it == slot.end()) {
      continue;
    }
    EXPECT_EQ(item.at("likeCount").as_int64(), kUsers);
    EXPECT_EQ(item.at("commentCount").as_int64(), acked_comments[it->second].load());
  }
}

class ListViewsLagTest : public ListCacheTest {
 protected:
  ListViewsLagTest() { views_max_age_ms_ = 60'000; }
};

// With a views lag allowed, a kept page may show older view counts (that is all it saves),
// but a like, a comment or an edit still shows on the next read.
TEST_P(ListViewsLagTest, ViewCountsMayLagAndNothingElseDoes) {
  const int64_t id = NewArticle("viewed");
  const std::string list = "/api/v1/articles";
  ASSERT_EQ(Item(Client().Get(list).body, id).at("viewCount").as_int64(), 0);
  ASSERT_EQ(Client().Get(ArticlePath(id)).status, 200);  // a view
  const uint64_t hits = CacheHits();
  auto lagging = Item(Client().Get(list).body, id);
  EXPECT_EQ(lagging.at("viewCount").as_int64(), 0) << "the kept page was not served";
  EXPECT_EQ(CacheHits() - hits, 1u);
  ASSERT_EQ(Client().Put(ArticlePath(id) + "/like", "", Bearer(tokens_[0])).status, 200);
  auto liked = Item(Client().Get(list).body, id);
  EXPECT_EQ(liked.at("likeCount").as_int64(), 1);
  EXPECT_EQ(liked.at("viewCount").as_int64(), 1) << "a render shows the current views";
  ASSERT_EQ(Client().Patch(ArticlePath(id), R"({"title":"renamed"})", Bearer(admin_)).status, 200);
  EXPECT_EQ(Item(Client().Get(list).body, id).at("title").as_string(), "renamed");
}

// A Redis restored from an older snapshot counts the versions up again from the snapshot's
// numbers, over other changes: neither the kept page nor a browser's ETag of it may pass for
// the new state.
TEST_P(ListCacheTest, AnOlderRedisNeverServesAPageOfTheSameVersionNumbers) {
  PL_NEEDS_ONE_REDIS();
  const int64_t id = NewArticle("before the snapshot");
  ASSERT_EQ(Client().Get("/api/v1/articles").status, 200);
  const std::string snapshot = redis_.SaveSnapshot();
  ASSERT_EQ(Client().Put(ArticlePath(id) + "/like", "", Bearer(tokens_[1])).status, 200);
  auto liked = Client().Get("/api/v1/articles");
  ASSERT_EQ(Item(liked.body, id).at("likeCount").as_int64(), 1) << liked.body;
  const std::string etag = liked.Header("etag");
  redis_.RestartFrom(snapshot);  // the like (unflushed) is gone with it, versions and all
  // A comment takes the shard's version (and no other) to the number the like had taken it
  // to: the same numbers, another page.
  const std::string comments = ArticlePath(id) + "/comments";
  auto commented = Client().Post(comments, R"({"body":"after the restore"})", Bearer(tokens_[2]));
  for (int i = 0; i < 50 && commented.status == 503; ++i) {
    std::this_thread::sleep_for(100ms);  // reconnecting
    commented = Client().Post(comments, R"({"body":"after the restore"})", Bearer(tokens_[2]));
  }
  ASSERT_EQ(commented.status, 201) << commented.body;
  auto fresh = UncachedInstance();
  auto now = Client().Get("/api/v1/articles");
  EXPECT_EQ(now.body, fresh->Client().Get("/api/v1/articles").body);
  EXPECT_EQ(Item(now.body, id).at("commentCount").as_int64(), 1) << now.body;
  EXPECT_EQ(Client().Get("/api/v1/articles", {{"If-None-Match", etag}}).status, 200)
      << "a stale ETag was confirmed after the restore";
}

// An emptied Redis (FLUSHALL) restarts every version from nothing, on the same connection of
// the same server run: the numbers it counts up to must not match a kept page's.
TEST_P(ListCacheTest, AnEmptiedRedisNeverServesAKeptPage) {
  const int64_t id = NewArticle("kept");
  auto fresh = UncachedInstance();
  auto first = Client().Get("/api/v1/articles");
  ASSERT_EQ(first.status, 200);
  ASSERT_EQ(Client().Get("/api/v1/articles").body, first.body);  // kept
  ASSERT_EQ(redis_.Cli("FLUSHALL"), "OK");                       // sessions too: sign in again
  const std::string admin = Login("root", "rootpassword");
  const std::string reader = Login("reader2");
  // Changes SQL has and the emptied Redis will load: a like (counts load from SQL) and a
  // rename.
  ASSERT_EQ(Client().Put(ArticlePath(id) + "/like", "", Bearer(reader)).status, 200);
  ASSERT_EQ(Client().Patch(ArticlePath(id), R"({"title":"renamed after"})", Bearer(admin)).status,
            200);
  for (int i = 0; i < 3; ++i) {
    auto now = Client().Get("/api/v1/articles");
    ASSERT_EQ(now.status, 200) << now.body;
    EXPECT_EQ(now.body, fresh->Client().Get("/api/v1/articles").body) << "read " << i;
    EXPECT_EQ(Item(now.body, id).at("likeCount").as_int64(), 1);
  }
  // Versions restarted low are born again with random bases, far above what INCR reaches.
  for (const std::string& key :
       {std::string("pl:lv:{pub}"), "pl:lv:{l" + std::to_string(id % 256) + "}"}) {
    EXPECT_GE(std::stoll(redis_.Cli("GET '" + key + "'")), int64_t{1} << 40) << key;
  }
}

// Pages past the end are as many as anyone asks for: none is kept, so they cannot push the
// read ones out of the cache.
TEST_P(ListCacheTest, APagePastTheEndIsNotKept) {
  NewArticle("the only one");
  ASSERT_EQ(Client().Get("/api/v1/articles").status, 200);
  const auto pages = [this] {
    std::promise<size_t> p;
    net::post(app_->app().io(), [&] { p.set_value(app_->app().page_cache().size()); });
    return p.get_future().get();
  };
  const size_t kept = pages();
  for (int page = 2; page < 12; ++page) {
    auto r = Client().Get("/api/v1/articles?page=" + std::to_string(page));
    ASSERT_EQ(r.status, 200) << r.body;
    EXPECT_NE(r.body.find(R"("items":[])"), std::string::npos) << r.body;
  }
  EXPECT_EQ(pages(), kept);
}

// A Redis that refuses INFO (an ACL, a proxy) cannot say which server run it is: pages are
// rendered afresh rather than refused.
TEST_P(ListCacheTest, ARedisThatRefusesInfoStillServesPages) {
  const int64_t id = NewArticle("listed");
  ASSERT_EQ(redis_.Cli("ACL SETUSER default -info"), "OK");
  redis_.Cli("CLIENT KILL TYPE normal");  // plauditd reconnects: a new connection, asked again
  auto r = Client().Get("/api/v1/articles");
  for (int i = 0; i < 50 && r.status == 503; ++i) {
    std::this_thread::sleep_for(100ms);  // reconnecting
    r = Client().Get("/api/v1/articles");
  }
  EXPECT_EQ(r.status, 200) << r.body;
  EXPECT_FALSE(Item(r.body, id).empty()) << r.body;
  EXPECT_FALSE(r.Header("etag").empty());
  auto comments = Client().Get(ArticlePath(id) + "/comments");
  EXPECT_EQ(comments.status, 200) << comments.body;
  ASSERT_EQ(redis_.Cli("ACL SETUSER default +info"), "OK");
}

INSTANTIATE_TEST_SUITE_P(Databases, ListCacheTest, AllDbs(), DbName);
INSTANTIATE_TEST_SUITE_P(Databases, ListViewsLagTest, AllDbs(), DbName);

}  // namespace
}  // namespace plaudit::testing
