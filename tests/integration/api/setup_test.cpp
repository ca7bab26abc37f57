// Issue 27, first-run setup: a fresh data dir gets its first admin through the setup token
// this process logged, never by being the first visitor; the token works once, and racing
// setups, on one instance or several, make exactly one admin (domain/setup.hpp).
#include <atomic>
#include <thread>

#include "api_test_base.hpp"

namespace plaudit::testing {
namespace {

std::string SetupBody(const std::string& token, const std::string& name) {
  return R"({"token":")" + token + R"(","username":")" + name +
         R"(","password":"password123","displayName":"The Admin"})";
}

// No --bootstrap-admin: nobody is admin yet.
class SetupTest : public ApiTest {
 protected:
  void Configure(config::Config& c) override {
    c.bootstrap_admin.reset();
    // Enough SQL connections and hashing threads for racing setups to overlap for real.
    c.sql_pool_size = 8;
    c.password_hash_threads = 8;
  }

  std::string Token() { return app_->app().setup().token(); }

  bool Needed() {
    auto r = Client().Get("/api/v1/setup");
    EXPECT_EQ(r.status, 200) << r.body;
    return r.Json().at("needed").as_bool();
  }

  // Accounts with the admin role, as SQL has them.
  int64_t Admins() {
    auto n =
        OnLoop(app_->app().store().QueryInt("SELECT COUNT(*) FROM users WHERE role = 'admin'", {}));
    EXPECT_TRUE(n && *n);
    return n && *n ? **n : -1;
  }

  // A second plauditd on the same Redis and database, with its own setup token.
  std::unique_ptr<AppUnderTest> SecondInstance() {
    config::Config c = app_->app().config();
    if (!c.database) {
      c.database = config::DefaultDatabaseUrl(c);
    }
    return std::make_unique<AppUnderTest>(redis_, c);
  }
};

TEST_P(SetupTest, TheTokenIsRandomHexAndAWrongOneIsRefused) {
  const std::string token = Token();
  ASSERT_EQ(token.size(), 64u);
  EXPECT_EQ(token.find_first_not_of("0123456789abcdef"), std::string::npos);
  EXPECT_TRUE(Needed());
  auto c = Client();
  std::string wrong = token;
  wrong.back() = wrong.back() == '0' ? '1' : '0';
  for (const std::string& t : {wrong, std::string(), token.substr(0, 63), token + "0"}) {
    auto r = c.Post("/api/v1/setup", SetupBody(t, "mallory"));
    EXPECT_EQ(r.status, 403) << t << " " << r.body;
    EXPECT_EQ(r.ErrorCode(), "forbidden");
  }
  auto no_token = c.Post("/api/v1/setup", R"({"username":"mallory","password":"password123"})");
  EXPECT_EQ(no_token.status, 400);
  EXPECT_EQ(Admins(), 0);
  EXPECT_TRUE(Needed());
  // Nor does anyone become admin by being the first to sign up.
  const int64_t first = Register("first");
  EXPECT_EQ(Client().Get("/api/v1/users/" + std::to_string(first)).Json().at("role").as_string(),
            "user");
}

TEST_P(SetupTest, TheRightTokenMakesOneSignedInAdminAndThenDies) {
  auto c = Client();
  auto r = c.Post("/api/v1/setup", SetupBody(Token(), "boss"));
  ASSERT_EQ(r.status, 201) << r.body;
  const auto json = r.Json();
  const auto& user = json.at("user");
  EXPECT_EQ(user.at("username").as_string(), "boss");
  EXPECT_EQ(user.at("displayName").as_string(), "The Admin");
  EXPECT_EQ(user.at("role").as_string(), "admin");
  EXPECT_FALSE(json.at("expiresAt").as_string().empty());
  EXPECT_NE(r.Header("set-cookie").find("plaudit_session="), std::string::npos);
  // The session works, with admin rights.
  const std::string token(r.Json().at("token").as_string());
  const int64_t pat = Register("pat");
  auto promoted =
      c.Patch("/api/v1/users/" + std::to_string(pat), R"({"role":"author"})", Bearer(token));
  EXPECT_EQ(promoted.status, 200) << promoted.body;
  // The admin can sign in like anyone.
  EXPECT_EQ(SignIn(c, "boss", "password123").status, 201);

  EXPECT_FALSE(Needed());
  auto again = c.Post("/api/v1/setup", SetupBody(Token(), "boss2"));
  EXPECT_EQ(again.status, 403) << again.body;
  // Another instance's token finds the setup done.
  auto second = SecondInstance();
  auto other =
      second->Client().Post("/api/v1/setup", SetupBody(second->app().setup().token(), "boss3"));
  EXPECT_EQ(other.status, 409) << other.body;
  EXPECT_EQ(other.ErrorCode(), "conflict");
  EXPECT_EQ(Admins(), 1);
}

TEST_P(SetupTest, BadAccountFieldsLeaveTheTokenUsable) {
  auto c = Client();
  auto bad = c.Post("/api/v1/setup",
                    R"({"token":")" + Token() + R"(","username":"x","password":"password123"})");
  EXPECT_EQ(bad.status, 400) << bad.body;
  auto role = c.Post("/api/v1/setup", R"({"token":")" + Token() +
                                          R"(","username":"boss","password":"password123",)"
                                          R"("role":"user"})");
  EXPECT_EQ(role.status, 400) << role.body;
  EXPECT_EQ(c.Post("/api/v1/setup", SetupBody(Token(), "boss")).status, 201);
}

// Sixteen browsers with the right token at once, on two instances (each also trying the other's
// token): exactly one admin, everyone else refused.
TEST_P(SetupTest, RacingSetupsMakeExactlyOneAdmin) {
  auto second = SecondInstance();
  const std::string tokens[2] = {Token(), second->app().setup().token()};
  AppUnderTest* apps[2] = {app_.get(), second.get()};
  std::atomic<int> created{0};
  std::atomic<int> refused{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < 16; ++i) {
    threads.emplace_back([&, i] {
      auto c = apps[i % 2]->Client();
      auto r = c.Post("/api/v1/setup", SetupBody(tokens[i % 2], "boss" + std::to_string(i)));
      if (r.status == 201) {
        ++created;
      } else if (r.status == 409 || r.status == 403) {
        ++refused;
      } else {
        ADD_FAILURE() << r.status << " " << r.body;
      }
    });
  }
  for (auto& t : threads) {
    t.join();
  }
  EXPECT_EQ(created.load(), 1);
  EXPECT_EQ(refused.load(), 15);
  EXPECT_EQ(Admins(), 1);
  EXPECT_FALSE(Needed());
}

INSTANTIATE_TEST_SUITE_P(Databases, SetupTest, AllDbs(), DbName);

// With --bootstrap-admin (ApiTest's default) there is nothing to set up.
class BootstrappedSetupTest : public ApiTest {};

TEST_P(BootstrappedSetupTest, SetupIsNotNeededAndRefused) {
  auto c = Client();
  EXPECT_FALSE(c.Get("/api/v1/setup").Json().at("needed").as_bool());
  auto r = c.Post("/api/v1/setup", SetupBody(app_->app().setup().token(), "boss"));
  EXPECT_EQ(r.status, 409) << r.body;
}

INSTANTIATE_TEST_SUITE_P(Databases, BootstrappedSetupTest, ::testing::Values(Db::kSqlite), DbName);

// Wrong tokens use up the address's failed-login budget.
class SetupLimitTest : public LoginLimitsTest {
 protected:
  SetupLimitTest() : LoginLimitsTest(RateLimit{100, 60'000}, RateLimit{3, 60'000}) {}
  void Configure(config::Config& c) override {
    LoginLimitsTest::Configure(c);
    c.bootstrap_admin.reset();
  }
};

TEST_P(SetupLimitTest, WrongTokensAreRateLimitedLikeWrongPasswords) {
  auto c = Client();
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(c.Post("/api/v1/setup", SetupBody("guess" + std::to_string(i), "m")).status, 403);
  }
  auto limited = c.Post("/api/v1/setup", SetupBody(app_->app().setup().token(), "boss"));
  EXPECT_EQ(limited.status, 429) << limited.body;
  EXPECT_FALSE(limited.Header("retry-after").empty());
}

INSTANTIATE_TEST_SUITE_P(Databases, SetupLimitTest, ::testing::Values(Db::kSqlite), DbName);

}  // namespace
}  // namespace plaudit::testing
