// Issue 41, item 1: a sign-up flood must neither make accounts without end from one address
// nor lock everyone else out of signing in.
#include <atomic>
#include <thread>
#include <vector>

#include "api_test_base.hpp"

namespace plaudit::testing {
namespace {

using namespace std::chrono_literals;

// Accounts per client address, told apart by a trusted proxy's X-Forwarded-For.
class SignUpLimitTest : public ApiTest {
 protected:
  void Configure(config::Config& c) override {
    c.limit_signup_address = RateLimit{5, 60 * 60'000};
    c.trusted_proxies = AddressSet::Parse("127.0.0.1").value();
  }

  HttpResponse SignUp(const std::string& name, const std::string& from) {
    return Client().Post("/api/v1/users",
                         R"({"username":")" + name + R"(","password":"password123"})",
                         {{"X-Forwarded-For", from}});
  }
};

TEST_P(SignUpLimitTest, TheSixthAccountFromOneAddressIsRefusedAndMakesNothing) {
  // Refused fields spend nothing: they never reach the hash.
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(SignUp("x", "203.0.113.9").status, 400);
  }
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(SignUp("flood" + std::to_string(i), "203.0.113.9").status, 201) << i;
  }
  auto refused = SignUp("flood5", "203.0.113.9");
  EXPECT_EQ(refused.status, 429) << refused.body;
  EXPECT_EQ(refused.Json().at("error").at("code").as_string(), "rate_limited");
  EXPECT_FALSE(refused.Header("retry-after").empty());
  // No account was made: its name is free, and it cannot sign in.
  auto c = Client();
  EXPECT_EQ(SignIn(c, "flood5", "password123").status, 401);
  // Another address has its own budget.
  EXPECT_EQ(SignUp("flood5", "198.51.100.4").status, 201);
  EXPECT_EQ(SignIn(c, "flood5", "password123").status, 201);
}

INSTANTIATE_TEST_SUITE_P(Databases, SignUpLimitTest, ::testing::Values(Db::kSqlite), DbName);

// Real Argon2id cost, one hashing thread, a queue of 8 (sign-ups: 2 of it). Many addresses
// sign up at once (a botnet: the per-address limit is off); a login from elsewhere must still
// go through.
class SignUpFloodTest : public ApiTest {
 protected:
  void Configure(config::Config& c) override {
    c.password_hash = config::PasswordCost::kInteractive;
    c.password_hash_threads = 1;
    c.password_hash_queue = 8;
    c.limit_requests_address = RateLimit{};
  }
};

TEST_P(SignUpFloodTest, LoginsAreNotStarvedBySignUps) {
  Register("lou");
  std::atomic<bool> stop{false};
  std::atomic<int> created{0}, refused{0}, other{0};
  std::vector<std::thread> flood;
  for (int t = 0; t < 12; ++t) {
    flood.emplace_back([&, t] {
      for (int i = 0; !stop; ++i) {
        auto r = Client().Post("/api/v1/users", R"({"username":"bot)" + std::to_string(t) + "_" +
                                                    std::to_string(i) +
                                                    R"(","password":"password123"})");
        if (r.status == 201) {
          ++created;
        } else if (r.status == 429) {
          ++refused;
        } else {
          ++other;
        }
      }
    });
  }
  // The flood has filled the sign-ups' share of the queue.
  ASSERT_TRUE(WaitFor([&] { return app_->app().hasher().pending() >= 2; }, 10s));
  ASSERT_TRUE(WaitFor([&] { return refused.load() > 0; }, 10s));
  int logins = 0;
  for (int i = 0; i < 5; ++i) {
    auto c = Client();
    auto r = SignIn(c, "lou", "password123");
    EXPECT_EQ(r.status, 201) << "login " << i << " during the flood: " << r.body;
    logins += r.status == 201;
  }
  stop = true;
  for (auto& t : flood) {
    t.join();
  }
  EXPECT_EQ(logins, 5);
  EXPECT_EQ(other.load(), 0);
  EXPECT_GT(created.load(), 0);
}

INSTANTIATE_TEST_SUITE_P(Databases, SignUpFloodTest, ::testing::Values(Db::kSqlite), DbName);

}  // namespace
}  // namespace plaudit::testing
