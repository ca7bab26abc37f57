// API.md "Users and sessions" over real HTTP, on SQLite and PostgreSQL.
#include "api_test_base.hpp"
#include "common/time.hpp"
#include "redis/sessions.hpp"

namespace plaudit::testing {
namespace {

using namespace std::chrono_literals;

class UsersTest : public ApiTest {};

TEST_P(UsersTest, RegisterLoginMeLogout) {
  auto c = Client();
  auto r =
      c.Post("/api/v1/users",
             R"({"username":"Alice","password":"correct horse","displayName":"  Alice A.  "})");
  ASSERT_EQ(r.status, 201) << r.body;
  auto u = r.Json().as_object();
  EXPECT_GT(u.at("id").as_int64(), 0);
  EXPECT_EQ(u.at("username").as_string(), "Alice");
  EXPECT_EQ(u.at("displayName").as_string(), "Alice A.");
  EXPECT_EQ(u.at("role").as_string(), "user");
  EXPECT_EQ(u.at("createdAt").as_string().size(), 24u);  // 2026-11-29T21:30:00.123Z
  EXPECT_FALSE(u.contains("password"));
  EXPECT_EQ(r.body.find("argon2"), std::string::npos);

  r = c.Post("/api/v1/sessions", R"({"username":"alice","password":"correct horse"})");
  ASSERT_EQ(r.status, 201) << r.body;
  std::string token(r.Json().at("token").as_string());
  EXPECT_EQ(token.size(), 43u);
  EXPECT_EQ(r.Json().at("user").at("id").as_int64(), u.at("id").as_int64());
  EXPECT_EQ(r.Json().at("expiresAt").as_string().size(), 24u);
  std::string cookie = r.Header("set-cookie");
  EXPECT_EQ(cookie.rfind("plaudit_session=" + token + ";", 0), 0u) << cookie;
  EXPECT_NE(cookie.find("HttpOnly"), std::string::npos);
  EXPECT_NE(cookie.find("SameSite=Lax"), std::string::npos);

  r = c.Get("/api/v1/users/me", Bearer(token));
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.Json().at("username").as_string(), "Alice");
  EXPECT_TRUE(r.Json().as_object().contains("createdAt"));
  r = c.Get("/api/v1/users/me", {{"Cookie", "theme=dark; plaudit_session=" + token}});
  EXPECT_EQ(r.status, 200);

  r = c.Get("/api/v1/users/" + std::to_string(u.at("id").as_int64()));
  ASSERT_EQ(r.status, 200);
  EXPECT_FALSE(r.Json().as_object().contains("createdAt"));  // public fields only
  EXPECT_EQ(r.Json().as_object().size(), 4u);

  r = c.Delete("/api/v1/sessions/current", Bearer(token));
  EXPECT_EQ(r.status, 204);
  EXPECT_NE(r.Header("set-cookie").find("Max-Age=0"), std::string::npos);
  // Revoked at once, for the header and the cookie alike.
  EXPECT_EQ(c.Get("/api/v1/users/me", Bearer(token)).status, 401);
  EXPECT_EQ(c.Get("/api/v1/users/me", {{"Cookie", "plaudit_session=" + token}}).status, 401);
  EXPECT_EQ(c.Delete("/api/v1/sessions/current", Bearer(token)).status, 401);
}

TEST_P(UsersTest, UsernamesAreUniqueCaseInsensitively) {
  Register("bob");
  auto r = Client().Post("/api/v1/users", R"({"username":"BOB","password":"password123"})");
  EXPECT_EQ(r.status, 409);
  EXPECT_EQ(r.ErrorCode(), "conflict");
}

TEST_P(UsersTest, MalformedRegistrationsAre400AndCreateNothing) {
  auto c = Client();
  const char* bad[] = {
      R"({"username":"ab","password":"password123"})",
      R"({"username":"this-name-is-way-too-long-for-us-1","password":"password123"})",
      R"({"username":"sp ace","password":"password123"})",
      R"({"username":"émile","password":"password123"})",
      R"({"username":"okname","password":"short"})",
      R"({"username":"okname","password":12345678})",
      R"({"username":42,"password":"password123"})",
      R"({"password":"password123"})",
      R"({"username":"okname"})",
      R"({"username":"okname","password":"password123","displayName":7})",
      R"({"username":"okname","password":"password123","displayName":"\u0007bell"})",
  };
  for (const char* body : bad) {
    auto r = c.Post("/api/v1/users", body);
    EXPECT_EQ(r.status, 400) << body;
    EXPECT_EQ(r.ErrorCode(), "invalid_field") << body;
  }
  std::string long_pw(257, 'x');
  auto r = c.Post("/api/v1/users", R"({"username":"okname","password":")" + long_pw + R"("})");
  EXPECT_EQ(r.status, 400);
  r = c.Post("/api/v1/users", "{not json");
  EXPECT_EQ(r.ErrorCode(), "invalid_json");
  r = c.Send(beast::http::verb::post, "/api/v1/users", "username=okname", "text/plain");
  EXPECT_EQ(r.status, 415);
  // 256 characters (not bytes) is the limit: 256 × "é" is 512 bytes and fine.
  std::string pw256;
  for (int i = 0; i < 256; ++i) {
    pw256 += "é";
  }
  r = c.Post("/api/v1/users", R"({"username":"okname","password":")" + pw256 + R"("})");
  EXPECT_EQ(r.status, 201) << r.body;
}

TEST_P(UsersTest, IdentityFieldsSentByClientsAreRefused) {
  auto c = Client();
  for (const char* field : {"role", "userId", "authorId", "id"}) {
    std::string body = std::string(R"({"username":"mallory","password":"password123",")") + field +
                       R"(":)" + (std::string(field) == "role" ? R"("admin")" : "1") + "}";
    auto r = c.Post("/api/v1/users", body);
    EXPECT_EQ(r.status, 400) << body;
  }
  int64_t id = Register("mallory");
  std::string token = Login("mallory");
  auto me = c.Get("/api/v1/users/me", Bearer(token));
  EXPECT_EQ(me.Json().at("role").as_string(), "user");
  EXPECT_EQ(me.Json().at("id").as_int64(), id);
}

TEST_P(UsersTest, WrongCredentialsAre401WithOneAnswer) {
  Register("carol");
  auto c = Client();
  auto wrong_pw = c.Post("/api/v1/sessions", R"({"username":"carol","password":"nope-nope"})");
  auto no_user = c.Post("/api/v1/sessions", R"({"username":"nobody","password":"nope-nope"})");
  EXPECT_EQ(wrong_pw.status, 401);
  EXPECT_EQ(no_user.status, 401);
  EXPECT_EQ(wrong_pw.body, no_user.body);  // no hint which usernames exist
  EXPECT_EQ(c.Post("/api/v1/sessions", R"({"username":"carol"})").status, 400);
}

TEST_P(UsersTest, InvalidBearerIs401EverywhereButBadCookieIsAnonymous) {
  int64_t id = Register("dave");
  auto c = Client();
  std::string path = "/api/v1/users/" + std::to_string(id);
  EXPECT_EQ(c.Get(path, Bearer("not-a-real-token")).status, 401);
  EXPECT_EQ(c.Get(path, Bearer(std::string(43, 'A'))).status, 401);
  EXPECT_EQ(c.Get(path, {{"Authorization", "Basic ZGF2ZTpwdw=="}}).status, 401);
  EXPECT_EQ(c.Get(path, {{"Cookie", "plaudit_session=garbage"}}).status, 200);
  EXPECT_EQ(c.Get("/api/v1/users/me", {{"Cookie", "plaudit_session=garbage"}}).status, 401);
  EXPECT_EQ(c.Get("/api/v1/users/me").ErrorCode(), "unauthenticated");
}

// Without the session cache (--session-cache-ms 0) every lookup reads Redis, so a session
// key that expires or is deleted there ends the session at once.
class UncachedSessionsTest : public UsersTest {
 protected:
  void Configure(config::Config& c) override { c.session_cache_ms = 0; }
};

TEST_P(UncachedSessionsTest, ExpiredSessionIs401) {
  Register("erin");
  std::string token = Login("erin");
  auto c = Client();
  ASSERT_EQ(c.Get("/api/v1/users/me", Bearer(token)).status, 200);
  // Redis expires the session key: that is what a session's end is.
  std::string key = "pl:sess:" + redis::SessionStore::HashToken(token);
  ASSERT_EQ(redis_.Cli("PEXPIRE " + key + " 1"), "1");
  ASSERT_TRUE(WaitFor([&] { return redis_.Cli("EXISTS " + key) == "0"; }, 2s));
  EXPECT_EQ(c.Get("/api/v1/users/me", Bearer(token)).status, 401);
}

TEST_P(UsersTest, RedisHoldsOnlyAHashOfTheToken) {
  Register("fay");
  std::string token = Login("fay");
  std::string keys = redis_.Cli("--scan --pattern '*'");
  EXPECT_EQ(keys.find(token), std::string::npos);
  EXPECT_NE(keys.find("pl:sess:" + redis::SessionStore::HashToken(token)), std::string::npos);
  std::string dump = redis_.Cli("HGETALL pl:sess:" + redis::SessionStore::HashToken(token));
  EXPECT_EQ(dump.find(token), std::string::npos);
  // The session slides but stays within its lifetime.
  int64_t ttl = std::stoll(redis_.Cli("PTTL pl:sess:" + redis::SessionStore::HashToken(token)));
  EXPECT_GT(ttl, 29LL * 24 * 3600 * 1000);
  EXPECT_LE(ttl, 30LL * 24 * 3600 * 1000);
}

// A lookup is one HMGET; the expiry slides only once `ref` (the next slide time) has passed,
// and a session written before `ref` existed slides on its first lookup.
TEST_P(UncachedSessionsTest, SessionExpirySlidesOnlyWhenDue) {
  Register("flo");
  std::string token = Login("flo");
  std::string key = "pl:sess:" + redis::SessionStore::HashToken(token);
  auto c = Client();
  constexpr int64_t kDay = 24LL * 3600 * 1000;
  // Not due: the shortened expiry stays as it is.
  ASSERT_EQ(redis_.Cli("PEXPIRE " + key + " 100000"), "1");
  ASSERT_EQ(c.Get("/api/v1/users/me", Bearer(token)).status, 200);
  EXPECT_LE(std::stoll(redis_.Cli("PTTL " + key)), 100000);
  // Due: slid back to the full lifetime, and the next slide is about a day away.
  ASSERT_EQ(redis_.Cli("HSET " + key + " ref 1"), "0");
  ASSERT_EQ(c.Get("/api/v1/users/me", Bearer(token)).status, 200);
  EXPECT_GT(std::stoll(redis_.Cli("PTTL " + key)), 29 * kDay);
  int64_t ref = std::stoll(redis_.Cli("HGET " + key + " ref"));
  EXPECT_GT(ref, NowMs() + kDay - 60000);
  EXPECT_LE(ref, NowMs() + kDay);
  // No `ref` at all (an older session): slides and gains one.
  ASSERT_EQ(redis_.Cli("HDEL " + key + " ref"), "1");
  ASSERT_EQ(redis_.Cli("PEXPIRE " + key + " 100000"), "1");
  ASSERT_EQ(c.Get("/api/v1/users/me", Bearer(token)).status, 200);
  EXPECT_GT(std::stoll(redis_.Cli("PTTL " + key)), 29 * kDay);
  EXPECT_NE(redis_.Cli("HGET " + key + " ref"), "");
}

TEST_P(UsersTest, RolesAreAdminOnlyAndReachLiveSessionsAtOnce) {
  int64_t gus = Register("gus");
  int64_t hal = Register("hal");
  std::string gus_token = Login("gus");
  std::string admin = Login("root", "rootpassword");
  auto c = Client();
  std::string gus_path = "/api/v1/users/" + std::to_string(gus);
  std::string hal_path = "/api/v1/users/" + std::to_string(hal);

  // A user cannot raise their own role, nor anyone's.
  auto r = c.Patch(gus_path, R"({"role":"admin"})", Bearer(gus_token));
  EXPECT_EQ(r.status, 403);
  EXPECT_EQ(r.ErrorCode(), "forbidden");
  EXPECT_EQ(c.Patch(hal_path, R"({"role":"author"})", Bearer(gus_token)).status, 403);
  EXPECT_EQ(c.Patch(hal_path, R"({"role":"author"})").status, 401);
  EXPECT_EQ(c.Get(gus_path).Json().at("role").as_string(), "user");

  // Bad input from an admin changes nothing.
  EXPECT_EQ(c.Patch(gus_path, R"({"role":"emperor"})", Bearer(admin)).status, 400);
  EXPECT_EQ(c.Patch(gus_path, R"({"role":"author","username":"x"})", Bearer(admin)).status, 400);
  EXPECT_EQ(c.Patch("/api/v1/users/999999", R"({"role":"author"})", Bearer(admin)).status, 404);
  EXPECT_EQ(c.Get(gus_path).Json().at("role").as_string(), "user");

  r = c.Patch(gus_path, R"({"role":"admin"})", Bearer(admin));
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.Json().at("role").as_string(), "admin");
  // gus's existing session now carries admin rights without logging in again.
  r = c.Patch(hal_path, R"({"role":"author"})", Bearer(gus_token));
  EXPECT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(c.Get(hal_path).Json().at("role").as_string(), "author");
  // And losing them takes effect at once too.
  EXPECT_EQ(c.Patch(gus_path, R"({"role":"user"})", Bearer(admin)).status, 200);
  EXPECT_EQ(c.Patch(hal_path, R"({"role":"user"})", Bearer(gus_token)).status, 403);
}

TEST_P(UsersTest, RedisDownIs503Not401) {
  PL_NEEDS_ONE_REDIS();
  Register("ivy");
  std::string token = Login("ivy");
  redis_.Stop();
  auto c = Client();
  auto r = c.Get("/api/v1/users/me", Bearer(token));
  EXPECT_EQ(r.status, 503);
  EXPECT_EQ(r.ErrorCode(), "unavailable");
  EXPECT_EQ(c.Post("/api/v1/sessions", R"({"username":"ivy","password":"password123"})").status,
            503);
  redis_.Start();  // an empty Redis: sessions are gone, users log in again
  ASSERT_TRUE(WaitFor([&] { return c.Get("/readyz").status == 200; }, 10s));
  EXPECT_EQ(c.Get("/api/v1/users/me", Bearer(token)).status, 401);
  EXPECT_FALSE(Login("ivy").empty());
}

// With the session cache (the default): an entry never outlives the session's Redis expiry,
// and a session ended behind plauditd's back (a key expired or deleted by hand) ends within
// the cache's age; logout ends it at once.
TEST_P(UsersTest, ACachedSessionNeverOutlivesItsRedisExpiry) {
  PL_COUNTS_ONE_INSTANCE();
  Register("erin");
  std::string token = Login("erin");
  std::string key = "pl:sess:" + redis::SessionStore::HashToken(token);
  auto c = Client();
  ASSERT_EQ(redis_.Cli("PEXPIRE " + key + " 300"), "1");
  ASSERT_EQ(c.Get("/api/v1/users/me", Bearer(token)).status, 200);
  uint64_t hits = app_->SessionCacheHits();
  ASSERT_EQ(c.Get("/api/v1/users/me", Bearer(token)).status, 200);
  EXPECT_EQ(app_->SessionCacheHits(), hits + 1);
  ASSERT_TRUE(WaitFor([&] { return redis_.Cli("EXISTS " + key) == "0"; }, 2s));
  EXPECT_EQ(c.Get("/api/v1/users/me", Bearer(token)).status, 401);
}

TEST_P(UsersTest, ASessionDeletedInRedisEndsWithinTheCacheAge) {
  Register("ezra");
  std::string token = Login("ezra");
  auto c = Client();
  ASSERT_EQ(c.Get("/api/v1/users/me", Bearer(token)).status, 200);
  ASSERT_EQ(redis_.Cli("DEL pl:sess:" + redis::SessionStore::HashToken(token)), "1");
  auto deleted = std::chrono::steady_clock::now();
  ASSERT_TRUE(WaitFor([&] { return c.Get("/api/v1/users/me", Bearer(token)).status == 401; }, 5s));
  EXPECT_LE(std::chrono::steady_clock::now() - deleted,
            std::chrono::milliseconds(app_->app().config().session_cache_ms + 500));
}

// Other processes hear of a logout or a role change on the invalidation channel; a cache
// age of a minute leaves pub/sub as the only way these can pass.
class SessionCacheTest : public UsersTest {
 protected:
  void Configure(config::Config& c) override { c.session_cache_ms = 60'000; }

  std::unique_ptr<AppUnderTest> Second() { return SecondInstance(); }
};

TEST_P(SessionCacheTest, LogoutInOneProcessEndsTheSessionInAnother) {
  Register("kim");
  std::string token = Login("kim");
  auto other = Second();
  auto c2 = other->Client();
  ASSERT_EQ(c2.Get("/api/v1/users/me", Bearer(token)).status, 200);
  uint64_t hits = other->SessionCacheHits();
  ASSERT_EQ(c2.Get("/api/v1/users/me", Bearer(token)).status, 200);
  ASSERT_EQ(other->SessionCacheHits(), hits + 1);  // the other process has it cached
  ASSERT_EQ(Client().Delete("/api/v1/sessions/current", Bearer(token)).status, 204);
  EXPECT_TRUE(WaitFor([&] { return c2.Get("/api/v1/users/me", Bearer(token)).status == 401; }, 3s));
}

TEST_P(SessionCacheTest, RoleChangeInOneProcessReachesAnother) {
  int64_t lee = Register("lee");
  std::string token = Login("lee");
  std::string admin = Login("root", "rootpassword");
  auto other = Second();
  auto c2 = other->Client();
  ASSERT_EQ(c2.Get("/api/v1/users/me", Bearer(token)).Json().at("role").as_string(), "user");
  ASSERT_EQ(c2.Get("/api/v1/users/me", Bearer(token)).Json().at("role").as_string(), "user");
  ASSERT_EQ(
      Client()
          .Patch("/api/v1/users/" + std::to_string(lee), R"({"role":"author"})", Bearer(admin))
          .status,
      200);
  EXPECT_TRUE(WaitFor(
      [&] {
        auto r = c2.Get("/api/v1/users/me", Bearer(token));
        return r.status == 200 && r.Json().at("role").as_string() == "author";
      },
      3s));
}

// Messages missed while the subscription was down cannot be replayed: losing it empties
// the cache, which stays unused until it is back.
TEST_P(SessionCacheTest, LosingTheSubscriptionEmptiesTheCache) {
  PL_COUNTS_ONE_INSTANCE();
  Register("max");
  std::string token = Login("max");
  auto c = Client();
  ASSERT_EQ(c.Get("/api/v1/users/me", Bearer(token)).status, 200);
  ASSERT_EQ(redis_.Cli("DEL pl:sess:" + redis::SessionStore::HashToken(token)), "1");
  ASSERT_EQ(c.Get("/api/v1/users/me", Bearer(token)).status, 200);  // still cached
  // Its subscriptions (sessions, live updates): the session cache's among them.
  ASSERT_EQ(redis_.Cli("CLIENT KILL TYPE pubsub"), "2");
  EXPECT_TRUE(WaitFor([&] { return c.Get("/api/v1/users/me", Bearer(token)).status == 401; }, 3s));
  EXPECT_TRUE(app_->WaitForSessionCache(5s));  // and it comes back
}

INSTANTIATE_TEST_SUITE_P(Databases, UncachedSessionsTest, AllDbs(), DbName);
INSTANTIATE_TEST_SUITE_P(Databases, SessionCacheTest, AllDbs(), DbName);

INSTANTIATE_TEST_SUITE_P(Databases, UsersTest, AllDbs(), DbName);

class LoginLimitTest : public LoginLimitsTest {
 protected:
  LoginLimitTest() : LoginLimitsTest(RateLimit{3, 1000}, RateLimit{8, 10'000}) {}
};

TEST_P(LoginLimitTest, FailedLoginsPerUsernameAre429ThenACorrectLoginPassesAfterTheWindow) {
  Register("jack");
  auto c = Client();
  ExpectSignIns(c, 3, "jack", "wrong-pass", 401);
  auto r = SignIn(c, "JACK", "password123");
  EXPECT_EQ(r.status, 429);
  EXPECT_EQ(r.ErrorCode(), "rate_limited");
  EXPECT_GE(std::stoi(r.Header("retry-after")), 1);
  // Correct logins are never counted, so polling does not extend the lock-out.
  EXPECT_TRUE(WaitFor([&] { return SignIn(c, "jack", "password123").status == 201; }, 3s));
}

TEST_P(LoginLimitTest, FailedLoginsPerAddressAcrossUsernamesAre429) {
  auto c = Client();
  int limited = 0;
  for (int i = 0; i < 10; ++i) {
    limited += SignIn(c, "ghost" + std::to_string(i), "wrong-pass").status == 429;
  }
  EXPECT_EQ(limited, 2);  // 8 failures allowed from one address
}

INSTANTIATE_TEST_SUITE_P(Databases, LoginLimitTest, ::testing::Values(Db::kSqlite), DbName);

class RequestLimitTest : public ApiTest {
 protected:
  void Configure(config::Config& c) override {
    c.limit_requests_address = RateLimit{5, 10'000};
    c.limit_writes_user = RateLimit{2, 10'000};
  }
};

TEST_P(RequestLimitTest, RequestsPerAddressAndWritesPerUser) {
  auto c = Client();
  int ok = 0, limited = 0;
  for (int i = 0; i < 7; ++i) {
    auto r = c.Get("/api/v1/users/1");
    ok += r.status == 200;
    if (r.status == 429) {
      ++limited;
      EXPECT_FALSE(r.Header("retry-after").empty());
    }
  }
  EXPECT_EQ(ok, 5);
  EXPECT_EQ(limited, 2);
  EXPECT_EQ(c.Get("/healthz").status, 200);  // operations endpoints are never limited
}

INSTANTIATE_TEST_SUITE_P(Databases, RequestLimitTest, ::testing::Values(Db::kSqlite), DbName);

class WriteLimitTest : public ApiTest {
 protected:
  void Configure(config::Config& c) override { c.limit_writes_user = RateLimit{2, 10'000}; }
};

TEST_P(WriteLimitTest, WritesPerUserAre429) {
  int64_t kim = Register("kim");
  std::string admin = Login("root", "rootpassword");
  auto c = Client();
  std::string path = "/api/v1/users/" + std::to_string(kim);
  EXPECT_EQ(c.Patch(path, R"({"role":"author"})", Bearer(admin)).status, 200);
  EXPECT_EQ(c.Patch(path, R"({"role":"user"})", Bearer(admin)).status, 200);
  auto r = c.Patch(path, R"({"role":"author"})", Bearer(admin));
  EXPECT_EQ(r.status, 429);
  EXPECT_EQ(c.Get(path).Json().at("role").as_string(), "user");  // the refused write did nothing
}

INSTANTIATE_TEST_SUITE_P(Databases, WriteLimitTest, ::testing::Values(Db::kSqlite), DbName);

class RateLimitsOffTest : public ApiTest {
 protected:
  void Configure(config::Config& c) override {
    c.limit_requests_address = RateLimit{1, 10'000};
    c.rate_limits = false;
  }
};

TEST_P(RateLimitsOffTest, OffDisablesEveryLimit) {
  auto c = Client();
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(c.Get("/api/v1/users/1").status, 200);
  }
}

INSTANTIATE_TEST_SUITE_P(Databases, RateLimitsOffTest, ::testing::Values(Db::kSqlite), DbName);

}  // namespace
}  // namespace plaudit::testing
