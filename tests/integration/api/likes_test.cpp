// API.md "Likes" and the invariants behind them: exactly-once counts under storms, misses
// that consult SQL, bucketed keys, and a write-behind flush that can be repeated or
// interrupted without losing or doubling anything. Real Redis, SQLite and PostgreSQL.
#include <random>
#include <thread>

#include "common/when_all.hpp"
#include "likes_fixture.hpp"
#include "redis/keys.hpp"
#include "store/redis_freshness.hpp"

namespace plaudit::testing {
namespace {

using namespace std::chrono_literals;

TEST_P(LikesTest, RepeatLikeKeepsCountAtOneAndUnlikeIsIdempotent) {
  int64_t id = NewArticle();
  auto c = Client();
  auto r = c.Put(LikePath(id), "", Bearer(poster_));
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.body, R"({"liked":true,"likeCount":1})");
  EXPECT_EQ(c.Put(LikePath(id), "", Bearer(poster_)).body, R"({"liked":true,"likeCount":1})");
  EXPECT_EQ(c.Get(LikePath(id), Bearer(poster_)).body, R"({"liked":true,"likeCount":1})");
  EXPECT_EQ(c.Get(LikePath(id)).body, R"({"liked":false,"likeCount":1})");  // anonymous
  auto a = c.Get("/api/v1/articles/" + std::to_string(id), Bearer(poster_)).Json();
  EXPECT_EQ(a.at("likeCount").as_int64(), 1);
  EXPECT_TRUE(a.at("liked").as_bool());
  EXPECT_EQ(c.Delete(LikePath(id), Bearer(poster_)).body, R"({"liked":false,"likeCount":0})");
  EXPECT_EQ(c.Delete(LikePath(id), Bearer(poster_)).body, R"({"liked":false,"likeCount":0})");
  // Unliking what you never liked changes nothing.
  Register("other");
  std::string other = Login("other");
  EXPECT_EQ(c.Delete(LikePath(id), Bearer(other)).body, R"({"liked":false,"likeCount":0})");
}

TEST_P(LikesTest, BadTargetsAndAnonymousWritesChangeNothing) {
  int64_t id = NewArticle();
  auto c = Client();
  EXPECT_EQ(c.Put(LikePath(id)).status, 401);
  EXPECT_EQ(c.Put(LikePath(999999), "", Bearer(poster_)).status, 404);
  EXPECT_EQ(c.Put("/api/v1/articles/abc/like", "", Bearer(poster_)).status, 400);
  Register("nosy");
  std::string nosy = Login("nosy");
  auto draft = c.Post("/api/v1/articles", R"({"title":"d","content":"c"})", Bearer(poster_));
  int64_t draft_id = draft.Json().at("id").as_int64();
  EXPECT_EQ(c.Put(LikePath(draft_id), "", Bearer(nosy)).status, 404);  // can't see, can't like
  EXPECT_EQ(c.Send(beast::http::verb::put, LikePath(id), "x", "text/plain", Bearer(poster_)).status,
            415);
  EXPECT_EQ(c.Get(LikePath(id)).body, R"({"liked":false,"likeCount":0})");
}

TEST_P(LikesTest, StormOfLikesAndUnlikesKeepsCountsEqualToStates) {
  constexpr int kUsers = 50, kTargets = 10, kThreads = 16, kOpsPerThread = 120;
  std::vector<int64_t> articles;
  for (int i = 0; i < kTargets; ++i) {
    articles.push_back(NewArticle("t" + std::to_string(i)));
  }
  std::vector<std::string> tokens = NewUsers("storm", kUsers);
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937 rng(1234 + t);
      HttpClient c = Client();
      for (int i = 0; i < kOpsPerThread; ++i) {
        const auto& token = tokens[rng() % kUsers];
        std::string path = LikePath(articles[rng() % kTargets]);
        auto r = rng() % 2 ? c.Put(path, "", Bearer(token)) : c.Delete(path, Bearer(token));
        if (r.status != 200) {
          ++failures;
        }
      }
    });
  }
  for (auto& th : threads) {
    th.join();
  }
  ASSERT_EQ(failures.load(), 0);

  // Redis: every count equals the number of users whose state is true.
  std::string ids;
  for (int64_t a : articles) {
    ids += (ids.empty() ? "" : ",") + std::to_string(a);
  }
  std::map<int64_t, int64_t> liked_by;
  std::map<int64_t, int64_t> counts;
  auto c = Client();
  for (const auto& token : tokens) {
    auto r = c.Get("/api/v1/likes?article=" + ids, Bearer(token));
    ASSERT_EQ(r.status, 200);
    auto json = r.Json();
    for (int64_t a : articles) {
      const auto& s = json.at("article").at(std::to_string(a));
      liked_by[a] += s.at("liked").as_bool() ? 1 : 0;
      counts[a] = s.at("likeCount").as_int64();
    }
  }
  int64_t total = 0;
  for (int64_t a : articles) {
    EXPECT_EQ(counts[a], liked_by[a]) << "article " << a;
    total += liked_by[a];
  }
  EXPECT_GT(total, 0);

  // SQL after a flush: rows == count == Redis.
  FlushLikes();
  for (int64_t a : articles) {
    auto [rows, stored] = SqlLikes(a);
    EXPECT_EQ(rows, liked_by[a]) << "article " << a;
    EXPECT_EQ(stored, liked_by[a]) << "article " << a;
  }
  // And a second flush has nothing left to write.
  EXPECT_EQ(FlushLikes().changes, 0);
}

TEST_P(LikesTest, FlushRepeatedOrInterruptedLosesAndDoublesNothing) {
  int64_t id = NewArticle();
  std::vector<std::string> tokens = NewUsers("flusher", 3);
  auto c = Client();
  c.Put(LikePath(id), "", Bearer(tokens[0]));
  c.Put(LikePath(id), "", Bearer(tokens[1]));

  // The flusher dies between its SQL commit and its Redis cleanup.
  app_->app().flush_faults().like_after_commit = [] { return true; };
  auto aborted = TryFlushLikes();
  EXPECT_FALSE(aborted);
  app_->app().flush_faults().like_after_commit = nullptr;
  EXPECT_EQ(SqlLikes(id), (std::pair<int64_t, int64_t>{2, 2}));
  // A change that arrives while that batch is still in flight...
  c.Put(LikePath(id), "", Bearer(tokens[2]));
  c.Delete(LikePath(id), Bearer(tokens[0]));
  // ...is neither lost nor confused with it when the next pass runs the batch again.
  FlushLikes();
  EXPECT_EQ(SqlLikes(id), (std::pair<int64_t, int64_t>{2, 2}));
  EXPECT_EQ(redis_.Cli("SCARD " + redis::keys::LikeInFlightSet(redis::keys::LikeShard(id))), "0");
  EXPECT_EQ(FlushLikes().changes, 0);
  EXPECT_EQ(SqlLikes(id), (std::pair<int64_t, int64_t>{2, 2}));
  EXPECT_EQ(c.Get(LikePath(id)).Json().at("likeCount").as_int64(), 2);
}

TEST_P(LikesTest, FlushAllAfterAFlushLosesNoneAndARepeatLikeDoesNotDoubleCount) {
  int64_t id = NewArticle();
  std::vector<std::string> tokens = NewUsers("repeat", 3);
  auto c = Client();
  c.Put(LikePath(id), "", Bearer(tokens[0]));
  // More changes before FLUSHALL than after it: a shard seq that restarted from 1 would
  // then leave user 0's last-flushed row newer than the unlike below, and SQL would keep it.
  for (int k = 0; k < 5; ++k) {
    EXPECT_EQ(c.Delete(LikePath(id), Bearer(tokens[0])).status, 200);
    EXPECT_EQ(c.Put(LikePath(id), "", Bearer(tokens[0])).status, 200);
  }
  c.Put(LikePath(id), "", Bearer(tokens[1]));
  FlushLikes();
  ASSERT_EQ(redis_.Cli("FLUSHALL"), "OK");
  for (int u = 0; u < 3; ++u) {
    tokens[u] = Login("repeat" + std::to_string(u));
  }
  // The count and the states come back from SQL; a repeat like is recognised as one.
  EXPECT_EQ(c.Get(LikePath(id), Bearer(tokens[0])).body, R"({"liked":true,"likeCount":2})");
  EXPECT_EQ(c.Put(LikePath(id), "", Bearer(tokens[1])).body, R"({"liked":true,"likeCount":2})");
  EXPECT_EQ(c.Put(LikePath(id), "", Bearer(tokens[2])).body, R"({"liked":true,"likeCount":3})");
  EXPECT_EQ(c.Delete(LikePath(id), Bearer(tokens[0])).body, R"({"liked":false,"likeCount":2})");
  FlushLikes();
  EXPECT_EQ(SqlLikes(id), (std::pair<int64_t, int64_t>{2, 2}));
}

TEST_P(LikesTest, LikeIsOneRedisCommandWhenWarm) {
  int64_t id = NewArticle();
  domain::Principal who{4242, "ghost", "ghost", domain::Role::kUser};
  const model::Target target = model::Target::Article(id);
  ASSERT_TRUE(OnLoop(app_->app().likes().Set(who, target, true)));  // loads the bucket
  auto before = OnLoop(
      [&]() -> Awaitable<uint64_t> { co_return app_->app().redis().stats().commands_sent; }());
  auto r = OnLoop(app_->app().likes().Set(who, target, false));
  ASSERT_TRUE(r);
  EXPECT_FALSE(r->liked);
  auto after = OnLoop(
      [&]() -> Awaitable<uint64_t> { co_return app_->app().redis().stats().commands_sent; }());
  EXPECT_EQ(after - before, 1u);
}

// Over HTTP a warm like of a published article is one script call, which checks the
// article's cached status itself; the session comes from this process's session cache
// (one HMGET more without it). A draft (or an article unpublished after
// it was cached) takes the full check: its author may like it, nobody else, and a refused
// like changes nothing.
TEST_P(LikesTest, ArticleLikeChecksPublishedInTheLikeScript) {
  PL_COUNTS_ONE_INSTANCE();
  int64_t id = NewArticle();
  Register("fan");
  std::string fan = Login("fan");
  auto c = Client();
  ASSERT_EQ(c.Put(LikePath(id), "", Bearer(fan)).status, 200);  // warms session, bucket, count
  auto commands = [&] {
    return OnLoop(
        [&]() -> Awaitable<uint64_t> { co_return app_->app().redis().stats().commands_sent; }());
  };
  // The script's HGET finds 'status' first in the article's cached hash (it scans from the
  // front).
  std::string tag = "{l" + std::to_string(id % 256) + "}";
  EXPECT_EQ(redis_.Cli("HKEYS 'pl:art:" + tag + ":" + std::to_string(id) + "'").substr(0, 7),
            "status\n");
  // The warm like's announcement to live readers (LiveFeed::Liked) has gone out: the likes
  // within the second after it wait for the thread's gate without a command of their own.
  ASSERT_TRUE(WaitFor([&] { return LiveFeedIdle(); }, 5s));
  auto before = commands();
  auto r = c.Delete(LikePath(id), Bearer(fan));
  ASSERT_EQ(r.status, 200);
  EXPECT_EQ(r.body, R"({"liked":false,"likeCount":0})");
  EXPECT_EQ(commands() - before, 1u) << "like_set.lua alone (the session is cached)";
  ASSERT_EQ(c.Put(LikePath(id), "", Bearer(fan)).body, R"({"liked":true,"likeCount":1})");

  // Unpublished: the cache now says draft, so the script refuses and the full check runs.
  std::string path = "/api/v1/articles/" + std::to_string(id);
  ASSERT_EQ(c.Patch(path, R"({"status":"draft"})", Bearer(poster_)).status, 200);
  EXPECT_EQ(c.Delete(LikePath(id), Bearer(fan)).status, 404);
  EXPECT_EQ(c.Put(LikePath(id), "", Bearer(poster_)).body, R"({"liked":true,"likeCount":2})");
  // Not cached at all (FLUSHALL after a flush): loaded from SQL and checked the same way.
  ASSERT_TRUE(OnLoop(app_->app().flusher().FlushNow()));
  ASSERT_EQ(redis_.Cli("FLUSHALL"), "OK");
  fan = Login("fan");
  std::string poster = Login("poster");
  EXPECT_EQ(c.Put(LikePath(id), "", Bearer(fan)).status, 404);
  EXPECT_EQ(c.Delete(LikePath(id), Bearer(poster)).body, R"({"liked":false,"likeCount":1})");
  ASSERT_EQ(c.Patch(path, R"({"status":"published"})", Bearer(poster)).status, 200);
  EXPECT_EQ(c.Delete(LikePath(id), Bearer(fan)).body, R"({"liked":false,"likeCount":0})");
}

// The same for a comment: once this process has seen where the comment sits, a warm like is
// one script call, which checks the article's cached status and the comment's cached
// deletion itself; an unpublished article or a deleted comment takes the full check (the
// article's author may still like a draft's comment; nobody may like a deleted one), and a
// refused like changes nothing.
TEST_P(LikesTest, CommentLikeChecksPublishedAndLiveInTheLikeScript) {
  PL_COUNTS_ONE_INSTANCE();
  int64_t id = NewArticle();
  Register("fan");
  std::string fan = Login("fan");
  auto c = Client();
  auto posted = c.Post("/api/v1/articles/" + std::to_string(id) + "/comments",
                       R"({"body":"likeable"})", Bearer(fan));
  ASSERT_EQ(posted.status, 201) << posted.body;
  const std::string path =
      "/api/v1/comments/" + std::to_string(posted.Json().at("id").as_int64()) + "/like";
  ASSERT_EQ(c.Put(path, "", Bearer(poster_)).status, 200);  // warms session, bucket, count
  ASSERT_EQ(c.Put(path, "", Bearer(fan)).status, 200);
  auto commands = [&] {
    return OnLoop(
        [&]() -> Awaitable<uint64_t> { co_return app_->app().redis().stats().commands_sent; }());
  };
  ASSERT_TRUE(WaitFor([&] { return LiveFeedIdle(); }, 5s));  // as above
  auto before = commands();
  auto r = c.Delete(path, Bearer(fan));
  ASSERT_EQ(r.status, 200);
  EXPECT_EQ(r.body, R"({"liked":false,"likeCount":1})");
  EXPECT_EQ(commands() - before, 1u) << "like_set.lua alone (the session is cached)";
  ASSERT_EQ(c.Put(path, "", Bearer(fan)).body, R"({"liked":true,"likeCount":2})");

  // Unpublished: the script refuses, the full check runs: the author may, the fan may not.
  const std::string article = "/api/v1/articles/" + std::to_string(id);
  ASSERT_EQ(c.Patch(article, R"({"status":"draft"})", Bearer(poster_)).status, 200);
  EXPECT_EQ(c.Delete(path, Bearer(fan)).status, 404);
  EXPECT_EQ(c.Delete(path, Bearer(poster_)).body, R"({"liked":false,"likeCount":1})");
  ASSERT_EQ(c.Patch(article, R"({"status":"published"})", Bearer(poster_)).status, 200);
  EXPECT_EQ(c.Put(path, "", Bearer(poster_)).body, R"({"liked":true,"likeCount":2})");
  // Deleted: nobody may like or unlike it, and its count stays.
  const std::string comment = path.substr(0, path.size() - 5);
  ASSERT_EQ(c.Delete(comment, Bearer(fan)).status, 204);
  EXPECT_EQ(c.Delete(path, Bearer(fan)).status, 404);
  EXPECT_EQ(c.Delete(path, Bearer(poster_)).status, 404);
  FlushLikes();
  const int64_t comment_id = posted.Json().at("id").as_int64();
  std::function<Result<int64_t>(sql::Connection&)> valid =
      [comment_id](sql::Connection& conn) -> Result<int64_t> {
    auto rows = conn.Query(
        "SELECT COUNT(*) FROM likes WHERE target_type = 'c' AND target_id = $1 AND valid = 1",
        {comment_id});
    if (!rows) {
      return tl::unexpected(rows.error());
    }
    return sql::Int(rows->rows.at(0).at(0));
  };
  EXPECT_EQ(OnLoop(app_->app().store().Run<int64_t>(std::move(valid))), 2);
}

TEST_P(LikesTest, LikeRecordsStayInSmallIntsetBuckets) {
  int64_t id = NewArticle();
  // 1,500 synthetic users across six buckets (ids need not be registered for the store).
  for (int64_t uid = 1; uid <= 1500; ++uid) {
    domain::Principal who{uid, "u", "u", domain::Role::kUser};
    const model::Target target = model::Target::Article(id);
    ASSERT_TRUE(OnLoop(app_->app().likes().Set(who, target, true)));
  }
  std::string keys = redis_.Cli("--scan --pattern 'pl:lk:*'");
  int buckets = 0;
  std::istringstream in(keys);
  for (std::string key; std::getline(in, key);) {
    ++buckets;
    EXPECT_LE(std::stoll(redis_.Cli("SCARD '" + key + "'")), 257) << key;
    EXPECT_EQ(redis_.Cli("OBJECT ENCODING '" + key + "'"), "intset") << key;
  }
  EXPECT_EQ(buckets, 6);
  EXPECT_EQ(Client().Get(LikePath(id)).Json().at("likeCount").as_int64(), 1500);
  FlushLikes();
  EXPECT_EQ(SqlLikes(id), (std::pair<int64_t, int64_t>{1500, 1500}));
}

TEST_P(LikesTest, ASmallTargetKeepsOneSetAndABigOneSplitsWithoutLosingAChange) {
  auto set = [&](int64_t target, int64_t uid, bool like) { return SetLike(target, uid, like); };
  auto get = [&](int64_t target, int64_t uid) {
    const model::Target t = model::Target::Article(target);
    auto r = OnLoop(app_->app().likes().Get(uid, t));
    EXPECT_TRUE(r);
    return r ? *r : domain::LikeState{};
  };
  auto keys_of = [&](int64_t target) {
    std::string tag = "{l" + std::to_string(target % 256) + "}";
    std::string keys =
        redis_.Cli("--scan --pattern 'pl:lk:" + tag + ":a" + std::to_string(target) + ":*'");
    std::vector<std::string> out;
    std::istringstream in(keys);
    for (std::string key; std::getline(in, key);) {
      out.push_back(key);
    }
    return out;
  };
  // like_set.lua tells big mode by a bucket's 0 member alone, trusting that no bucket exists
  // without the big-mode mark: check that wherever buckets are made (split, load from SQL).
  auto big_mark = [&](int64_t target) {
    return redis_.Cli("EXISTS 'pl:lb:{l" + std::to_string(target % 256) + "}:a" +
                      std::to_string(target) + "'");
  };

  // 100 likers: one intset holding them all (plus the loaded mark).
  const int64_t small = NewArticle("small");
  for (int64_t uid = 1000; uid < 1100; ++uid) {
    set(small, uid, true);
  }
  auto small_keys = keys_of(small);
  ASSERT_EQ(small_keys.size(), 1u);
  EXPECT_EQ(small_keys[0].substr(small_keys[0].size() - 2), ":s");
  EXPECT_EQ(redis_.Cli("SCARD '" + small_keys[0] + "'"), "101");
  EXPECT_EQ(redis_.Cli("OBJECT ENCODING '" + small_keys[0] + "'"), "intset");

  // User 600 likes and that reaches SQL; then unlikes (pending, small mode); then 257 others
  // like, which splits the set. 600's bucket is not among the split ones: when it loads
  // from SQL (still "liked") the pending unlike must be replayed on top.
  const int64_t big = NewArticle("big");
  set(big, 600, true);
  FlushLikes();
  EXPECT_FALSE(set(big, 600, false).liked);
  for (int64_t uid = 1; uid <= 257; ++uid) {
    EXPECT_EQ(set(big, uid, true).count, uid);
  }
  EXPECT_EQ(big_mark(big), "1") << "the split sets the big-mode mark";
  for (const auto& key : keys_of(big)) {
    EXPECT_NE(key.substr(key.size() - 2), ":s") << "the small set should be gone";
    EXPECT_LE(std::stoll(redis_.Cli("SCARD '" + key + "'")), 257) << key;
    EXPECT_EQ(redis_.Cli("OBJECT ENCODING '" + key + "'"), "intset") << key;
  }
  EXPECT_FALSE(get(big, 600).liked);
  EXPECT_EQ(get(big, 600).count, 257);
  EXPECT_TRUE(get(big, 5).liked);
  EXPECT_TRUE(get(big, 257).liked);
  // A batch within one shard (a comment page: like_get.lua) reads big and small mode alike,
  // loading a bucket no one has read yet (user 800's) from SQL.
  auto page = [&](int64_t target, int64_t uid) {
    // A comment id in the article's shard (a comment's id carries it: keys::CommentIdFor).
    std::vector<model::Target> ts{model::Target::Article(target),
                                  model::Target::Comment(target + 256 * 4096)};
    auto r = OnLoop(app_->app().likes().GetMany(uid, ts));
    EXPECT_TRUE(r) << (r ? "" : r.error().message);
    return r && r->size() == 2 ? (*r)[0] : domain::LikeState{true, -1};
  };
  EXPECT_TRUE(page(big, 5).liked);
  EXPECT_EQ(page(big, 5).count, 257);
  EXPECT_FALSE(page(big, 600).liked);
  EXPECT_FALSE(page(big, 800).liked);
  EXPECT_EQ(page(big, 800).count, 257);
  EXPECT_TRUE(page(small, 1001).liked);
  EXPECT_FALSE(page(small, 5).liked);
  EXPECT_EQ(page(small, 5).count, 100);
  EXPECT_FALSE(set(big, 600, false).liked);  // still nothing to undo
  EXPECT_EQ(set(big, 5, false).count, 256);
  EXPECT_EQ(set(big, 5, true).count, 257);
  EXPECT_EQ(set(big, 900, true).count, 258);  // a bucket no split created
  FlushLikes();
  EXPECT_EQ(SqlLikes(big), (std::pair<int64_t, int64_t>{258, 258}));

  // From SQL again, in big mode.
  FlushAllRedisAndRelogin();
  EXPECT_EQ(big_mark(big), "0");
  EXPECT_FALSE(get(big, 600).liked);
  EXPECT_TRUE(get(big, 900).liked);
  EXPECT_EQ(big_mark(big), "1") << "a bucket loaded from SQL comes with the big-mode mark";
  EXPECT_EQ(set(big, 5, true).count, 258);  // a repeat like does not double
  EXPECT_EQ(set(big, 601, true).count, 259);
  EXPECT_EQ(get(small, 1050).count, 100);
  EXPECT_TRUE(get(small, 1050).liked);
  FlushLikes();
  EXPECT_EQ(SqlLikes(big), (std::pair<int64_t, int64_t>{259, 259}));
}

// like_set.lua reads the set this process last saw the target in first (LikeModeHints): a
// like on a split target is one SMISMEMBER, not two. A wrong guess (the target loaded small
// again after FLUSHALL) costs the second read and still counts right.
TEST_P(LikesTest, ALikeReadsTheModeItSawLastFirstAndAWrongGuessOnlyCostsACall) {
  PL_COUNTS_ONE_INSTANCE();
  auto set = [&](int64_t target, int64_t uid, bool like) { return SetLike(target, uid, like); };
  auto smismember_calls = [&] { return RedisCalls("smismember"); };
  const int64_t id = NewArticle();
  for (int64_t uid = 1; uid <= 300; ++uid) {
    set(id, uid, true);  // splits at 258
  }
  auto before = smismember_calls();
  EXPECT_EQ(set(id, 301, true).count, 301);
  EXPECT_EQ(smismember_calls() - before, 1) << "big mode, guessed: the bucket alone";
  before = smismember_calls();
  EXPECT_EQ(set(id, 5, true).count, 301);  // unchanged
  EXPECT_EQ(smismember_calls() - before, 1);

  // Back under 257 likers in SQL, then Redis emptied: the target loads small, while this
  // process still guesses big.
  for (int64_t uid = 1; uid <= 200; ++uid) {
    set(id, uid, false);
  }
  FlushLikes();
  ASSERT_EQ(redis_.Cli("FLUSHALL"), "OK");
  EXPECT_EQ(set(id, 150, true).count, 102);  // miss, load (small), retry: bucket, then small
  EXPECT_EQ(
      redis_.Cli("EXISTS 'pl:lb:{l" + std::to_string(id % 256) + "}:a" + std::to_string(id) + "'"),
      "0")
      << "loaded small";
  before = smismember_calls();
  EXPECT_EQ(set(id, 151, true).count, 103);
  EXPECT_EQ(smismember_calls() - before, 1) << "the guess follows the last answer";
  EXPECT_EQ(set(id, 150, false).count, 102);
  FlushLikes();
  EXPECT_EQ(SqlLikes(id), (std::pair<int64_t, int64_t>{102, 102}));
}

// A change that replaces the same user's unflushed one skips the dirty-index ZADD (its
// bucket is dirty already); the flush still writes the last state and leaves nothing dirty,
// and the next change marks the bucket again.
// The check as it stands on a connection not yet checked whose check could not read SQL (a
// reconnect during a database outage, or within the check's one-second back-off after one
// failed, when the database is back for everything else).
class CheckCannotReadSql final : public store::RedisFreshness {
 public:
  bool LikesChecked() const override { return false; }
  bool ViewsChecked() const override { return false; }
  Awaitable<Result<bool>> Check() override { co_return false; }
  Awaitable<Result<bool>> Recheck() override { co_return false; }
  Awaitable<Status> EnsureViews() override { co_return Status{}; }
};

// Likes answer 503 and change nothing until a check has read SQL. They used to go on: the
// soak restarted the database, then restored Redis from an older snapshot inside the check's
// back-off, and unlikes taken on the older Redis, stamped below the rows SQL already held,
// lost to them when the check at last ran (acknowledged, then undone).
TEST_P(LikesNoTimerTest, ALikeOnAConnectionWhoseCheckCouldNotReadSqlIs503AndChangesNothing) {
  const int64_t article = NewArticle();
  const std::string fan = NewUsers("fan", 1)[0];
  auto c = Client();
  ASSERT_EQ(c.Put(LikePath(article), "", Bearer(fan)).status, 200);  // loaded and checked
  CheckCannotReadSql unchecked;
  // On every instance the client may ask (a cluster run has two); nullptr: each its own.
  auto swap = [this](store::RedisFreshness* freshness) {
    for (AppUnderTest* a : {app_.get(), peer_.get()}) {
      if (a == nullptr) {
        continue;
      }
      store::RedisFreshness* use = freshness ? freshness : &a->app().redis_check();
      std::function<Awaitable<bool>()> set = [a, use]() -> Awaitable<bool> {
        a->app().likes().SetRedisFreshness(use);
        co_return true;
      };
      net::co_spawn(a->app().io(), set(), net::use_future).get();
    }
  };
  swap(&unchecked);
  auto unlike = c.Delete(LikePath(article), Bearer(fan));
  EXPECT_EQ(unlike.status, 503) << unlike.body;
  EXPECT_EQ(unlike.ErrorCode(), "unavailable") << unlike.body;
  EXPECT_EQ(c.Get(LikePath(article), Bearer(fan)).status, 503);
  swap(nullptr);
  EXPECT_EQ(c.Get(LikePath(article), Bearer(fan)).body, R"({"liked":true,"likeCount":1})");
}

TEST_P(LikesNoTimerTest, ARepeatChangeBeforeAFlushLeavesTheBucketDirtyOnce) {
  PL_COUNTS_ONE_INSTANCE();
  auto set = [&](int64_t target, int64_t uid, bool like) { return SetLike(target, uid, like); };
  auto zadd_calls = [&] { return RedisCalls("zadd"); };
  const int64_t id = NewArticle();
  const std::string dirty = "pl:ld:{l" + std::to_string(id % 256) + "}";
  ASSERT_TRUE(set(id, 7, true).liked);  // warms: loads the user's records and the count
  FlushLikes();
  ASSERT_EQ(redis_.Cli("ZCARD '" + dirty + "'"), "0");
  auto before = zadd_calls();
  EXPECT_FALSE(set(id, 7, false).liked);
  EXPECT_EQ(zadd_calls() - before, 1) << "the first change marks the bucket dirty";
  EXPECT_TRUE(set(id, 7, true).liked);
  EXPECT_FALSE(set(id, 7, false).liked);
  EXPECT_EQ(zadd_calls() - before, 1) << "repeats find it dirty already";
  EXPECT_EQ(redis_.Cli("ZCARD '" + dirty + "'"), "1");
  EXPECT_EQ(set(id, 8, true).count, 1);  // another user in the same pending hash
  EXPECT_EQ(zadd_calls() - before, 2);
  FlushLikes();
  EXPECT_EQ(SqlLikes(id), (std::pair<int64_t, int64_t>{1, 1}));
  EXPECT_EQ(redis_.Cli("ZCARD '" + dirty + "'"), "0");
  EXPECT_TRUE(set(id, 7, true).liked);
  EXPECT_EQ(zadd_calls() - before, 3) << "after the flush the bucket is marked again";
  EXPECT_EQ(redis_.Cli("ZCARD '" + dirty + "'"), "1");
  FlushLikes();
  EXPECT_EQ(SqlLikes(id), (std::pair<int64_t, int64_t>{2, 2}));
}

// Likes of one target that arrive while a call for it is in flight wait and share the next
// call (a viral target's likes), each answered as if alone, in order: a like and an unlike
// of one user in one call, a repeat that changes nothing.
TEST_P(LikesNoTimerTest, LikesOfOneTargetInFlightTogetherShareACallAndEachIsAnsweredInOrder) {
  const int64_t id = NewArticle();
  ASSERT_TRUE(SetLike(id, 1, true).liked);  // warms: the small set and the count
  const model::Target t = model::Target::Article(id);
  std::vector<std::pair<int64_t, bool>> ops;
  for (int64_t uid = 2; uid <= 41; ++uid) {
    ops.emplace_back(uid, true);
  }
  ops.emplace_back(7, false);
  ops.emplace_back(1, true);
  std::vector<domain::Principal> who;  // outlive the calls, which keep references
  who.reserve(ops.size());
  for (const auto& op : ops) {
    who.push_back({op.first, "u", "u", domain::Role::kUser});
  }
  const int64_t evalsha_before = RedisCalls("evalsha");
  auto results = OnLoop([&]() -> Awaitable<std::vector<Result<domain::LikeState>>> {
    std::vector<Awaitable<Result<domain::LikeState>>> calls;
    for (size_t i = 0; i < ops.size(); ++i) {
      calls.push_back(app_->app().likes().Set(who[i], t, ops[i].second));
    }
    co_return co_await WhenAll(std::move(calls));
  }());
  const int64_t calls = RedisCalls("evalsha") - evalsha_before;
  ASSERT_EQ(results.size(), ops.size());
  for (size_t i = 0; i < 40; ++i) {
    ASSERT_TRUE(results[i]) << i;
    EXPECT_TRUE(results[i]->liked) << i;
    EXPECT_EQ(results[i]->count, static_cast<int64_t>(i) + 2) << i;
  }
  ASSERT_TRUE(results[40] && results[41]);
  EXPECT_FALSE(results[40]->liked);
  EXPECT_EQ(results[40]->count, 40);
  EXPECT_TRUE(results[41]->liked);
  EXPECT_EQ(results[41]->count, 40);
  EXPECT_LT(calls, static_cast<int64_t>(ops.size()) / 4) << "likes in flight together share calls";
  EXPECT_EQ(
      redis_.Cli("GET 'pl:lc:{l" + std::to_string(id % 256) + "}:a" + std::to_string(id) + "'"),
      "40");
  FlushLikes();
  EXPECT_EQ(SqlLikes(id), (std::pair<int64_t, int64_t>{40, 40}));
}

// A change is recorded as its state alone; the claim stamps each hash with a seq. A user's
// change before a split sits in the target's small-mode hash, the next one in a bucket's:
// even when the flusher is handed the bucket first, the small-mode hash is claimed first
// (with the lower seq), and the one statement that writes both upserts the row once.
TEST_P(LikesNoTimerTest, AChangeAfterASplitWinsOverTheOneBeforeItWhateverTheClaimOrder) {
  auto set = [&](int64_t target, int64_t uid, bool like) { return SetLike(target, uid, like); };
  const int64_t id = NewArticle();
  const std::string tag = "{l" + std::to_string(id % 256) + "}";
  const std::string t = "a" + std::to_string(id);
  for (int64_t uid = 1; uid <= 256; ++uid) {
    set(id, uid, true);
  }
  FlushLikes();
  EXPECT_EQ(set(id, 600, true).count, 257);  // small-mode pending 600 → 1; the 257th splits
  ASSERT_EQ(redis_.Cli("EXISTS 'pl:lb:" + tag + ":" + t + "'"), "1");
  EXPECT_EQ(set(id, 600, false).count, 256);  // bucket 2's pending: 600 → 0
  EXPECT_EQ(redis_.Cli("HGET 'pl:lp:" + tag + ":" + t + ":s' 600"), "1") << "a state, no seq";
  EXPECT_EQ(redis_.Cli("HGET 'pl:lp:" + tag + ":" + t + ":2' 600"), "0");
  // Bucket 2 first in the dirty index, so first in the claim's batch; both rows of 600 then
  // fall in one statement.
  ASSERT_EQ(redis_.Cli("ZADD 'pl:ld:" + tag + "' XX 0 " + t + ":2"), "0");
  ASSERT_EQ(redis_.Cli("ZRANGE 'pl:ld:" + tag + "' 0 -1"), t + ":2\n" + t + ":s");
  FlushLikes();
  EXPECT_EQ(SqlLikes(id), (std::pair<int64_t, int64_t>{256, 256}));
  EXPECT_EQ(redis_.Cli("ZCARD 'pl:ld:" + tag + "'"), "0");
  EXPECT_EQ(redis_.Cli("SCARD 'pl:lfi:" + tag + "'"), "0");
  // From SQL alone, 600 stays unliked and the count right.
  FlushAllRedisAndRelogin();
  EXPECT_FALSE(set(id, 600, false).liked);
  EXPECT_EQ(set(id, 601, true).count, 257);
  FlushLikes();
  EXPECT_EQ(SqlLikes(id), (std::pair<int64_t, int64_t>{257, 257}));
}

// The same order when the small-mode hash cannot be claimed yet (its in-flight hash, left by
// a pass, still blocks it): the bucket stays dirty and is stamped after it.
TEST_P(LikesNoTimerTest, ABucketWaitsWhileItsTargetsSmallModeChangesAreBlocked) {
  auto set = [&](int64_t target, int64_t uid, bool like) { return SetLike(target, uid, like); };
  const int64_t id = NewArticle();
  const int shard = static_cast<int>(id % 256);
  const std::string tag = "{l" + std::to_string(shard) + "}";
  const std::string t = "a" + std::to_string(id);
  for (int64_t uid = 1; uid <= 255; ++uid) {
    set(id, uid, true);
  }
  FlushLikes();
  EXPECT_EQ(set(id, 599, true).count, 256);
  std::vector<std::string> small{t + ":s"};
  ASSERT_TRUE(OnLoop(app_->app().like_store().Claim(shard, small)));  // left in flight
  EXPECT_EQ(set(id, 600, true).count, 257);  // small-mode pending again; the 257th splits
  ASSERT_EQ(redis_.Cli("EXISTS 'pl:lb:" + tag + ":" + t + "'"), "1");
  EXPECT_EQ(set(id, 600, false).count, 256);  // bucket 2's pending
  std::vector<std::string> bucket{t + ":2"};
  auto claimed = OnLoop(app_->app().like_store().Claim(shard, bucket));
  ASSERT_TRUE(claimed);
  EXPECT_TRUE(claimed->empty()) << "nothing stamped before the small-mode changes";
  EXPECT_FALSE(redis_.Cli("ZSCORE 'pl:ld:" + tag + "' " + t + ":2").empty()) << "still dirty";
  FlushLikes();
  EXPECT_EQ(SqlLikes(id), (std::pair<int64_t, int64_t>{256, 256}));
  EXPECT_EQ(redis_.Cli("ZCARD 'pl:ld:" + tag + "'"), "0");
}

// A retaken in-flight hash keeps the seq it was stamped with: a pass that died after its
// commit leaves it, a newer change of the same user is claimed later, and whichever of the
// two SQL writes comes last, the newer change stays.
TEST_P(LikesNoTimerTest, ARetakenClaimKeepsItsSeqSoANewerChangeStays) {
  auto set = [&](int64_t target, int64_t uid, bool like) { return SetLike(target, uid, like); };
  const int64_t id = NewArticle();
  const std::string tag = "{l" + std::to_string(id % 256) + "}";
  const std::string inflight = "pl:lf:" + tag + ":a" + std::to_string(id) + ":s";
  ASSERT_TRUE(set(id, 7, true).liked);
  FlushLikes();
  EXPECT_FALSE(set(id, 7, false).liked);
  // Claim by hand (what a pass does first), and leave the batch in flight.
  std::vector<std::string> members{"a" + std::to_string(id) + ":s"};
  auto claimed = OnLoop(app_->app().like_store().Claim(static_cast<int>(id % 256), members));
  ASSERT_TRUE(claimed);
  ASSERT_EQ(claimed->size(), 1u);
  ASSERT_TRUE((*claimed)[0].seq.has_value());
  const std::string stamp = redis_.Cli("HGET '" + inflight + "' '#'");
  EXPECT_EQ(stamp, std::to_string(*(*claimed)[0].seq));
  auto retaken = OnLoop(app_->app().like_store().Claim(static_cast<int>(id % 256), members));
  ASSERT_TRUE(retaken);
  ASSERT_EQ(retaken->size(), 1u);
  EXPECT_EQ((*retaken)[0].seq, (*claimed)[0].seq) << "a retake keeps the stamp";
  EXPECT_TRUE(set(id, 7, true).liked);  // newer: a fresh pending hash
  FlushLikes();  // retakes the in-flight hash (stamp kept), then claims the pending one
  EXPECT_EQ(SqlLikes(id), (std::pair<int64_t, int64_t>{1, 1}));
  EXPECT_EQ(redis_.Cli("EXISTS '" + inflight + "'"), "0");
  // The old batch written once more, as a late duplicate pass would: it changes nothing.
  sql::LikeChange old{'a', id, 7, false, std::stoll(stamp)};
  std::vector<sql::LikeChange> replay{old};
  auto again = OnLoop(app_->app().like_table().Apply(std::move(replay)));
  ASSERT_TRUE(again);
  EXPECT_EQ(*again, 0);
  EXPECT_EQ(SqlLikes(id), (std::pair<int64_t, int64_t>{1, 1}));
}

TEST_P(LikesTest, BatchStatusForAPage) {
  int64_t a1 = NewArticle("one"), a2 = NewArticle("two");
  auto c = Client();
  c.Put(LikePath(a2), "", Bearer(poster_));
  auto r = c.Get("/api/v1/likes?article=" + std::to_string(a1) + "," + std::to_string(a2) +
                     ",999999&comment=7,8",
                 Bearer(poster_));
  ASSERT_EQ(r.status, 200) << r.body;
  auto j = r.Json();
  EXPECT_EQ(j.at("article").at(std::to_string(a1)).at("liked").as_bool(), false);
  EXPECT_EQ(j.at("article").at(std::to_string(a2)).at("liked").as_bool(), true);
  EXPECT_EQ(j.at("article").at(std::to_string(a2)).at("likeCount").as_int64(), 1);
  EXPECT_EQ(j.at("article").at("999999").at("likeCount").as_int64(), 0);
  EXPECT_EQ(j.at("comment").at("7").at("liked").as_bool(), false);
  std::string many;
  for (int i = 1; i <= 101; ++i) {
    many += (i > 1 ? "," : "") + std::to_string(i);
  }
  EXPECT_EQ(c.Get("/api/v1/likes?article=" + many).status, 400);
  EXPECT_EQ(c.Get("/api/v1/likes?article=1,x").status, 400);
  EXPECT_EQ(c.Get("/api/v1/likes?article=0").status, 400);
  // Lists carry likes too.
  auto list = c.Get("/api/v1/articles", Bearer(poster_)).Json();
  EXPECT_EQ(list.at("items").at(0).at("id").as_int64(), a2);
  EXPECT_TRUE(list.at("items").at(0).at("liked").as_bool());

  // Anonymous readers get the counts only (plain reads); counts missing from Redis (after a
  // flush and FLUSHALL) come back from SQL, and unknown targets count 0.
  ASSERT_TRUE(OnLoop(app_->app().flusher().FlushNow()));
  ASSERT_EQ(redis_.Cli("FLUSHALL"), "OK");
  std::string anon_path =
      "/api/v1/likes?article=" + std::to_string(a1) + "," + std::to_string(a2) + ",999999";
  for (int pass = 0; pass < 2; ++pass) {  // loaded from SQL, then from Redis
    auto anon = c.Get(anon_path);
    ASSERT_EQ(anon.status, 200) << anon.body;
    auto aj = anon.Json().at("article");
    EXPECT_EQ(aj.at(std::to_string(a2)).at("likeCount").as_int64(), 1);
    EXPECT_FALSE(aj.at(std::to_string(a2)).at("liked").as_bool());
    EXPECT_EQ(aj.at(std::to_string(a1)).at("likeCount").as_int64(), 0);
    EXPECT_EQ(aj.at("999999").at("likeCount").as_int64(), 0);
  }
  EXPECT_EQ(redis_.Cli("GET pl:lc:{l" + std::to_string(a2 % 256) + "}:a" + std::to_string(a2)),
            "1");
  auto anon_list = c.Get("/api/v1/articles").Json();
  EXPECT_EQ(anon_list.at("items").at(0).at("likeCount").as_int64(), 1);
  EXPECT_FALSE(anon_list.at("items").at(0).at("liked").as_bool());
}

TEST_P(LikesTest, MetricsShowTheBacklogAndReconcileRepairsDrift) {
  int64_t id = NewArticle();
  Client().Put(LikePath(id), "", Bearer(poster_));
  auto report = FlushLikes();
  EXPECT_EQ(report.backlog, 1);
  auto m = Client().Get("/metrics").body;
  EXPECT_NE(m.find("plaudit_writebehind_backlog"), std::string::npos);
  EXPECT_NE(m.find("plaudit_writebehind_oldest_age_seconds"), std::string::npos);
  // Drift in SQL (a hand edit, a bug): reconcile recomputes the count from the rows.
  std::function<Result<bool>(sql::Connection&)> corrupt = [id](sql::Connection& c) -> Result<bool> {
    auto r = c.Query("UPDATE articles SET like_count = 99 WHERE id = $1", {id});
    if (!r) {
      return tl::unexpected(r.error());
    }
    return true;
  };
  ASSERT_TRUE(OnLoop(app_->app().store().Run<bool>(std::move(corrupt))));
  auto fixed = OnLoop(app_->app().like_flush().Reconcile());
  ASSERT_TRUE(fixed);
  EXPECT_EQ(*fixed, 1);
  EXPECT_EQ(SqlLikes(id), (std::pair<int64_t, int64_t>{1, 1}));
  EXPECT_EQ(*OnLoop(app_->app().like_flush().Reconcile()), 0);
}

INSTANTIATE_TEST_SUITE_P(Databases, LikesTest, AllDbs(), DbName);
INSTANTIATE_TEST_SUITE_P(Databases, LikesNoTimerTest, AllDbs(), DbName);

}  // namespace
}  // namespace plaudit::testing
