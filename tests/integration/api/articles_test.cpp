// API.md "Articles and posts" over real HTTP, on SQLite and PostgreSQL, with Redis lost at
// awkward moments.
#include <algorithm>
#include <atomic>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <future>
#include <set>
#include <thread>

#include "api_test_base.hpp"
#include "redis/keys.hpp"
#include "support/process.hpp"

namespace plaudit::testing {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

class ArticlesTest : public ApiTest {
 protected:
  void SetUp() override {
    ApiTest::SetUp();
    admin_ = Login("root", "rootpassword");
    author_id_ = Register("writer");
    auto c = Client();
    ASSERT_EQ(c.Patch("/api/v1/users/" + std::to_string(author_id_), R"({"role":"author"})",
                      Bearer(admin_))
                  .status,
              200);
    author_ = Login("writer");
    Register("reader");
    reader_ = Login("reader");
  }

  boost::json::object Create(const std::string& token, const std::string& body, int expect = 201) {
    auto r = Client().Post("/api/v1/articles", body, Bearer(token));
    EXPECT_EQ(r.status, expect) << body << " → " << r.body;
    return r.status == 201 ? r.Json().as_object() : boost::json::object{};
  }

  int64_t CreatePublished(const std::string& title, const std::string& kind = "article",
                          const std::string& token = "") {
    auto o = Create(token.empty() ? author_ : token,
                    R"({"title":")" + title + R"(","content":"<p>)" + title +
                        R"(</p>","status":"published","kind":")" + kind + R"("})");
    return o.contains("id") ? o.at("id").as_int64() : 0;
  }

  std::vector<int64_t> ListIds(const std::string& query, int64_t* total = nullptr) {
    auto r = Client().Get("/api/v1/articles" + query);
    EXPECT_EQ(r.status, 200) << r.body;
    std::vector<int64_t> ids;
    if (r.status != 200) {
      return ids;
    }
    auto json = r.Json();  // the range-for must not iterate into a destroyed temporary
    for (const auto& item : json.at("items").as_array()) {
      ids.push_back(item.at("id").as_int64());
      EXPECT_FALSE(item.as_object().contains("content"));  // list items carry no body
    }
    if (total) {
      *total = json.at("total").as_int64();
    }
    return ids;
  }

  // Sessions live in Redis only: after FLUSHALL everyone logs in again.
  void FlushAllRedis() {
    ASSERT_EQ(redis_.Cli("FLUSHALL"), "OK");
    admin_ = Login("root", "rootpassword");
    author_ = Login("writer");
    reader_ = Login("reader");
  }

  void Flush() {
    auto fut = net::co_spawn(app_->app().io(), app_->app().flusher().FlushNow(), net::use_future);
    ASSERT_TRUE(fut.get());
  }

  // The view count in the article's cache hash (-1 if it is not cached).
  int64_t RedisViews(int64_t id) {
    const std::string v = redis_.Cli("HGET " + redis::keys::Article(id) + " views");
    return v.empty() ? -1 : std::stoll(v);
  }

  // The article as SQL has it now, with its content: what a fill reads.
  sql::ArticleRow SqlRow(int64_t id) {
    sql::ArticleTable table(app_->app().store());
    auto row = OnLoop(table.Find(id, /*with_content=*/true));
    EXPECT_TRUE(row && *row);
    return row && *row ? **row : sql::ArticleRow{};
  }

  // A fill of the article's cache from `row`, as LoadIntoCache or a list page's Hydrate
  // does after a miss, racing with whatever changed since the row was read.
  // Returns what the fill found.
  redis::ArticleCache::Filled::State FillFrom(const sql::ArticleRow& row, bool with_body) {
    redis::ArticleCache cache(app_->app().redis());
    auto token = OnLoop(cache.FillToken(row.id));
    if (token &&
        !*token) {  // emptied since the last check (the test's FLUSHALL): as the service does
      EXPECT_TRUE(OnLoop(app_->app().redis_check().Recheck()));
      token = OnLoop(cache.FillToken(row.id));
    }
    EXPECT_TRUE(token && *token);
    auto filled = OnLoop(
        cache.Fill(row, token && *token ? **token : "", with_body ? &*row.content : nullptr));
    EXPECT_TRUE(filled) << filled.error().message;
    return filled ? filled->state : redis::ArticleCache::Filled::State::kUnchecked;
  }

  std::string admin_, author_, reader_;
  int64_t author_id_ = 0;
};

TEST_P(ArticlesTest, LifecycleWithDraftVisibilityPublishAndDelete) {
  auto a = Create(author_, R"({"title":"  Hello  ","content":"<p>Hi <b>there</b></p>"})");
  ASSERT_TRUE(a.contains("id"));
  int64_t id = a.at("id").as_int64();
  EXPECT_EQ(a.at("kind").as_string(), "article");  // an author's default
  EXPECT_EQ(a.at("status").as_string(), "draft");
  EXPECT_EQ(a.at("title").as_string(), "Hello");
  EXPECT_EQ(a.at("content").as_string(), "<p>Hi <b>there</b></p>");
  EXPECT_EQ(a.at("summary").as_string(), "Hi there");
  EXPECT_TRUE(a.at("publishedAt").is_null());
  EXPECT_EQ(a.at("author").at("username").as_string(), "writer");
  EXPECT_EQ(a.at("liked").as_bool(), false);
  std::string path = "/api/v1/articles/" + std::to_string(id);

  auto c = Client();
  EXPECT_EQ(c.Get(path).status, 404);  // a draft is hidden from others
  EXPECT_EQ(c.Get(path, Bearer(reader_)).status, 404);
  EXPECT_EQ(c.Get(path, Bearer(author_)).status, 200);
  EXPECT_EQ(c.Get(path, Bearer(admin_)).status, 200);

  auto r = c.Patch(path, R"({"status":"published"})", Bearer(author_));
  ASSERT_EQ(r.status, 200) << r.body;
  std::string published_at(r.Json().at("publishedAt").as_string());
  EXPECT_EQ(published_at.size(), 24u);
  r = c.Get(path);
  ASSERT_EQ(r.status, 200);
  EXPECT_EQ(r.Json().at("content").as_string(), "<p>Hi <b>there</b></p>");

  // Unpublish and publish again: publishedAt is the first publication's.
  EXPECT_EQ(c.Patch(path, R"({"status":"draft"})", Bearer(author_)).status, 200);
  EXPECT_EQ(c.Get(path).status, 404);
  r = c.Patch(path, R"({"status":"published","title":"Hello again"})", Bearer(author_));
  EXPECT_EQ(r.Json().at("publishedAt").as_string(), published_at);
  EXPECT_EQ(c.Get(path).Json().at("title").as_string(), "Hello again");

  EXPECT_EQ(c.Delete(path, Bearer(reader_)).status, 403);
  EXPECT_EQ(c.Delete(path, Bearer(author_)).status, 204);
  EXPECT_EQ(c.Get(path).status, 404);
  EXPECT_EQ(c.Get(path, Bearer(admin_)).status, 404);
  EXPECT_EQ(c.Delete(path, Bearer(author_)).status, 404);
  EXPECT_TRUE(ListIds("").empty());
}

// Issue 25, item 1: two PATCHes of one article at once each change their own fields; neither
// writes back what it read of the other's (a title edit racing a comments switch or an
// unpublish used to keep one of the two).
// Emoji (4-byte UTF-8) and CJK survive the durable record of every database: written through
// the API, read back after Redis lost everything, so from SQL (MySQL's utf8mb4, issue 45).
TEST_P(ArticlesTest, EmojiAndCjkComeBackFromSql) {
  auto c = Client();
  const std::string title = "評論 😀 标题";
  const std::string content = "<p>内容 🎉 テスト</p>";
  auto created = Create(author_, R"({"title":")" + title + R"(","content":")" + content +
                                     R"(","status":"published"})");
  ASSERT_TRUE(created.contains("id"));
  const std::string path = "/api/v1/articles/" + std::to_string(created.at("id").as_int64());
  const std::string body = "回复 😀👍 ok";
  auto posted = c.Post(path + "/comments", R"({"body":")" + body + R"("})", Bearer(reader_));
  ASSERT_EQ(posted.status, 201) << posted.body;
  Flush();
  FlushAllRedis();
  auto a = c.Get(path);
  ASSERT_EQ(a.status, 200) << a.body;
  EXPECT_EQ(a.Json().at("title").as_string(), title);
  EXPECT_EQ(a.Json().at("content").as_string(), content);
  auto list = c.Get(path + "/comments");
  ASSERT_EQ(list.status, 200) << list.body;
  const auto json = list.Json();
  const auto& items = json.at("items").as_array();
  ASSERT_EQ(items.size(), 1u) << list.body;
  EXPECT_EQ(items[0].at("body").as_string(), body);
}

TEST_P(ArticlesTest, ConcurrentPatchesOfOneArticleKeepEveryChange) {
  for (int round = 0; round < 15; ++round) {
    const int64_t id = CreatePublished("Race " + std::to_string(round));
    const std::string path = "/api/v1/articles/" + std::to_string(id);
    const std::string title = "Renamed " + std::to_string(round);
    const std::string other = round % 2 ? R"({"allowComments":false})" : R"({"status":"draft"})";
    int first = 0, second = 0;
    std::thread a([&] {
      first = Client().Patch(path, R"({"title":")" + title + R"("})", Bearer(author_)).status;
    });
    std::thread b([&] { second = Client().Patch(path, other, Bearer(author_)).status; });
    a.join();
    b.join();
    ASSERT_EQ(first, 200);
    ASSERT_EQ(second, 200);
    // SQL, the record. (What the cache shows after two concurrent Redis steps is item 2's
    // versioned hash, not yet done: the two steps may land in either order.)
    const sql::ArticleRow row = SqlRow(id);
    EXPECT_EQ(row.title, title) << "round " << round;
    if (round % 2) {
      EXPECT_FALSE(row.allow_comments) << "round " << round;
      EXPECT_EQ(model::StatusName(row.status), "published") << "round " << round;
    } else {
      EXPECT_EQ(model::StatusName(row.status), "draft") << "round " << round;
      EXPECT_TRUE(row.allow_comments) << "round " << round;
    }
    // And the cache, whatever order the two Redis steps landed in (item 2: versioned).
    auto mine = Client().Get(path, Bearer(author_));
    ASSERT_EQ(mine.status, 200) << mine.body;
    EXPECT_EQ(mine.Json().at("title").as_string(), title) << "round " << round;
    EXPECT_EQ(mine.Json().at("status").as_string(), model::StatusName(row.status))
        << "round " << round;
    EXPECT_EQ(mine.Json().at("allowComments").as_bool(), row.allow_comments) << "round " << round;
    EXPECT_EQ(Client().Get(path).status, model::StatusName(row.status) == "draft" ? 404 : 200)
        << "round " << round;
  }
}

// Issue 25, item 2: the Redis step of an older write that lands after a newer write's step
// is dropped (the row's version orders them). Here a publish's step is held back until an
// unpublish committed and cached the draft: the late step used to make the hash and the list
// say published, and anonymous readers got the draft.
TEST_P(ArticlesTest, AnOlderWritesLateRedisStepNeverOverwritesANewerOne) {
  auto draft = Create(author_, R"({"title":"held back","content":"<p>secret</p>"})");
  ASSERT_TRUE(draft.contains("id"));
  const int64_t id = draft.at("id").as_int64();
  const std::string path = "/api/v1/articles/" + std::to_string(id);
  std::atomic<int> calls{0};
  std::atomic<bool> held{false}, release{false};
  app_->app().write_faults().before_article_reflect = [&](int64_t) -> Awaitable<void> {
    if (calls.fetch_add(1) != 0) {
      co_return;
    }
    held = true;
    auto ex = co_await net::this_coro::executor;
    while (!release) {
      net::steady_timer tick(ex, std::chrono::milliseconds(1));
      co_await tick.async_wait(net::use_awaitable);
    }
  };
  int published = 0;
  std::thread publish([&] {
    published = Client().Patch(path, R"({"status":"published"})", Bearer(author_)).status;
  });
  ASSERT_TRUE(WaitFor([&] { return held.load(); }, 5s));
  EXPECT_EQ(Client().Patch(path, R"({"status":"draft"})", Bearer(author_)).status, 200);
  release = true;
  publish.join();
  app_->app().write_faults().before_article_reflect = nullptr;
  EXPECT_EQ(published, 200);
  EXPECT_EQ(model::StatusName(SqlRow(id).status), "draft");
  EXPECT_EQ(Client().Get(path).status, 404);  // anonymous: the draft stays hidden
  EXPECT_EQ(Client().Get(path, Bearer(author_)).Json().at("status").as_string(), "draft");
  EXPECT_TRUE(ListIds("").empty());
  EXPECT_TRUE(ListIds("?kind=article").empty());
}

// Issue 25, item 3: a fill that read the row before a DELETE lands after it. It used to
// cache the deleted article again, answering 200 forever; the delete's floor refuses it.
TEST_P(ArticlesTest, AFillOfARowReadBeforeADeleteNeverCachesItAgain) {
  const int64_t id = CreatePublished("deleted meanwhile");
  const std::string path = "/api/v1/articles/" + std::to_string(id);
  auto c = Client();
  ASSERT_EQ(c.Get(path).status, 200);
  const sql::ArticleRow stale = SqlRow(id);
  ASSERT_EQ(c.Delete(path, Bearer(author_)).status, 204);
  using State = redis::ArticleCache::Filled::State;
  EXPECT_EQ(FillFrom(stale, /*with_body=*/true), State::kGone);
  EXPECT_EQ(FillFrom(stale, /*with_body=*/false), State::kGone);
  EXPECT_EQ(redis_.Cli("EXISTS " + redis::keys::Article(id)), "0");
  EXPECT_EQ(c.Get(path).status, 404);
  EXPECT_EQ(c.Get(path, Bearer(author_)).status, 404);
  EXPECT_TRUE(ListIds("").empty());
}

// A fill of a row read before a comment write, landing after that write's count step found no
// hash: the fill used to cache the older count, which stayed until the article's next comment.
// The count's step leaves its version in the floor, and the fill reads SQL again.
TEST_P(ArticlesTest, AFillOfARowReadBeforeACommentCannotCacheTheOlderCount) {
  const int64_t id = CreatePublished("counted");
  const sql::ArticleRow stale = SqlRow(id);                       // 0 comments
  ASSERT_EQ(redis_.Cli("DEL " + redis::keys::Article(id)), "1");  // evicted
  redis::ArticleCache cache(app_->app().redis());
  ASSERT_TRUE(OnLoop(cache.SetCommentCount(id, 1, stale.comment_ver + 1)));
  EXPECT_EQ(FillFrom(stale, /*with_body=*/false), redis::ArticleCache::Filled::State::kStale);
  EXPECT_EQ(redis_.Cli("EXISTS " + redis::keys::Article(id)), "0");
}

// A reader that found the hash published (with no body cached) fetches the body from SQL,
// where an unpublish has meanwhile put a draft with new content: the body must not go out
// under the older hash's check. Here the hash the reader saw is put back by hand.
TEST_P(ArticlesTest, ABodyReadAfterAnUnpublishIsNotServedUnderTheOlderHash) {
  const int64_t id = CreatePublished("public");
  const std::string path = "/api/v1/articles/" + std::to_string(id);
  auto c = Client();
  ASSERT_EQ(
      c.Patch(path, R"({"status":"draft","content":"<p>private</p>"})", Bearer(author_)).status,
      200);
  const std::string hash = redis::keys::Article(id);
  ASSERT_EQ(redis_.Cli("HSET " + hash + " status published ver 1"), "0");
  ASSERT_EQ(redis_.Cli("DEL " + redis::keys::ArticleBody(id)), "1");
  auto r = c.Get(path);
  EXPECT_EQ(r.status, 404) << r.body;
  EXPECT_EQ(r.body.find("private"), std::string::npos) << "the draft's content went out";
}

// The same race across a FLUSHALL, which takes the delete's floor with it: the birth mark a
// fill reads before its SQL read has changed by the time it lands, so it writes nothing and
// reads SQL again.
TEST_P(ArticlesTest, AFillOfARowReadBeforeADeleteAndAFlushAllWritesNothing) {
  const int64_t id = CreatePublished("deleted and flushed");
  const std::string path = "/api/v1/articles/" + std::to_string(id);
  redis::ArticleCache cache(app_->app().redis());
  ASSERT_TRUE(OnLoop(app_->app().redis_check().Check()));
  auto token = OnLoop(cache.FillToken(id));
  ASSERT_TRUE(token && *token);
  const sql::ArticleRow stale = SqlRow(id);
  ASSERT_EQ(Client().Delete(path, Bearer(author_)).status, 204);
  FlushAllRedis();
  std::this_thread::sleep_for(2ms);  // the next mark is the clock in µs: make it differ
  ASSERT_TRUE(OnLoop(app_->app().redis_check().Recheck()));
  ASSERT_TRUE(OnLoop(cache.FillToken(id)).value_or(std::nullopt).has_value());
  auto filled = OnLoop(cache.Fill(stale, **token, &*stale.content));
  ASSERT_TRUE(filled);
  EXPECT_EQ(filled->state, redis::ArticleCache::Filled::State::kUnchecked);
  EXPECT_EQ(redis_.Cli("EXISTS " + redis::keys::Article(id)), "0");
  EXPECT_EQ(Client().Get(path).status, 404);
}

// Issue 25, item 3: a fill of a published row lands after an unpublish whose Redis step found
// no hash (evicted, or dropped by a recovery) and so wrote nothing. It used to cache the
// published row: anonymous readers got the draft, and the author's next edit re-published it
// in SQL. The write's floor makes the fill read SQL again.
TEST_P(ArticlesTest, AFillOfARowReadBeforeAnUnpublishOfAnUncachedArticleLeaksNothing) {
  const int64_t id = CreatePublished("unpublished meanwhile");
  const std::string path = "/api/v1/articles/" + std::to_string(id);
  const sql::ArticleRow stale = SqlRow(id);
  const std::string hash = redis::keys::Article(id);
  app_->app().write_faults().before_article_reflect = [this, hash](int64_t) -> Awaitable<void> {
    redis_.Cli("DEL " + hash);  // evicted between the PATCH's read and its Redis step
    co_return;
  };
  auto c = Client();
  ASSERT_EQ(c.Patch(path, R"({"status":"draft"})", Bearer(author_)).status, 200);
  app_->app().write_faults().before_article_reflect = nullptr;
  EXPECT_EQ(FillFrom(stale, /*with_body=*/false), redis::ArticleCache::Filled::State::kStale);
  EXPECT_EQ(FillFrom(stale, /*with_body=*/true), redis::ArticleCache::Filled::State::kStale);
  EXPECT_EQ(c.Get(path).status, 404);
  EXPECT_TRUE(ListIds("").empty());
  ASSERT_EQ(c.Patch(path, R"({"title":"still a draft"})", Bearer(author_)).status, 200);
  EXPECT_EQ(model::StatusName(SqlRow(id).status), "draft");
  EXPECT_EQ(c.Get(path).status, 404);
}

// Issue 25, item 4: a rebuild of the list indexes reads SQL, then an unpublish lands before
// the rebuild adds what it read. The rebuild used to add the (now) draft back; it now skips
// an article whose list change is newer than its read. And a rebuilder that lost its lock
// (a stall past the lease) can no longer swap in what it built.
TEST_P(ArticlesTest, AListRebuildNeverUndoesAnUnpublishThatLandsDuringIt) {
  const int64_t kept = CreatePublished("kept");
  const int64_t id = CreatePublished("unpublished during the rebuild");
  for (const char* list : {"all", "article", "post"}) {
    redis_.Cli("DEL " + redis::keys::PublishedList(list));
  }
  redis::ArticleCache cache(app_->app().redis());
  sql::ArticleTable table(app_->app().store());
  ASSERT_TRUE(OnLoop(cache.TryLockRebuild("me")).value_or(false));
  ASSERT_TRUE(OnLoop(cache.BeginRebuild("me")).value_or(false));
  auto read = OnLoop(table.PublishedAfter(0, 100));
  ASSERT_TRUE(read);
  ASSERT_EQ(read->size(), 2u);
  auto c = Client();
  ASSERT_EQ(
      c.Patch("/api/v1/articles/" + std::to_string(id), R"({"status":"draft"})", Bearer(author_))
          .status,
      200);
  std::vector<redis::ArticleCache::RebuildEntry> entries;
  for (const auto& e : *read) {
    entries.push_back({e.id, e.pinned, e.published_at_ms, e.ver,
                       model::ParseKind(e.kind).value_or(model::ArticleKind::kPost)});
  }
  ASSERT_TRUE(OnLoop(cache.RebuildAdd("me", entries)).value_or(false));
  // Another instance took the lock over meanwhile: this one's twins are not swapped in.
  ASSERT_EQ(redis_.Cli("SET " + std::string(redis::keys::kPublishedListLock) + " other"), "OK");
  EXPECT_FALSE(OnLoop(cache.FinishRebuild("me")).value_or(true));
  EXPECT_EQ(redis_.Cli("EXISTS " + redis::keys::PublishedList("all")), "0");
  ASSERT_EQ(redis_.Cli("SET " + std::string(redis::keys::kPublishedListLock) + " me"), "OK");
  ASSERT_TRUE(OnLoop(cache.FinishRebuild("me")).value_or(false));
  EXPECT_EQ(ListIds(""), std::vector<int64_t>{kept});
  EXPECT_EQ(ListIds("?kind=article"), std::vector<int64_t>{kept});
  EXPECT_EQ(c.Get("/api/v1/articles/" + std::to_string(id)).status, 404);
}

// Hydrate shows only what the article itself says is published: an index entry left behind
// (a lost Redis step) never lists a draft's title and summary.
TEST_P(ArticlesTest, AStaleListEntryNeverShowsADraft) {
  const int64_t id = CreatePublished("listed, then a draft");
  ASSERT_EQ(ListIds(""), std::vector<int64_t>{id});  // the index is built
  auto c = Client();
  ASSERT_EQ(
      c.Patch("/api/v1/articles/" + std::to_string(id), R"({"status":"draft"})", Bearer(author_))
          .status,
      200);
  ASSERT_EQ(redis_.Cli("ZADD " + redis::keys::PublishedList("all") + " 1 " + redis::ListMember(id)),
            "1");
  EXPECT_TRUE(ListIds("").empty());
}

// Issue 25, item 5: `plauditd rebuild-cache` reloads the article hashes too (it rebuilt only
// the lists): a hash that went wrong is dropped and refills from SQL, after its unflushed
// views reached SQL.
TEST_P(ArticlesTest, ReloadingArticlesDropsEveryHashAndKeepsTheirViews) {
  const int64_t id = CreatePublished("reloaded");
  const std::string path = "/api/v1/articles/" + std::to_string(id);
  auto c = Client();
  for (int i = 0; i < 3; ++i) {
    ASSERT_EQ(c.Get(path).status, 200);
  }
  ASSERT_EQ(redis_.Cli("HSET " + redis::keys::Article(id) + " title wrong"), "0");
  ASSERT_TRUE(OnLoop(app_->app().redis_check().ReloadArticles()));
  EXPECT_EQ(redis_.Cli("EXISTS " + redis::keys::Article(id)), "0");
  EXPECT_EQ(SqlViews(id), 3);
  auto r = c.Get(path);
  ASSERT_EQ(r.status, 200);
  EXPECT_EQ(r.Json().at("title").as_string(), "reloaded");
  EXPECT_EQ(r.Json().at("viewCount").as_int64(), 4);
  // Another instance counts views meanwhile: a hash holding one SQL lacks stays.
  redis::ArticleCache cache(app_->app().redis());
  auto kept = OnLoop(cache.DropIfFlushed(id, /*sql_views=*/3));
  ASSERT_TRUE(kept);
  EXPECT_FALSE(*kept);
  EXPECT_EQ(RedisViews(id), 4);
  auto dropped = OnLoop(cache.DropIfFlushed(id, /*sql_views=*/4));
  ASSERT_TRUE(dropped);
  EXPECT_TRUE(*dropped);
  EXPECT_EQ(RedisViews(id), -1);
}

TEST_P(ArticlesTest, RolesDecideWhoWritesWhat) {
  Create(reader_, R"({"title":"t","content":"c","kind":"article"})", 403);
  auto post = Create(reader_, R"({"title":"t","content":"c","status":"published"})");
  EXPECT_EQ(post.at("kind").as_string(), "post");  // a plain user's default
  Create(author_, R"({"title":"t","content":"c","pinned":true})", 403);
  Create(admin_, R"({"title":"t","content":"c","pinned":true,"status":"published"})");
  auto c = Client();
  std::string path = "/api/v1/articles/" + std::to_string(post.at("id").as_int64());
  EXPECT_EQ(c.Patch(path, R"({"title":"mine now"})", Bearer(author_)).status, 403);
  EXPECT_EQ(c.Patch(path, R"({"pinned":true})", Bearer(reader_)).status, 403);
  EXPECT_EQ(c.Patch(path, R"({"title":"by admin"})", Bearer(admin_)).status, 200);
  EXPECT_EQ(c.Patch(path, R"({"kind":"article"})", Bearer(admin_)).status, 400);
  EXPECT_EQ(Client().Post("/api/v1/articles", R"({"title":"t","content":"c"})").status, 401);
}

TEST_P(ArticlesTest, BadInputIs400AndChangesNothing) {
  int64_t id = CreatePublished("keep");
  const char* bad[] = {
      R"({"content":"c"})",
      R"({"title":"   ","content":"c"})",
      R"({"title":"t"})",
      R"({"title":5,"content":"c"})",
      R"({"title":"t","content":["c"]})",
      R"({"title":"t","content":"c","status":"live"})",
      R"({"title":"t","content":"c","kind":"poem"})",
      R"({"title":"t","content":"c","pinned":"yes"})",
      R"({"title":"t","content":"c","authorId":1})",
      R"({"title":"t","content":"c","author":{"id":1}})",
      R"({"title":"t","content":"c","viewCount":100})",
  };
  for (const char* body : bad) {
    Create(author_, body, 400);
  }
  std::string long_title(201, 'x');
  Create(author_, R"({"title":")" + long_title + R"(","content":"c"})", 400);
  auto c = Client();
  std::string path = "/api/v1/articles/" + std::to_string(id);
  EXPECT_EQ(c.Patch(path, R"({"title":""})", Bearer(author_)).status, 400);
  EXPECT_EQ(c.Patch(path, R"({"status":"gone"})", Bearer(author_)).status, 400);
  EXPECT_EQ(c.Patch(path, "{oops", Bearer(author_)).ErrorCode(), "invalid_json");
  EXPECT_EQ(c.Get("/api/v1/articles/abc").status, 400);
  EXPECT_EQ(c.Get(path).Json().at("title").as_string(), "keep");
  int64_t total = 0;
  EXPECT_EQ(Client().Get("/api/v1/articles?status=all", Bearer(author_)).Json().at("total"), 1);
  ListIds("", &total);
  EXPECT_EQ(total, 1);
}

TEST_P(ArticlesTest, ContentIsSanitisedAndSummaryCountsCharacters) {
  std::string body = R"({"title":"x","status":"published","content":"<p onclick=\"evil()\">)";
  for (int i = 0; i < 70; ++i) {
    body += "漢";
  }
  body += R"(<script>alert(1)</script><a href=\"javascript:alert(1)\">link</a></p>"})";
  auto a = Create(author_, body);
  std::string content(a.at("content").as_string());
  EXPECT_EQ(content.find("script"), std::string::npos);
  EXPECT_EQ(content.find("onclick"), std::string::npos);
  EXPECT_EQ(content.find("javascript"), std::string::npos);
  std::string summary(a.at("summary").as_string());
  EXPECT_EQ(summary, [] {
    std::string s;
    for (int i = 0; i < 64; ++i) {
      s += "漢";
    }
    return s;
  }());
}

TEST_P(ArticlesTest, PublishedListIsPinnedFirstThenNewestWithExactTotals) {
  std::vector<int64_t> published;
  for (int i = 0; i < 7; ++i) {
    published.push_back(CreatePublished("a" + std::to_string(i), i % 2 ? "post" : "article"));
    if (i == 2) {
      Create(author_, R"({"title":"draft","content":"d"})");  // drafts mixed in
    }
  }
  int64_t pinned = CreatePublished("old-but-pinned");
  auto c = Client();
  ASSERT_EQ(
      c.Patch("/api/v1/articles/" + std::to_string(pinned), R"({"pinned":true})", Bearer(admin_))
          .status,
      200);
  // Pinned first, then newest published first.
  std::vector<int64_t> expected{pinned};
  for (auto it = published.rbegin(); it != published.rend(); ++it) {
    expected.push_back(*it);
  }
  int64_t total = 0;
  EXPECT_EQ(ListIds("?size=100", &total), expected);
  EXPECT_EQ(total, 8);
  // Every page full but the last, every item exactly once.
  std::vector<int64_t> paged;
  for (int page = 1; page <= 3; ++page) {
    auto ids = ListIds("?size=3&page=" + std::to_string(page), &total);
    EXPECT_EQ(total, 8);
    EXPECT_EQ(ids.size(), page < 3 ? 3u : 2u);
    paged.insert(paged.end(), ids.begin(), ids.end());
  }
  EXPECT_EQ(paged, expected);
  EXPECT_TRUE(ListIds("?size=3&page=4").empty());
  // Kinds.
  ListIds("?kind=post", &total);
  EXPECT_EQ(total, 3);
  ListIds("?kind=article", &total);
  EXPECT_EQ(total, 5);
}

TEST_P(ArticlesTest, CursorPagingIsExactAndStableUnderInserts) {
  std::vector<int64_t> ids;
  for (int i = 0; i < 10; ++i) {
    ids.push_back(CreatePublished("c" + std::to_string(i)));
  }
  std::vector<int64_t> expected(ids.rbegin(), ids.rend());
  auto c = Client();
  std::vector<int64_t> seen;
  auto r = c.Get("/api/v1/articles?size=4");
  int pages = 0;
  while (true) {
    ASSERT_EQ(r.status, 200) << r.body;
    auto body = r.Json().as_object();
    for (const auto& item : body.at("items").as_array()) {
      seen.push_back(item.at("id").as_int64());
    }
    if (pages == 0) {
      CreatePublished("inserted while paging");  // lands before the cursor
    }
    ++pages;
    if (body.at("nextCursor").is_null()) {
      break;
    }
    std::string cursor(body.at("nextCursor").as_string());
    r = c.Get("/api/v1/articles?size=4&cursor=" + cursor);
    EXPECT_TRUE(r.Json().at("page").is_null());
  }
  EXPECT_EQ(seen, expected);
  EXPECT_EQ(pages, 3);
}

TEST_P(ArticlesTest, BadPagingParametersAre400) {
  auto c = Client();
  for (const char* q :
       {"?page=0", "?page=-1", "?size=0", "?size=101", "?size=abc", "?page=1.5", "?cursor=!!!",
        "?cursor=bm9wZQ", "?page=2&cursor=abc", "?kind=poem", "?status=secret"}) {
    auto r = c.Get(std::string("/api/v1/articles") + q);
    EXPECT_EQ(r.status, 400) << q;
    EXPECT_EQ(r.ErrorCode(), "invalid_field") << q;
  }
  EXPECT_EQ(c.Get("/api/v1/articles?status=draft").status, 401);
}

TEST_P(ArticlesTest, OwnListsShowDraftsToTheirAuthorAndEverythingToAdmins) {
  CreatePublished("pub");
  Create(author_, R"({"title":"d1","content":"c"})");
  Create(reader_, R"({"title":"d2","content":"c"})");
  int64_t total = 0;
  auto r = Client().Get("/api/v1/articles?status=draft", Bearer(author_));
  ASSERT_EQ(r.status, 200);
  EXPECT_EQ(r.Json().at("total").as_int64(), 1);
  r = Client().Get("/api/v1/articles?status=all", Bearer(author_));
  EXPECT_EQ(r.Json().at("total").as_int64(), 2);
  r = Client().Get("/api/v1/articles?status=draft", Bearer(admin_));
  EXPECT_EQ(r.Json().at("total").as_int64(), 2);
  ListIds("", &total);
  EXPECT_EQ(total, 1);
}

TEST_P(ArticlesTest, RedisFlushAllBetweenWriteAndReadGivesTheSameAnswers) {
  for (int i = 0; i < 5; ++i) {
    CreatePublished("f" + std::to_string(i), i % 2 ? "post" : "article");
  }
  int64_t id = CreatePublished("the one");
  auto c = Client();
  std::string path = "/api/v1/articles/" + std::to_string(id);
  c.Get(path);
  auto before = c.Get(path).Json().as_object();  // the second view
  Flush();  // view counts reach SQL; only unflushed ones could be lost
  auto before_list = c.Get("/api/v1/articles?size=4").body;
  auto before_kind = c.Get("/api/v1/articles?kind=post").body;
  FlushAllRedis();
  EXPECT_EQ(c.Get("/api/v1/articles?size=4").body, before_list);
  EXPECT_EQ(c.Get("/api/v1/articles?kind=post").body, before_kind);
  auto after = c.Get(path).Json().as_object();
  EXPECT_EQ(after.at("viewCount").as_int64(), before.at("viewCount").as_int64() + 1);
  after["viewCount"] = before.at("viewCount");
  EXPECT_EQ(after, before);
  // Cursor pages too.
  auto page1 = c.Get("/api/v1/articles?size=2").Json();
  std::string cursor(page1.at("nextCursor").as_string());
  auto page2 = c.Get("/api/v1/articles?size=2&cursor=" + cursor).body;
  FlushAllRedis();
  EXPECT_EQ(c.Get("/api/v1/articles?size=2&cursor=" + cursor).body, page2);
}

TEST_P(ArticlesTest, ConcurrentMissesLoadFromSqlOnce) {
  int64_t id = CreatePublished("popular");
  ASSERT_EQ(redis_.Cli("FLUSHALL"), "OK");
  int loads_before = app_->app().articles().article_loads();
  std::vector<std::future<HttpResponse>> gets;
  for (int i = 0; i < 20; ++i) {
    gets.push_back(std::async(std::launch::async, [&] {
      return Client().Get("/api/v1/articles/" + std::to_string(id));
    }));
  }
  std::set<std::string> contents;
  for (auto& g : gets) {
    auto r = g.get();
    ASSERT_EQ(r.status, 200);
    contents.insert(std::string(r.Json().at("content").as_string()));
  }
  EXPECT_EQ(contents.size(), 1u);
  // Twenty misses at once load the row once, or twice at most: a request whose Redis miss
  // was read just before the first load's fill landed, and whose own load starts just after
  // that load finished, loads again (seen on the cluster run, where Redis is slower). Without
  // the single flight every miss would load.
  const int loads = app_->app().articles().article_loads() - loads_before;
  EXPECT_GE(loads, 1);
  EXPECT_LE(loads, 2);
  auto r = Client().Get("/api/v1/articles/" + std::to_string(id));
  EXPECT_EQ(r.Json().at("viewCount").as_int64(), 21);  // every view counted once
}

TEST_P(ArticlesTest, IdsNeverRepeatAfterRedisLoss) {
  int64_t a = CreatePublished("one");
  int64_t b = CreatePublished("two");
  FlushAllRedis();
  int64_t c = CreatePublished("three");
  EXPECT_GT(c, b);
  // A sequence that came back behind SQL (an old AOF) does not hand out a taken id.
  ASSERT_EQ(redis_.Cli("SET pl:seq:article " + std::to_string(a)), "OK");
  int64_t d = CreatePublished("four");
  EXPECT_GT(d, c);
  int64_t total = 0;
  ListIds("", &total);
  EXPECT_EQ(total, 4);
}

TEST_P(ArticlesTest, ViewsAreCountedAndFlushedToSql) {
  int64_t id = CreatePublished("viewed");
  auto c = Client();
  std::string path = "/api/v1/articles/" + std::to_string(id);
  for (int i = 1; i <= 5; ++i) {
    EXPECT_EQ(c.Get(path).Json().at("viewCount").as_int64(), i);
  }
  Flush();
  Flush();  // a repeated flush changes nothing
  FlushAllRedis();
  EXPECT_EQ(c.Get(path).Json().at("viewCount").as_int64(), 6);
  // Drafts are not counted.
  int64_t draft = Create(author_, R"({"title":"d","content":"c"})").at("id").as_int64();
  for (int i = 0; i < 3; ++i) {
    c.Get("/api/v1/articles/" + std::to_string(draft), Bearer(author_));
  }
  EXPECT_EQ(c.Get("/api/v1/articles/" + std::to_string(draft), Bearer(author_))
                .Json()
                .at("viewCount")
                .as_int64(),
            0);
}

// Defect 6 of issue 23: a fill (after a miss) that read SQL before views were counted, an
// article was published or its content changed must not take any of that back.
TEST_P(ArticlesTest, AFillFromAnOlderRowOverwritesNothingNewer) {
  auto draft = Create(author_, R"({"title":"slow fill","content":"<p>old</p>"})");
  ASSERT_TRUE(draft.contains("id"));
  const int64_t id = draft.at("id").as_int64();
  const std::string path = "/api/v1/articles/" + std::to_string(id);
  const sql::ArticleRow stale = SqlRow(id);  // a draft with 0 views and the old content
  auto c = Client();
  ASSERT_EQ(
      c.Patch(path, R"({"status":"published","content":"<p>new</p>"})", Bearer(author_)).status,
      200);
  for (int i = 1; i <= 3; ++i) {
    ASSERT_EQ(c.Get(path).Json().at("viewCount").as_int64(), i);
  }
  ASSERT_EQ(SqlViews(id), 0);  // not flushed: the 3 views live only in Redis

  FillFrom(stale, /*with_body=*/true);   // an article page's fill, late
  FillFrom(stale, /*with_body=*/false);  // a list page's fill, late
  EXPECT_EQ(RedisViews(id), 3);
  auto r = c.Get(path);  // anonymous: only a published article answers
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.Json().at("viewCount").as_int64(), 4);
  EXPECT_EQ(r.Json().at("status").as_string(), "published");
  EXPECT_EQ(r.Json().at("content").as_string(), "<p>new</p>");
  Flush();
  EXPECT_EQ(SqlViews(id), 4);
}

// After FLUSHALL, fills from SQL's row (views flushed so far) race with views counted on
// the first fill: a second fill of the same row never lowers them.
TEST_P(ArticlesTest, ViewsCountedAfterAFillSurviveASecondFill) {
  const int64_t id = CreatePublished("refilled");
  const std::string path = "/api/v1/articles/" + std::to_string(id);
  auto c = Client();
  for (int i = 1; i <= 2; ++i) {
    c.Get(path);
  }
  Flush();
  ASSERT_EQ(SqlViews(id), 2);
  FlushAllRedis();
  const sql::ArticleRow row = SqlRow(id);  // 2 views
  for (int i = 3; i <= 6; ++i) {
    ASSERT_EQ(c.Get(path).Json().at("viewCount").as_int64(), i);
  }
  FillFrom(row, /*with_body=*/true);
  EXPECT_EQ(RedisViews(id), 6);
  EXPECT_EQ(c.Get(path).Json().at("viewCount").as_int64(), 7);
  Flush();
  EXPECT_EQ(SqlViews(id), 7);
}

// A list page fills hashes without bodies; the first full read fills the body, once.
TEST_P(ArticlesTest, ABodyMissingFromTheCacheIsFilledOnFirstRead) {
  const int64_t id = CreatePublished("listed first");
  FlushAllRedis();
  ASSERT_EQ(ListIds(""), std::vector<int64_t>{id});  // fills the hash, not the body
  const std::string body_key = redis::keys::ArticleBody(id);
  ASSERT_EQ(redis_.Cli("EXISTS " + body_key), "0");
  auto r = Client().Get("/api/v1/articles/" + std::to_string(id));
  ASSERT_EQ(r.status, 200);
  EXPECT_EQ(r.Json().at("content").as_string(), "<p>listed first</p>");
  EXPECT_EQ(redis_.Cli("GET " + body_key), "<p>listed first</p>");
}

// Defect 7 of issue 23: the view flush claims ids (claim → commit → done), so a pass killed
// between its claim and its SQL commit leaves them for the next pass; SPOP lost them.
class ViewFlushTest : public ArticlesTest {
 protected:
  void Configure(config::Config& c) override { c.rate_limits = false; }

  Result<int64_t> FlushViews() { return OnLoop(PassViews()); }
  // The views part of a flush pass: the check of Redis against SQL, then the views.
  Awaitable<Result<int64_t>> PassViews() {
    auto& check = app_->app().redis_check();
    auto checked = co_await check.Check();
    if (!checked) {
      co_return tl::unexpected(checked.error());
    }
    co_return co_await app_->app().view_flush().Flush(check.Generation());
  }

  std::string InFlight() { return redis_.Cli("ZCARD " + std::string(redis::keys::kViewsInFlight)); }
  std::string Dirty() { return redis_.Cli("SCARD " + std::string(redis::keys::kViewsDirty)); }
};

TEST_P(ViewFlushTest, APassKilledAfterItsClaimLosesNoViews) {
  const int64_t id = CreatePublished("killed flush");
  const std::string path = "/api/v1/articles/" + std::to_string(id);
  auto c = Client();
  for (int i = 0; i < 3; ++i) {
    ASSERT_EQ(c.Get(path).status, 200);
  }

  app_->app().flush_faults().view_after_claim = [] { return true; };
  EXPECT_FALSE(FlushViews());  // dies after the claim, before the SQL commit
  app_->app().flush_faults().view_after_claim = nullptr;
  EXPECT_EQ(SqlViews(id), 0);
  EXPECT_EQ(InFlight(), "1");

  // No view in between: nothing marks the article dirty again, the claim alone keeps it.
  auto written = FlushViews();
  ASSERT_TRUE(written) << written.error().message;
  EXPECT_EQ(*written, 1);
  EXPECT_EQ(SqlViews(id), 3);
  EXPECT_EQ(InFlight(), "0");
  EXPECT_EQ(Dirty(), "0");

  // A view counted while a claim is in flight is marked dirty again and written later.
  app_->app().flush_faults().view_after_claim = [] { return true; };
  ASSERT_EQ(c.Get(path).status, 200);
  EXPECT_FALSE(FlushViews());
  app_->app().flush_faults().view_after_claim = nullptr;
  ASSERT_EQ(c.Get(path).status, 200);
  ASSERT_TRUE(FlushViews());
  EXPECT_EQ(SqlViews(id), 5);
  EXPECT_EQ(RedisViews(id), 5);
  auto again = FlushViews();
  ASSERT_TRUE(again);
  EXPECT_EQ(*again, 0);  // nothing left
}

// Two passes (two instances) interleaved at their worst: A claims, a view arrives, B claims
// the id again, A commits its older count and confirms, B dies. B's claim must survive A's
// confirmation, so the next pass writes the newer count.
TEST_P(ViewFlushTest, AnOlderClaimsConfirmationKeepsANewerClaimInFlight) {
  const int64_t id = CreatePublished("two passes");
  const std::string path = "/api/v1/articles/" + std::to_string(id);
  auto c = Client();
  ASSERT_EQ(c.Get(path).status, 200);
  redis::ArticleCache cache(app_->app().redis());
  sql::ArticleTable table(app_->app().store());

  auto a = OnLoop(cache.ClaimViews(1000));
  ASSERT_TRUE(a);
  ASSERT_EQ(a->views.size(), 1u);
  EXPECT_EQ(a->views.front().views, std::optional<int64_t>(1));
  ASSERT_EQ(c.Get(path).status, 200);  // view 2, after A's read
  auto b = OnLoop(cache.ClaimViews(1000));
  ASSERT_TRUE(b);
  ASSERT_EQ(b->views.size(), 1u);
  EXPECT_EQ(b->views.front().views, std::optional<int64_t>(2));
  std::vector<std::pair<int64_t, int64_t>> older{{id, *a->views.front().views}};
  ASSERT_TRUE(OnLoop(table.SetViewCounts(std::move(older), a->stamp)));
  ASSERT_TRUE(OnLoop(cache.ViewsDone(a->views)));
  EXPECT_EQ(InFlight(), "1");  // B's claim, not yet in SQL
  // B dies here. The next pass takes its claim again.
  ASSERT_TRUE(FlushViews());
  EXPECT_EQ(SqlViews(id), 2);
  EXPECT_EQ(InFlight(), "0");
  // B's late confirmation (if it was only slow) confirms nothing newer than what it wrote.
  ASSERT_TRUE(OnLoop(cache.ViewsDone(b->views)));
  EXPECT_EQ(InFlight(), "0");
}

// The view mark must reach Redis after the view's increment, or a claim between the two
// takes the id with a count that lacks the view, and nothing marks it again until the
// article's next view. Pipelined behind the script, the mark ran first whenever the script
// had to be loaded: a process's first view, or NOSCRIPT after a Redis restart (found by
// the fault test after a plauditd SIGKILL). MONITOR shows Redis's own order.
TEST_P(ViewFlushTest, TheViewMarkRunsAfterTheIncrementAlsoWhenTheScriptIsReloaded) {
  PL_NEEDS_ONE_REDIS();
  const int64_t id = CreatePublished("reloaded script");
  const std::string path = "/api/v1/articles/" + std::to_string(id);
  auto c = Client();
  ASSERT_EQ(c.Get(path).status, 200);  // cached, and the script known to the client
  const fs::path log = fs::path(::testing::TempDir()) / ("monitor-" + std::to_string(id) + ".log");
  Process monitor({"redis-cli", "-s", redis_.socket_path(), "monitor"}, log.string());
  ASSERT_TRUE(WaitFor([&] { return fs::exists(log) && fs::file_size(log) > 0; }, 5s));  // "OK"
  ASSERT_EQ(redis_.Cli("SCRIPT FLUSH"), "OK");  // as a restarted Redis would
  ASSERT_EQ(c.Get(path).status, 200);
  const std::string id_text = std::to_string(id);
  auto order = [&] {
    std::ifstream in(log);
    std::string line;
    long at = 0, increment = -1, mark = -1;
    while (std::getline(in, line)) {
      ++at;
      if (line.find("\"HINCRBY\"") != std::string::npos &&
          line.find(redis::keys::Article(id)) != std::string::npos) {
        increment = at;
      }
      if (line.find("\"SADD\" \"pl:vd:{views}\" \"" + id_text + "\"") != std::string::npos) {
        mark = at;
      }
    }
    return std::pair{increment, mark};
  };
  ASSERT_TRUE(WaitFor([&] { return order().first > 0; }, 5s)) << "MONITOR saw no increment";
  // redis-cli writes what it sees as it comes: give a later mark time to show up.
  WaitFor([&] { return order().second > order().first; }, 2s);
  monitor.Stop();
  auto [increment, mark] = order();
  EXPECT_GT(mark, increment) << "the last view mark ran before the increment";
}

TEST_P(ViewFlushTest, ConcurrentPassesWhileViewsArriveEndWithSqlEqualToRedis) {
  std::vector<int64_t> ids;
  for (int i = 0; i < 4; ++i) {
    ids.push_back(CreatePublished("busy" + std::to_string(i)));
  }
  std::atomic<bool> viewing{true};
  std::atomic<int64_t> views{0};
  std::vector<std::thread> viewers;
  for (int t = 0; t < 3; ++t) {
    viewers.emplace_back([&, t] {
      auto c = Client();
      for (size_t k = 0; viewing || k < 20; ++k) {
        if (c.Get("/api/v1/articles/" + std::to_string(ids[(t + k) % ids.size()])).status == 200) {
          ++views;
        }
      }
    });
  }
  auto pair_of_passes = [&] {
    auto first = net::co_spawn(app_->app().io(), PassViews(), net::use_future);
    auto second = net::co_spawn(app_->app().io(), PassViews(), net::use_future);
    auto r1 = first.get();
    auto r2 = second.get();
    EXPECT_TRUE(r1) << r1.error().message;
    EXPECT_TRUE(r2) << r2.error().message;
  };
  // Passes run while at least 300 views arrive (a deadline keeps a stuck run finite).
  const auto deadline = std::chrono::steady_clock::now() + 20s;
  int pairs = 0;
  while ((views < 300 || pairs < 10) && std::chrono::steady_clock::now() < deadline) {
    pair_of_passes();
    ++pairs;
  }
  viewing = false;
  for (auto& v : viewers) {
    v.join();
  }
  pair_of_passes();  // the last views, still two passes at once

  int64_t redis_total = 0;
  for (int64_t id : ids) {
    EXPECT_EQ(SqlViews(id), RedisViews(id)) << id;
    redis_total += RedisViews(id);
  }
  EXPECT_EQ(redis_total, views.load());
  EXPECT_EQ(InFlight(), "0");
  EXPECT_EQ(Dirty(), "0");
}

// A warm article read is one Redis round trip (the fields script, the body, the view mark
// and the like state leave in one write), signed in too once the session is in this
// process's cache; and the view is still counted once per read.
class ArticleRoundTripTest : public ArticlesTest {
 protected:
  // Rate limits off: each limit is a Redis call of its own, counted separately.
  void Configure(config::Config& c) override { c.rate_limits = false; }
};

TEST_P(ArticleRoundTripTest, AWarmArticleReadIsOneRoundTrip) {
  PL_COUNTS_ONE_INSTANCE();
  int64_t id = CreatePublished("quick");
  auto c = Client();
  std::string path = "/api/v1/articles/" + std::to_string(id);
  ASSERT_EQ(c.Get(path).status, 200);                   // warms the cache and the like count
  ASSERT_EQ(c.Get(path, Bearer(reader_)).status, 200);  // and the reader's like records
  auto batches = [&] {
    std::promise<uint64_t> p;
    net::post(app_->app().io(), [&] { p.set_value(app_->app().redis().stats().batches_flushed); });
    return p.get_future().get();
  };
  uint64_t before = batches();
  auto r = c.Get(path);
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(batches() - before, 1u);
  EXPECT_EQ(r.Json().at("viewCount").as_int64(), 3);
  EXPECT_EQ(r.Json().at("likeCount").as_int64(), 0);
  before = batches();
  r = c.Get(path, Bearer(reader_));
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(batches() - before, 1u);
  EXPECT_FALSE(r.Json().at("liked").as_bool());
  EXPECT_EQ(r.Json().at("viewCount").as_int64(), 4);
  Flush();
  FlushAllRedis();
  EXPECT_EQ(c.Get(path).Json().at("viewCount").as_int64(), 5);
}

TEST_P(ArticlesTest, ChangeFeedIsOrderedResumableAndAdminOnly) {
  auto c = Client();
  int64_t id = CreatePublished("feed");
  std::string path = "/api/v1/articles/" + std::to_string(id);
  c.Patch(path, R"({"title":"feed 2"})", Bearer(author_));
  c.Patch(path, R"({"status":"draft"})", Bearer(author_));
  c.Patch(path, R"({"status":"published"})", Bearer(author_));
  c.Delete(path, Bearer(author_));
  EXPECT_EQ(c.Get("/api/v1/changes", Bearer(author_)).status, 403);
  EXPECT_EQ(c.Get("/api/v1/changes").status, 401);
  auto r = c.Get("/api/v1/changes?limit=3", Bearer(admin_));
  ASSERT_EQ(r.status, 200) << r.body;
  std::vector<std::string> ops;
  auto first = r.Json();
  for (const auto& ev : first.at("items").as_array()) {
    EXPECT_EQ(ev.at("articleId").as_int64(), id);
    ops.emplace_back(ev.at("op").as_string());
  }
  std::string cursor(r.Json().at("nextCursor").as_string());
  r = c.Get("/api/v1/changes?after=" + cursor, Bearer(admin_));
  auto second = r.Json();
  for (const auto& ev : second.at("items").as_array()) {
    ops.emplace_back(ev.at("op").as_string());
  }
  EXPECT_EQ(ops, (std::vector<std::string>{"create", "update", "unpublish", "publish", "delete"}));
  cursor = std::string(r.Json().at("nextCursor").as_string());
  r = c.Get("/api/v1/changes?after=" + cursor, Bearer(admin_));
  EXPECT_TRUE(r.Json().at("items").as_array().empty());
  EXPECT_EQ(r.Json().at("nextCursor").as_string(), cursor);  // the resume point stays
  EXPECT_EQ(c.Get("/api/v1/changes?after=bogus", Bearer(admin_)).status, 400);
  EXPECT_EQ(c.Get("/api/v1/changes?limit=1001", Bearer(admin_)).status, 400);
}

// One item of GET /api/v1/changes.
struct FeedItem {
  std::string cursor;
  int64_t article_id = 0;
  std::string op;
  std::string at;
};

// "2026-11-29T21:30:00.123Z" → ms since the epoch (the API's RFC 3339 form, always UTC).
int64_t ParseApiTimeMs(const std::string& s) {
  std::tm tm{};
  int ms = 0;
  EXPECT_EQ(std::sscanf(s.c_str(), "%d-%d-%dT%d:%d:%d.%dZ", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
                        &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &ms),
            7)
      << s;
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  return static_cast<int64_t>(timegm(&tm)) * 1000 + ms;
}

// Reads one page of the feed after `after`; `next` gets nextCursor.
std::vector<FeedItem> FeedPage(HttpClient& c, const std::string& token, const std::string& after,
                               int limit, std::string* next) {
  std::string target = "/api/v1/changes?limit=" + std::to_string(limit);
  if (!after.empty()) {
    target += "&after=" + after;
  }
  auto r = c.Get(target, {{"Authorization", "Bearer " + token}});
  EXPECT_EQ(r.status, 200) << target << " → " << r.body;
  std::vector<FeedItem> out;
  if (r.status != 200) {
    return out;
  }
  auto json = r.Json();
  for (const auto& ev : json.at("items").as_array()) {
    out.push_back({std::string(ev.at("cursor").as_string()), ev.at("articleId").as_int64(),
                   std::string(ev.at("op").as_string()), std::string(ev.at("at").as_string())});
  }
  if (next) {
    *next = std::string(json.at("nextCursor").as_string());
  }
  return out;
}

// The whole feed after `after`, in pages of `limit`.
std::vector<FeedItem> WholeFeed(HttpClient& c, const std::string& token, int limit = 1000,
                                std::string after = "") {
  std::vector<FeedItem> all;
  for (int pages = 0; pages < 10000; ++pages) {
    std::string next;
    auto page = FeedPage(c, token, after, limit, &next);
    if (page.empty()) {
      break;
    }
    EXPECT_EQ(next, page.back().cursor);
    all.insert(all.end(), page.begin(), page.end());
    after = next;
  }
  return all;
}

// Cursors are decimal outbox ids, strictly increasing along the feed.
void ExpectIncreasingIds(const std::vector<FeedItem>& items) {
  int64_t last = 0;
  for (const auto& it : items) {
    ASSERT_FALSE(it.cursor.empty());
    ASSERT_EQ(it.cursor.find_first_not_of("0123456789"), std::string::npos) << it.cursor;
    int64_t id = std::stoll(it.cursor);
    EXPECT_GT(id, last) << "cursor " << it.cursor << " after " << last;
    last = id;
  }
}

std::vector<std::string> OpsOf(const std::vector<FeedItem>& items, int64_t article_id) {
  std::vector<std::string> ops;
  for (const auto& it : items) {
    if (it.article_id == article_id) {
      ops.push_back(it.op);
    }
  }
  return ops;
}

// The feed is SQL's (an outbox row in the article's own transaction), so losing Redis loses
// none of it.
TEST_P(ArticlesTest, ChangeFeedSurvivesRedisFlushAll) {
  auto c = Client();
  int64_t a = CreatePublished("kept a");
  int64_t b = CreatePublished("kept b");
  std::string path_a = "/api/v1/articles/" + std::to_string(a);
  ASSERT_EQ(c.Patch(path_a, R"({"title":"kept a 2"})", Bearer(author_)).status, 200);
  auto before = WholeFeed(c, admin_);
  ASSERT_EQ(before.size(), 3u);
  FlushAllRedis();
  auto after = WholeFeed(c, admin_);
  ASSERT_EQ(after.size(), before.size());
  for (size_t i = 0; i < after.size(); ++i) {
    EXPECT_EQ(after[i].cursor, before[i].cursor);
    EXPECT_EQ(after[i].op, before[i].op);
    EXPECT_EQ(after[i].article_id, before[i].article_id);
  }
  // Changes after the flush continue the same feed.
  ASSERT_EQ(c.Patch(path_a, R"({"status":"draft"})", Bearer(author_)).status, 200);
  ASSERT_EQ(c.Delete("/api/v1/articles/" + std::to_string(b), Bearer(author_)).status, 204);
  auto all = WholeFeed(c, admin_, 2);
  ExpectIncreasingIds(all);
  EXPECT_EQ(OpsOf(all, a), (std::vector<std::string>{"create", "update", "unpublish"}));
  EXPECT_EQ(OpsOf(all, b), (std::vector<std::string>{"create", "delete"}));
  EXPECT_EQ(all.size(), 5u);
}

// A write whose Redis step fails after the SQL commit answers an error (5xx), but the change
// is committed and so is its feed entry: indexers still hear of it.
TEST_P(ArticlesTest, AChangeWhoseRedisStepFailsAfterTheCommitIsStillInTheFeed) {
  auto c = Client();
  int64_t id = CreatePublished("fragile");
  std::string path = "/api/v1/articles/" + std::to_string(id);
  ASSERT_EQ(c.Get(path).status, 200);
  // The published index as a STRING: the index update after the commit fails (WRONGTYPE).
  ASSERT_EQ(redis_.Cli("SET pl:arts:{pub}:all broken"), "OK");
  // Committed writes are answered as committed (issue 25, item 6): a retry would repeat them.
  auto r = c.Patch(path, R"({"title":"fragile 2"})", Bearer(author_));
  EXPECT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.Json().at("title").as_string(), "fragile 2");
  r = c.Delete(path, Bearer(author_));
  EXPECT_EQ(r.status, 204) << r.body;
  ASSERT_EQ(redis_.Cli("DEL pl:arts:{pub}:all"), "1");
  auto feed = WholeFeed(c, admin_);
  ExpectIncreasingIds(feed);
  EXPECT_EQ(OpsOf(feed, id), (std::vector<std::string>{"create", "update", "delete"}));
  EXPECT_EQ(c.Get(path, Bearer(admin_)).status, 404);  // the delete did commit
}

// Stream cursors ("<ms>-<seq>") from before the outbox resume at the first change whose
// `at` is at or after <ms>; anything else that is not a decimal id is a 400 that changes
// nothing.
TEST_P(ArticlesTest, AnOldStreamCursorResumesAndGarbageCursorsAre400) {
  auto c = Client();
  std::vector<int64_t> ids;
  for (int i = 0; i < 4; ++i) {
    ids.push_back(CreatePublished("old" + std::to_string(i)));
    ASSERT_EQ(c.Patch("/api/v1/articles/" + std::to_string(ids.back()), R"({"title":"old again"})",
                      Bearer(author_))
                  .status,
              200);
  }
  auto all = WholeFeed(c, admin_);
  ASSERT_EQ(all.size(), 8u);
  ExpectIncreasingIds(all);
  EXPECT_EQ(WholeFeed(c, admin_, 3, "0-0").size(), all.size());  // the old start
  for (size_t k : {size_t{0}, size_t{3}, size_t{5}, size_t{7}}) {
    const int64_t ms = ParseApiTimeMs(all[k].at);
    size_t first = 0;  // the first change at or after ms
    while (ParseApiTimeMs(all[first].at) < ms) {
      ++first;
    }
    std::string next;
    const std::string old_cursor = std::to_string(ms) + "-" + std::to_string(k);
    auto page = FeedPage(c, admin_, old_cursor, 2, &next);
    ASSERT_FALSE(page.empty()) << old_cursor;
    EXPECT_EQ(page[0].cursor, all[first].cursor) << old_cursor;
    EXPECT_EQ(next, page.back().cursor);  // from here on, decimal ids
    auto rest = WholeFeed(c, admin_, 2, old_cursor);
    EXPECT_EQ(rest.size(), all.size() - first) << old_cursor;
  }
  // Nothing at or after it yet: empty, and the resume point is the cursor itself.
  const std::string future = std::to_string(ParseApiTimeMs(all.back().at) + 86'400'000) + "-0";
  std::string next;
  EXPECT_TRUE(FeedPage(c, admin_, future, 10, &next).empty());
  EXPECT_EQ(next, future);
  // A decimal cursor past the end: empty, resume point unchanged.
  EXPECT_TRUE(FeedPage(c, admin_, all.back().cursor, 10, &next).empty());
  EXPECT_EQ(next, all.back().cursor);
  EXPECT_TRUE(FeedPage(c, admin_, "", 10, &next).size() == all.size());

  const std::vector<std::string> garbage{"bogus",
                                         "-1",
                                         "1-",
                                         "-",
                                         "-0",
                                         "1-2-3",
                                         "1.5",
                                         "%2B1",
                                         "%201",
                                         "1%20",
                                         "0x10",
                                         "1e3",
                                         "1-x",
                                         "x-1",
                                         "1--1",
                                         "99999999999999999999",
                                         "18446744073709551616-0",
                                         "1-18446744073709551616",
                                         "%C2%B9"};
  for (const auto& g : garbage) {
    auto r = c.Get("/api/v1/changes?after=" + g, Bearer(admin_));
    EXPECT_EQ(r.status, 400) << g << " → " << r.body;
    EXPECT_EQ(r.ErrorCode(), "invalid_field") << g;
  }
  auto again = WholeFeed(c, admin_);
  ASSERT_EQ(again.size(), all.size());
  for (size_t i = 0; i < all.size(); ++i) {
    EXPECT_EQ(again[i].cursor, all[i].cursor);
  }
}

// Writers on several threads while an indexer pages the feed: every change appears exactly
// once, in id order, and each article's ops come in the order its writes were made.
class ChangeFeedConcurrencyTest : public ArticlesTest {
 protected:
  void Configure(config::Config& c) override { c.rate_limits = false; }
};

TEST_P(ChangeFeedConcurrencyTest, PagingSeesEveryChangeOnceInOrderUnderConcurrentWriters) {
  constexpr int kWriters = 4;
  const std::vector<std::string> patches{R"({"title":"t2"})", R"({"status":"published"})",
                                         R"({"title":"t3"})", R"({"status":"draft"})",
                                         R"({"status":"published"})"};
  const std::vector<std::string> expected_ops{"create", "update",    "publish",
                                              "update", "unpublish", "publish"};
  std::atomic<bool> writing{true};
  std::vector<FeedItem> seen;
  std::thread reader([&] {
    auto c = Client();
    std::string after;
    auto poll = [&] {
      std::string next;
      auto page = FeedPage(c, admin_, after, 3, &next);
      seen.insert(seen.end(), page.begin(), page.end());
      if (!next.empty()) {
        after = next;
      }
      return page.size();
    };
    while (writing.load()) {
      poll();
    }
    while (poll() > 0) {
    }
  });
  std::vector<std::future<int64_t>> writers;
  for (int w = 0; w < kWriters; ++w) {
    writers.push_back(std::async(std::launch::async, [&, w]() -> int64_t {
      auto c = Client();
      auto r =
          c.Post("/api/v1/articles", R"({"title":"w)" + std::to_string(w) + R"(","content":"c"})",
                 Bearer(author_));
      EXPECT_EQ(r.status, 201) << r.body;
      if (r.status != 201) {
        return 0;
      }
      int64_t id = r.Json().at("id").as_int64();
      for (const auto& p : patches) {
        auto u = c.Patch("/api/v1/articles/" + std::to_string(id), p, Bearer(author_));
        EXPECT_EQ(u.status, 200) << u.body;
      }
      return id;
    }));
  }
  std::vector<int64_t> ids;
  for (auto& w : writers) {
    ids.push_back(w.get());
  }
  writing = false;
  reader.join();
  ExpectIncreasingIds(seen);
  EXPECT_EQ(seen.size(), static_cast<size_t>(kWriters) * expected_ops.size());
  for (int64_t id : ids) {
    EXPECT_EQ(OpsOf(seen, id), expected_ops) << "article " << id;
  }
  // A fresh reader in pages of any size sees the same feed.
  auto c = Client();
  auto again = WholeFeed(c, admin_, 5);
  ASSERT_EQ(again.size(), seen.size());
  for (size_t i = 0; i < seen.size(); ++i) {
    EXPECT_EQ(again[i].cursor, seen[i].cursor);
  }
}

// The op is decided from the committed row, not from what each request read before
// writing: of several concurrent publishes of one draft exactly one is a `publish`.
TEST_P(ChangeFeedConcurrencyTest, ConcurrentPublishesOfOneDraftRecordOnePublish) {
  auto o = Create(author_, R"({"title":"race","content":"c"})");
  ASSERT_TRUE(o.contains("id"));
  const int64_t id = o.at("id").as_int64();
  std::vector<std::future<int>> patches;
  for (int i = 0; i < 6; ++i) {
    patches.push_back(std::async(std::launch::async, [&] {
      return Client()
          .Patch("/api/v1/articles/" + std::to_string(id), R"({"status":"published"})",
                 Bearer(author_))
          .status;
    }));
  }
  for (auto& p : patches) {
    EXPECT_EQ(p.get(), 200);
  }
  auto c = Client();
  auto ops = OpsOf(WholeFeed(c, admin_), id);
  ASSERT_EQ(ops.size(), 7u);
  EXPECT_EQ(ops[0], "create");
  EXPECT_EQ(std::count(ops.begin(), ops.end(), "publish"), 1);
  EXPECT_EQ(std::count(ops.begin(), ops.end(), "update"), 5);
  EXPECT_EQ(ops[1], "publish");
}

INSTANTIATE_TEST_SUITE_P(Databases, ArticlesTest, AllDbs(), DbName);
INSTANTIATE_TEST_SUITE_P(Databases, ChangeFeedConcurrencyTest, AllDbs(), DbName);
INSTANTIATE_TEST_SUITE_P(Databases, ViewFlushTest, AllDbs(), DbName);
INSTANTIATE_TEST_SUITE_P(Databases, ArticleRoundTripTest, AllDbs(), DbName);

}  // namespace
}  // namespace plaudit::testing
