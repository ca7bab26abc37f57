// Rendered comment pages (render/page_cache.hpp) never show less than every write acknowledged
// before the read started, on SQLite and PostgreSQL:
// - a seeded random mix of likes, unlikes, top-level comments, replies, edits and deletes,
//   each followed by reads of several pages (and a replies page) on the caching instance
//   compared byte for byte
//   with a second instance on the same Redis and database that caches nothing (anonymous
//   and signed-in), and the page's previous ETag no longer answered with 304;
// - likes and replies from several threads while other threads read: each page shows at
//   least the like count and the total that were acknowledged before its request left.
#include <algorithm>
#include <atomic>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <chrono>
#include <cstdint>
#include <future>
#include <map>
#include <mutex>
#include <random>
#include <thread>

#include "api_test_base.hpp"
#include "redis/keys.hpp"

namespace plaudit::testing {
namespace {

class PageCacheTest : public ApiTest {
 protected:
  void Configure(config::Config& c) override { c.rate_limits = false; }

  void SetUp() override {
    ApiTest::SetUp();
    for (int i = 0; i < kUsers; ++i) {
      const std::string name = "reader" + std::to_string(i);
      Register(name);
      tokens_.push_back(Login(name));
    }
    auto r =
        Client().Post("/api/v1/articles", R"({"title":"t","content":"c","status":"published"})",
                      Bearer(Login("root", "rootpassword")));
    ASSERT_EQ(r.status, 201) << r.body;
    article_ = r.Json().at("id").as_int64();
  }

  std::string CommentsPath(const std::string& query = "") const {
    return "/api/v1/articles/" + std::to_string(article_) + "/comments" + query;
  }

  // Posts a comment as user `u` (a reply when `parent` is set); its id, 0 on failure.
  int64_t Post(int u, const std::string& body, int64_t parent = 0) {
    std::string json = R"({"body":")" + body + "\"";
    if (parent) {
      json += R"(,"parentId":)" + std::to_string(parent);
    }
    auto r = Client().Post(CommentsPath(), json + "}", Bearer(tokens_[u]));
    EXPECT_EQ(r.status, 201) << r.body;
    return r.status == 201 ? r.Json().at("id").as_int64() : 0;
  }

  static constexpr int kUsers = 16;
  std::vector<std::string> tokens_;
  int64_t article_ = 0;
};

TEST_P(PageCacheTest, CachedPagesEqualFreshRendersAfterEveryKindOfWrite) {
  auto fresh = UncachedInstance();
  std::mt19937 rng(20261202);
  struct Written {
    int64_t id;
    int author;
    int64_t parent;
  };
  std::vector<Written> comments;
  for (int i = 0; i < 4; ++i) {
    comments.push_back({Post(i, "seed " + std::to_string(i)), i, 0});
  }
  const std::vector<std::string> queries = {
      "",          "?sort=old&size=3&replies=2", "?sort=hot&size=2&page=2",
      "?sort=hot", "?sort=new&size=4&replies=0", "?sort=old&size=5&page=2&replies=5"};
  ASSERT_EQ(Client().Get(CommentsPath()).status, 200);  // the thread's cache is built
  std::map<std::string, std::string> etags;  // the last ETag each query was answered with
  const uint64_t hits_before = CacheHits();
  int stale_etags_checked = 0;
  int replies_checked = 0;
  for (int step = 0; step < 120; ++step) {
    const int u = static_cast<int>(rng() % kUsers);
    const Written& c = comments[rng() % comments.size()];
    const std::string target = "/api/v1/comments/" + std::to_string(c.id);
    std::string what;
    switch (rng() % 7) {
      case 0:
      case 1: {
        what = "like";
        auto r = Client().Put(target + "/like", "", Bearer(tokens_[u]));
        EXPECT_TRUE(r.status == 200 || r.status == 404) << r.status << " " << r.body;
        break;
      }
      case 2: {
        what = "unlike";
        auto r = Client().Delete(target + "/like", Bearer(tokens_[u]));
        EXPECT_TRUE(r.status == 200 || r.status == 404) << r.status << " " << r.body;
        break;
      }
      case 3:
        what = "comment";
        comments.push_back({Post(u, "top " + std::to_string(step)), u, 0});
        break;
      case 4: {
        what = "reply";
        const int64_t top = c.parent ? c.parent : c.id;
        auto r = Client().Post(CommentsPath(),
                               R"({"body":"reply )" + std::to_string(step) + R"(","parentId":)" +
                                   std::to_string(c.id) + "}",
                               Bearer(tokens_[u]));
        if (r.status == 201) {
          comments.push_back({r.Json().at("id").as_int64(), u, top});
        }
        EXPECT_TRUE(r.status == 201 || r.status == 400) << r.body;  // 400: a deleted parent
        break;
      }
      case 5: {
        what = "edit";
        auto r = Client().Patch(target, R"({"body":"edited )" + std::to_string(step) + "\"}",
                                Bearer(tokens_[c.author]));
        EXPECT_TRUE(r.status == 200 || r.status == 404) << r.body;
        break;
      }
      default: {
        what = "delete";
        auto r = Client().Delete(target, Bearer(tokens_[c.author]));
        EXPECT_TRUE(r.status == 204 || r.status == 404) << r.body;
      }
    }
    for (int k = 0; k < 2; ++k) {
      const std::string& q = queries[rng() % queries.size()];
      auto a = Client().Get(CommentsPath(q));
      auto b = fresh->Client().Get(CommentsPath(q));
      ASSERT_EQ(a.status, 200) << a.body;
      EXPECT_EQ(a.body, b.body) << "step " << step << " after " << what << ", query '" << q << "'";
      // Read twice: the second comes from the cache and must be the same.
      auto again = Client().Get(CommentsPath(q));
      EXPECT_EQ(again.body, b.body) << "step " << step << " (cached) after " << what;
      const std::string signed_in = tokens_[rng() % kUsers];
      auto sa = Client().Get(CommentsPath(q), Bearer(signed_in));
      auto sb = fresh->Client().Get(CommentsPath(q), Bearer(signed_in));
      EXPECT_EQ(sa.body, sb.body) << "step " << step << " signed in, after " << what;
      EXPECT_EQ(sa.Header("cache-control"), "private, no-store");
      EXPECT_TRUE(sa.Header("etag").empty());
      // The ETag this query had before the write names an older page: no 304 for it.
      std::string etag = a.Header("etag");
      // A page answered while its thread's cache is being rebuilt carries no ETag (no
      // version to name). The second instance's Redis check may have emptied the cache just
      // now (it repairs the cache marks of writes committed in SQL, whether or not their own
      // Redis step is still on its way): read until the rebuilt thread names one.
      for (int tries = 0; etag.empty() && tries < 50; ++tries) {
        etag = Client().Get(CommentsPath(q)).Header("etag");
      }
      ASSERT_FALSE(etag.empty()) << "step " << step << ": no ETag after 50 reads";
      if (auto it = etags.find(q); it != etags.end() && it->second != etag) {
        auto old = Client().Get(CommentsPath(q), {{"If-None-Match", it->second}});
        EXPECT_EQ(old.status, 200) << "step " << step << ": a stale ETag was confirmed";
        ++stale_etags_checked;
      }
      auto same = Client().Get(CommentsPath(q), {{"If-None-Match", etag}});
      std::string current = etag;
      if (same.status == 200) {
        // Allowed only if the page's version moved meanwhile: the second instance's Redis
        // check may rebuild the thread from SQL (it repairs the cache marks of writes that
        // committed, whether or not their own Redis step is still on its way), which gives
        // the page a new birth and so a new ETag. The ETag it answered with must then differ,
        // and be confirmed in turn.
        current = same.Header("etag");
        EXPECT_NE(current, etag) << "step " << step << ": 200 for the page's own ETag";
        same = Client().Get(CommentsPath(q), {{"If-None-Match", current}});
      }
      EXPECT_EQ(same.status, 304) << "step " << step;
      EXPECT_TRUE(same.body.empty());
      etags[q] = current;
    }
    // A replies page of a comment (a reply's: always empty) the same way.
    const Written& of = comments[rng() % comments.size()];
    const std::vector<std::string> reply_queries = {"", "?sort=new&size=2", "?sort=hot",
                                                    "?sort=old&size=1&page=2"};
    const std::string replies = "/api/v1/comments/" + std::to_string(of.id) + "/replies" +
                                reply_queries[rng() % reply_queries.size()];
    auto ra = Client().Get(replies);
    auto rb = fresh->Client().Get(replies);
    EXPECT_EQ(ra.status, rb.status) << replies;
    EXPECT_EQ(ra.body, rb.body) << "step " << step << " after " << what << ": " << replies;
    EXPECT_EQ(Client().Get(replies).body, rb.body) << "step " << step << " (cached) " << replies;
    const std::string& reader = tokens_[rng() % kUsers];
    EXPECT_EQ(Client().Get(replies, Bearer(reader)).body,
              fresh->Client().Get(replies, Bearer(reader)).body)
        << "step " << step << " signed in: " << replies;
    if (ra.status == 200) {
      ++replies_checked;
      if (auto it = etags.find(replies); it != etags.end() && it->second != ra.Header("etag")) {
        EXPECT_EQ(Client().Get(replies, {{"If-None-Match", it->second}}).status, 200)
            << "step " << step << ": a stale replies ETag was confirmed";
      }
      // As for the comment pages above: the second instance's check may rebuild the thread
      // meanwhile (a new birth, a new ETag, or none while it rebuilds); read until a page
      // names one, and a 200 for the page's own ETag must name another, confirmed in turn.
      std::string etag = ra.Header("etag");
      for (int tries = 0; etag.empty() && tries < 50; ++tries) {
        etag = Client().Get(replies).Header("etag");
      }
      ASSERT_FALSE(etag.empty()) << "step " << step << ": no replies ETag after 50 reads";
      auto same = Client().Get(replies, {{"If-None-Match", etag}});
      std::string current = etag;
      if (same.status == 200) {
        current = same.Header("etag");
        EXPECT_NE(current, etag) << "step " << step << ": 200 for the replies page's own ETag";
        same = Client().Get(replies, {{"If-None-Match", current}});
      }
      EXPECT_EQ(same.status, 304) << "step " << step << ": " << replies;
      etags[replies] = current;
    }
  }
  EXPECT_GT(replies_checked, 60);
  EXPECT_GT(CacheHits() - hits_before, 100u) << "the cache was hardly used: the test shows little";
  EXPECT_GT(stale_etags_checked, 20);
}

TEST_P(PageCacheTest, ReadsShowEveryLikeAndReplyAcknowledgedBeforeThey) {
  constexpr int kComments = 10;
  std::vector<int64_t> ids;
  for (int i = 0; i < kComments; ++i) {
    ids.push_back(Post(i % kUsers, "c" + std::to_string(i)));
  }
  // Liked and unliked all along (never checked): every page in between is a new version.
  const int64_t churned = Post(0, "churned");
  std::map<int64_t, size_t> slot;
  for (size_t i = 0; i < ids.size(); ++i) {
    slot[ids[i]] = i;
  }
  // Likes only (each user likes each comment once): counts only grow, so "the count an
  // acknowledged like answered" is a floor for every later read.
  std::array<std::atomic<int64_t>, kComments> acked_likes{};
  std::atomic<int64_t> acked_total{kComments + 1};
  std::atomic<bool> stop{false};
  std::atomic<int> reads{0}, violations{0};
  std::atomic<bool> writing{true};
  std::mutex failures_mu;
  std::vector<std::string> failures;

  std::vector<std::thread> readers;
  for (int rd = 0; rd < 3; ++rd) {
    readers.emplace_back([&, rd] {
      auto client = Client();
      while (!stop.load()) {
        std::array<int64_t, kComments> floor{};
        for (int i = 0; i < kComments; ++i) {
          floor[i] = acked_likes[i].load();
        }
        const int64_t total_floor = acked_total.load();
        // Oldest first, 30 a page: the ten liked comments are the first ten items.
        auto r = client.Get(CommentsPath("?sort=old&size=30&replies=0"),
                            rd == 2 ? Bearer(tokens_[0]) : HttpClient::Headers{});
        if (r.status != 200) {
          ++violations;
          continue;
        }
        if (writing.load()) {
          ++reads;  // reads that overlapped the writes
        }
        auto page = r.Json().as_object();
        std::string why;
        if (page.at("total").as_int64() < total_floor) {
          why = "total " + std::to_string(page.at("total").as_int64()) + " < acknowledged " +
                std::to_string(total_floor);
        }
        for (const auto& item : page.at("items").as_array()) {
          auto it = slot.find(item.at("id").as_int64());
          if (it == slot.end()) {
            continue;
          }
          const int64_t shown = item.at("likeCount").as_int64();
          if (shown < floor[it->second]) {
            why += " comment " + std::to_string(it->first) + " shows " + std::to_string(shown) +
                   " likes < acknowledged " + std::to_string(floor[it->second]);
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
  std::vector<std::thread> threads;
  for (int w = 0; w < 4; ++w) {
    threads.emplace_back([&, w] {
      auto client = Client();
      for (int u = w; u < kUsers; u += 4) {
        for (int i = 0; i < kComments; ++i) {
          auto r = client.Put("/api/v1/comments/" + std::to_string(ids[i]) + "/like", "",
                              Bearer(tokens_[u]));
          for (int k = 0; k < 4; ++k) {
            const std::string churn = "/api/v1/comments/" + std::to_string(churned) + "/like";
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
      // Then churn on until the readers have overlapped enough writes (bounded).
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
      for (int k = 0; reads.load() < 60 && std::chrono::steady_clock::now() < deadline; ++k) {
        const std::string churn = "/api/v1/comments/" + std::to_string(churned) + "/like";
        auto c = k % 2 == 0 ? client.Put(churn, "", Bearer(tokens_[w]))
                            : client.Delete(churn, Bearer(tokens_[w]));
        EXPECT_EQ(c.status, 200) << c.body;
      }
    });
  }
  threads.emplace_back([&] {
    auto client = Client();
    for (int i = 0; i < 12; ++i) {
      auto r = client.Post(CommentsPath(), R"({"body":"late )" + std::to_string(i) + "\"}",
                           Bearer(tokens_[i % kUsers]));
      if (r.status == 201) {
        ++acked_total;
      }
    }
  });
  for (auto& t : threads) {
    t.join();
  }
  writing = false;
  stop = true;
  for (auto& t : readers) {
    t.join();
  }
  EXPECT_EQ(violations.load(), 0) << (failures.empty() ? "" : failures.front());
  EXPECT_GT(reads.load(), 50);
  // Every like landed and the page says so.
  auto page = Client().Get(CommentsPath("?sort=old&size=30&replies=0")).Json().as_object();
  for (const auto& item : page.at("items").as_array()) {
    if (slot.count(item.at("id").as_int64())) {
      EXPECT_EQ(item.at("likeCount").as_int64(), kUsers);
    }
  }
  EXPECT_EQ(page.at("total").as_int64(), acked_total.load());
}

// A signed-in reader's flags are kept with the page for the reader's next request at its
// version (render::RenderedPage::readers): that asks Redis nothing more than the version, and
// every change of a like state in the thread moves the version, even a like and an unlike of
// one comment that leave its count as it was (like_set.lua).
class PageCacheQuietTest : public PageCacheTest {
 protected:
  void Configure(config::Config& c) override {
    PageCacheTest::Configure(c);
    c.flush_interval_ms = 3'600'000;  // no background pass: round trips are the reads' own
  }
};

TEST_P(PageCacheQuietTest, ASignedInReadersFlagsAreKeptForItsVersionAndFollowEveryLikeChange) {
  PL_COUNTS_ONE_INSTANCE();
  const int64_t u2 = Register("flags2"), u3 = Register("flags3");
  const std::string t2 = Login("flags2"), t3 = Login("flags3");
  const int64_t c0 = Post(1, "c0"), c1 = Post(1, "c1");
  ASSERT_NE(c1, 0);
  auto like = [&](const std::string& token, int64_t id) {
    ASSERT_EQ(
        Client().Put("/api/v1/comments/" + std::to_string(id) + "/like", "", Bearer(token)).status,
        200);
  };
  like(tokens_[0], c0);
  like(t2, c1);
  // The reader's flags of c0 and c1 as its page shows them.
  auto flags = [&](const std::string& token) {
    auto r = Client().Get(CommentsPath("?sort=old&size=10&replies=0"), Bearer(token));
    EXPECT_EQ(r.status, 200) << r.body;
    std::map<int64_t, std::pair<bool, int64_t>> out;
    if (r.status == 200) {
      const boost::json::value json = r.Json();  // not a temporary the loop outlives
      for (const auto& item : json.at("items").as_array()) {
        out[item.at("id").as_int64()] = {item.at("liked").as_bool(),
                                         item.at("likeCount").as_int64()};
      }
    }
    return out;
  };
  auto round_trips = [&](const std::string& token) {
    std::promise<uint64_t> before;
    net::post(app_->app().io(),
              [&] { before.set_value(app_->app().redis().stats().batches_flushed); });
    const uint64_t b = before.get_future().get();
    flags(token);
    std::promise<uint64_t> after;
    net::post(app_->app().io(),
              [&] { after.set_value(app_->app().redis().stats().batches_flushed); });
    return after.get_future().get() - b;
  };
  flags(tokens_[5]);                               // renders the page at this version
  const uint64_t first = round_trips(tokens_[0]);  // the version, the flags (and loads)
  const uint64_t again = round_trips(tokens_[0]);  // the version alone
  EXPECT_GT(first, again);
  EXPECT_EQ(again, 1u);
  EXPECT_EQ(flags(tokens_[0])[c0], std::make_pair(true, int64_t{1}));
  EXPECT_EQ(flags(t3)[c1], std::make_pair(false, int64_t{1}));  // kept for flags3 too

  // One like_set.lua call for c1 with flags3's like and flags2's unlike (the queue of a
  // target's likes while a call for it is in flight: flags2's repeated like, a no-op): the
  // count stays 1; the version moves once, for the call that changed states.
  const std::string meta = redis::keys::CommentMeta(article_);
  const int64_t v0 = std::stoll(redis_.Cli("HGET " + meta + " v"));
  std::function<Awaitable<Status>()> batch = [&]() -> Awaitable<Status> {
    using namespace boost::asio::experimental::awaitable_operators;
    redis::LikeStore& store = app_->app().like_store();
    const redis::HotOrder hot{article_, std::nullopt};
    const model::Target t = model::Target::Comment(c1);
    auto a = store.Set(t, u2, true, &hot, false);
    auto b = store.Set(t, u3, true, &hot, false);
    auto c = store.Set(t, u2, false, &hot, false);
    auto all = co_await (std::move(a) && std::move(b) && std::move(c));
    PL_CO_CHECK(std::get<0>(all));
    PL_CO_CHECK(std::get<1>(all));
    PL_CO_CHECK(std::get<2>(all));
    co_return Status{};
  };
  ASSERT_TRUE(OnLoop(batch()));
  EXPECT_EQ(std::stoll(redis_.Cli("HGET " + meta + " v")), v0 + 1);
  EXPECT_EQ(flags(t3)[c1], std::make_pair(true, int64_t{1}));
  EXPECT_EQ(flags(t2)[c1], std::make_pair(false, int64_t{1}));
}

// A Redis restored from an older snapshot may count a thread's version up to a number it
// had before, over other changes: a browser's ETag from before the restore must not be
// confirmed for the new page, nor the old page served from this process's cache.
TEST_P(PageCacheTest, AnOlderRedisNeverConfirmsAPageOfTheSameVersionNumber) {
  PL_NEEDS_ONE_REDIS();
  const int64_t id = Post(0, "liked after the snapshot");
  auto first = Client().Get(CommentsPath());  // builds the thread's cache
  ASSERT_EQ(first.status, 200);
  const std::string snapshot = redis_.SaveSnapshot();
  const std::string like = "/api/v1/comments/" + std::to_string(id) + "/like";
  ASSERT_EQ(Client().Put(like, "", Bearer(tokens_[1])).status, 200);
  auto liked = Client().Get(CommentsPath());
  const std::string etag = liked.Header("etag");
  ASSERT_FALSE(etag.empty());
  ASSERT_NE(liked.body.find(R"("likeCount":1)"), std::string::npos) << liked.body;
  // Not flushed: the restored Redis is older, but no shard says so (nothing of it reached
  // SQL), so the thread's cache stays as the snapshot had it, version number and all.
  redis_.RestartFrom(snapshot);
  // Another change takes the version to the number it had: the page differs.
  auto edited = Client().Patch("/api/v1/comments/" + std::to_string(id),
                               R"({"body":"edited after the restore"})", Bearer(tokens_[0]));
  for (int i = 0; i < 50 && edited.status == 503; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));  // reconnecting
    edited = Client().Patch("/api/v1/comments/" + std::to_string(id),
                            R"({"body":"edited after the restore"})", Bearer(tokens_[0]));
  }
  ASSERT_EQ(edited.status, 200) << edited.body;
  auto revalidated = Client().Get(CommentsPath(), {{"If-None-Match", etag}});
  EXPECT_EQ(revalidated.status, 200) << "a stale ETag was confirmed after the restore";
  EXPECT_NE(revalidated.body.find("edited after the restore"), std::string::npos)
      << revalidated.body;
}

// What shared caches are told: a public page may be kept s-maxage by a CDN, browsers always
// revalidate (stale-while-revalidate goes to CDNs alone: browsers honour it too), and a 304
// confirms the representation the client named.
TEST_P(PageCacheTest, SharedCachesAreToldWhatTheyMayKeepAndA304NamesTheClientsCopy) {
  for (int i = 0; i < 12; ++i) {
    Post(i % kUsers, "a comment long enough to make the page gzip");
  }
  ASSERT_EQ(Client().Get(CommentsPath()).status, 200);  // the thread's cache is built
  auto plain = Client().Get(CommentsPath());
  ASSERT_EQ(plain.status, 200);
  EXPECT_EQ(plain.Header("cache-control"), "public, max-age=0, s-maxage=1");
  EXPECT_EQ(plain.Header("cdn-cache-control"), "max-age=1, stale-while-revalidate=10");
  EXPECT_EQ(plain.Header("vary"), "Origin, Accept-Encoding, Authorization, Cookie");
  auto zipped = Client().Get(CommentsPath(), {{"Accept-Encoding", "gzip"}});
  ASSERT_EQ(zipped.Header("content-encoding"), "gzip");
  const std::string etag = plain.Header("etag");
  const std::string gz_etag = zipped.Header("etag");
  ASSERT_NE(etag, gz_etag);
  auto r = Client().Get(CommentsPath(), {{"If-None-Match", etag}, {"Accept-Encoding", "gzip"}});
  EXPECT_EQ(r.status, 304);
  EXPECT_EQ(r.Header("etag"), etag);
  r = Client().Get(CommentsPath(), {{"If-None-Match", gz_etag}});
  EXPECT_EQ(r.status, 304);
  EXPECT_EQ(r.Header("etag"), gz_etag);
  EXPECT_EQ(r.Header("cache-control"), "public, max-age=0, s-maxage=1");
  // An error is kept by no cache (a 404 is cacheable by default: a draft published later).
  auto missing = Client().Get("/api/v1/articles/999999/comments");
  EXPECT_EQ(missing.status, 404);
  EXPECT_EQ(missing.Header("cache-control"), "no-store");
}

// A thread cache built before versions existed (its meta says ready, without b and v) gets a
// version on its next read and is cached from then on.
TEST_P(PageCacheTest, AThreadCachedByAnEarlierReleaseGetsAVersion) {
  Post(0, "old");
  ASSERT_EQ(Client().Get(CommentsPath()).status, 200);
  const std::string meta =
      "pl:cmeta:{l" + std::to_string(article_ % 256) + "}:" + std::to_string(article_);
  ASSERT_EQ(redis_.Cli("HGET '" + meta + "' state"), "ready");
  redis_.Cli("HDEL '" + meta + "' b v");
  auto first = Client().Get(CommentsPath());
  EXPECT_EQ(first.status, 200);
  EXPECT_TRUE(first.Header("etag").empty());  // rendered for this reader only
  const uint64_t hits = CacheHits();
  auto second = Client().Get(CommentsPath());
  auto third = Client().Get(CommentsPath());
  EXPECT_FALSE(second.Header("etag").empty());
  EXPECT_EQ(third.body, first.body);
  EXPECT_EQ(CacheHits() - hits, 1u) << "the third read came from the cache";
  // /metrics shows the cache as of the last flush pass.
  ASSERT_TRUE(OnLoop(app_->app().flusher().FlushNow()));
  const std::string m = Client().Get("/metrics").body;
  EXPECT_NE(m.find("plaudit_page_cache_lookups_total{result=\"hit\"} "), std::string::npos) << m;
  EXPECT_EQ(m.find("plaudit_page_cache_lookups_total{result=\"hit\"} 0\n"), std::string::npos);
  EXPECT_NE(m.find("plaudit_page_cache_pages 1\n"), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(Databases, PageCacheTest, AllDbs(), DbName);
INSTANTIATE_TEST_SUITE_P(Databases, PageCacheQuietTest, AllDbs(), DbName);

}  // namespace
}  // namespace plaudit::testing
