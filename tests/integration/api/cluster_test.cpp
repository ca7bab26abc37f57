// Invariant 5 (cluster-ready): plauditd against a redis-server in cluster mode (one node
// holding all 16,384 slots). Cluster mode refuses any script or command whose declared keys
// span hash slots (CROSSSLOT), so every feature that touches several keys at once runs here:
// sessions, articles and their indexes, likes (small sets, the split into buckets, the
// flush), comments (writes, pages, hot order, rebuild after FLUSHALL, rebuild-cache's SCAN).
// A CROSSSLOT reply would surface as a 500. (The one key a script builds rather than
// declares, like_set.lua's split buckets, carries the declared key's hash tag.)
#include <gtest/gtest.h>

#include "app/app.hpp"
#include "app_fixture.hpp"
#include "config/config.hpp"

namespace plaudit::testing {
namespace {

class ClusterModeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(redis_.Cli("CLUSTER ADDSLOTSRANGE 0 16383"), "OK");
    ASSERT_TRUE(WaitFor(
        [&] { return redis_.Cli("CLUSTER INFO").find("cluster_state:ok") != std::string::npos; },
        std::chrono::seconds(10)));
    config::Config c;
    c.password_hash = config::PasswordCost::kMinimal;
    c.bootstrap_admin = config::Credentials{"root", "rootpassword"};
    c.rate_limits = false;
    app_ = std::make_unique<AppUnderTest>(redis_, c);
  }

  template <class T>
  T OnLoop(Awaitable<T> op) {
    return net::co_spawn(app_->app().io(), std::move(op), net::use_future).get();
  }

  RedisServer redis_{{"--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf"}};
  std::unique_ptr<AppUnderTest> app_;
};

TEST_F(ClusterModeTest, EveryFeatureRunsOnAClusterModeRedis) {
  auto c = app_->Client();
  ASSERT_EQ(c.Post("/api/v1/users", R"({"username":"ann","password":"password123"})").status, 201);
  auto login = c.Post("/api/v1/sessions", R"({"username":"ann","password":"password123"})");
  ASSERT_EQ(login.status, 201) << login.body;
  const std::string token(login.Json().at("token").as_string());

  auto a = c.Post("/api/v1/articles", R"({"title":"t","content":"<p>c</p>","status":"published"})",
                  Bearer(token));
  ASSERT_EQ(a.status, 201) << a.body;
  const std::string article = std::to_string(a.Json().at("id").as_int64());
  EXPECT_EQ(c.Get("/api/v1/articles?size=5").status, 200);
  EXPECT_EQ(c.Get("/api/v1/articles/" + article).status, 200);
  EXPECT_EQ(c.Put("/api/v1/articles/" + article + "/like", "", Bearer(token)).status, 200);

  auto top =
      c.Post("/api/v1/articles/" + article + "/comments", R"({"body":"top"})", Bearer(token));
  ASSERT_EQ(top.status, 201) << top.body;
  const std::string top_id = std::to_string(top.Json().at("id").as_int64());
  auto reply = c.Post("/api/v1/articles/" + article + "/comments",
                      R"({"body":"reply","parentId":)" + top_id + "}", Bearer(token));
  ASSERT_EQ(reply.status, 201) << reply.body;
  EXPECT_EQ(c.Get("/api/v1/articles/" + article + "/comments?sort=hot").status, 200);
  EXPECT_EQ(c.Put("/api/v1/comments/" + top_id + "/like", "", Bearer(token)).status, 200);
  EXPECT_EQ(c.Get("/api/v1/comments/" + top_id + "/replies").status, 200);
  EXPECT_EQ(c.Get("/api/v1/likes?article=" + article + "&comment=" + top_id, Bearer(token)).status,
            200);
  EXPECT_EQ(c.Patch("/api/v1/comments/" + top_id, R"({"body":"edited"})", Bearer(token)).status,
            200);

  // 300 likers: the small set splits into user-id buckets inside like_set.lua.
  const model::Target target = model::Target::Article(a.Json().at("id").as_int64());
  for (int64_t uid = 1000; uid < 1300; ++uid) {
    domain::Principal who{uid, "u", "u", domain::Role::kUser};
    auto r = OnLoop(app_->app().likes().Set(who, target, true));
    ASSERT_TRUE(r) << r.error().message;
  }
  auto flushed = OnLoop(app_->app().flusher().FlushNow());
  ASSERT_TRUE(flushed) << flushed.error().message;
  EXPECT_EQ(c.Get("/api/v1/articles/" + article + "/like").Json().at("likeCount").as_int64(), 301);

  // A second article in another shard (another hash slot), with a thread of its own.
  auto b = c.Post("/api/v1/articles", R"({"title":"b","content":"<p>b</p>","status":"published"})",
                  Bearer(token));
  ASSERT_EQ(b.status, 201) << b.body;
  const std::string other = std::to_string(b.Json().at("id").as_int64());
  ASSERT_EQ(
      c.Post("/api/v1/articles/" + other + "/comments", R"({"body":"x"})", Bearer(token)).status,
      201);

  // Rebuilds from SQL: after FLUSHALL, and after rebuild-cache drops every comment cache (one
  // key at a time: a DEL of keys in two slots is refused by a cluster) and article hash.
  ASSERT_EQ(redis_.Cli("FLUSHALL"), "OK");
  auto page = c.Get("/api/v1/articles/" + article + "/comments?replies=3");
  ASSERT_EQ(page.status, 200) << page.body;
  EXPECT_EQ(page.Json().at("items").at(0).at("replies").as_array().size(), 1u);
  EXPECT_EQ(c.Get("/api/v1/articles/" + other + "/comments").status, 200);
  EXPECT_EQ(c.Get("/api/v1/articles?size=5").Json().at("total").as_int64(), 2);
  auto dropped = OnLoop(app_->app().comments().InvalidateAll());
  ASSERT_TRUE(dropped) << dropped.error().message;
  EXPECT_EQ(*dropped, 2);
  auto reloaded = OnLoop(app_->app().redis_check().ReloadArticles());
  ASSERT_TRUE(reloaded) << reloaded.error().message;
  auto rebuilt = OnLoop(app_->app().articles().RebuildIndexes());
  ASSERT_TRUE(rebuilt) << rebuilt.error().message;
  EXPECT_EQ(c.Get("/api/v1/articles/" + article + "/comments").status, 200);
  // The session went with FLUSHALL: at once in Redis, within the session cache's age here.
  EXPECT_TRUE(WaitFor([&] { return c.Get("/api/v1/users/me", Bearer(token)).status == 401; },
                      std::chrono::seconds(5)));
  EXPECT_EQ(c.Delete("/api/v1/articles/" + article, Bearer(token)).status, 401);

  // Logout reaches the session cache through pub/sub, which a cluster carries too.
  auto relogin = c.Post("/api/v1/sessions", R"({"username":"ann","password":"password123"})");
  ASSERT_EQ(relogin.status, 201) << relogin.body;
  const std::string again(relogin.Json().at("token").as_string());
  ASSERT_EQ(c.Get("/api/v1/users/me", Bearer(again)).status, 200);
  uint64_t hits = app_->SessionCacheHits();
  ASSERT_EQ(c.Get("/api/v1/users/me", Bearer(again)).status, 200);
  EXPECT_EQ(app_->SessionCacheHits(), hits + 1);
  // A delete drops the article's hash, body, thread and comments in its slot.
  EXPECT_EQ(c.Delete("/api/v1/articles/" + other, Bearer(again)).status, 204);
  EXPECT_EQ(c.Get("/api/v1/articles/" + other).status, 404);
  ASSERT_EQ(c.Delete("/api/v1/sessions/current", Bearer(again)).status, 204);
  EXPECT_EQ(c.Get("/api/v1/users/me", Bearer(again)).status, 401);
}

}  // namespace
}  // namespace plaudit::testing
