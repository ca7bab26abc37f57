// plauditd on Redis Sentinel (--redis redis-sentinel://...): likes by several users while
// SENTINEL FAILOVER moves the primary. During the switch a request may get 503 (Redis
// unavailable), never another error; afterwards likes succeed again in the same process.
#include <gtest/gtest.h>

#include <set>

#include "app/app.hpp"
#include "app_fixture.hpp"
#include "config/config.hpp"
#include "support/redis_sentinel.hpp"

namespace plaudit::testing {
namespace {

TEST(SentinelModeTest, LikesGoOnAfterASentinelFailoverWithoutARestart) {
  RedisSentinel sentinels("plaudit");
  RedisServer unused;  // AppUnderTest's default Redis; c.redis names the Sentinels instead
  config::Config c;
  c.password_hash = config::PasswordCost::kMinimal;
  c.rate_limits = false;
  c.redis = ParseRedisUrl(sentinels.url()).value();
  AppUnderTest app(unused, c);
  auto http = app.Client();

  std::vector<std::string> tokens;
  for (int i = 0; i < 4; ++i) {
    const std::string user = "user" + std::to_string(i);
    const std::string body = R"({"username":")" + user + R"(","password":"password123"})";
    ASSERT_EQ(http.Post("/api/v1/users", body).status, 201);
    auto login = http.Post("/api/v1/sessions", body);
    ASSERT_EQ(login.status, 201) << login.body;
    tokens.emplace_back(login.Json().at("token").as_string());
  }
  auto a =
      http.Post("/api/v1/articles", R"({"title":"t","content":"<p>c</p>","status":"published"})",
                Bearer(tokens[0]));
  ASSERT_EQ(a.status, 201) << a.body;
  const std::string like =
      "/api/v1/articles/" + std::to_string(a.Json().at("id").as_int64()) + "/like";
  ASSERT_EQ(http.Put(like, "", Bearer(tokens[0])).status, 200);
  // Replicated before the failover (replication is asynchronous; the test waits for it).
  auto offset = [&](size_t i) {
    const std::string info = sentinels.server(i).Cli("INFO replication");
    const size_t at = info.find("master_repl_offset:");
    return at == std::string::npos ? std::string("?" + std::to_string(i))
                                   : info.substr(at, info.find('\n', at) - at);
  };
  EXPECT_TRUE(WaitFor([&] { return offset(0) == offset(1); }, std::chrono::seconds(5)));

  const size_t promoted = sentinels.Replica();
  sentinels.StartFailover();
  std::set<int> statuses;
  int after_ok = 0;
  for (auto until = std::chrono::steady_clock::now() + std::chrono::seconds(30);
       std::chrono::steady_clock::now() < until && after_ok < 3;) {
    for (size_t u = 1; u < tokens.size(); ++u) {
      const int status = http.Put(like, "", Bearer(tokens[u])).status;
      statuses.insert(status);
      const bool settled = sentinels.WaitSettled(promoted, std::chrono::milliseconds(0));
      if (settled && status == 200) {
        ++after_ok;
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  for (int s : statuses) {
    EXPECT_TRUE(s == 200 || s == 503) << "status " << s;
  }
  ASSERT_GE(after_ok, 3) << "likes did not succeed again after the failover";
  for (const auto& token : tokens) {
    EXPECT_EQ(http.Put(like, "", Bearer(token)).status, 200);
  }
  auto count = http.Get(like, Bearer(tokens[0]));
  ASSERT_EQ(count.status, 200) << count.body;
  EXPECT_EQ(count.Json().at("likeCount").as_int64(), 4);
  EXPECT_EQ(sentinels.server(promoted).Cli("ROLE").rfind("master", 0), 0u);
}

}  // namespace
}  // namespace plaudit::testing
