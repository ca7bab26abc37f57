#include "app_fixture.hpp"

#include <future>
#include <stdexcept>

#include "app/app.hpp"

namespace plaudit::testing {

AppUnderTest::AppUnderTest(RedisServer& redis, std::string database_url) {
  config::Config c;
  c.redis = ParseRedisUrl(redis.unix_url()).value();
  if (!database_url.empty()) {
    c.database = ParseDatabaseUrl(database_url).value();
  }
  c.password_hash = config::PasswordCost::kMinimal;  // full-cost Argon2id: every test slow
  c.limit_signup_address = RateLimit{};              // tests sign many users up from one address
  c.duplicate_window_s = 0;                          // tests post the same words again
  c.limit_new_writer = RateLimit{};                  // and new accounts post a lot
  Boot(std::move(c));
}

AppUnderTest::AppUnderTest(RedisServer& redis, const config::Config& config) {
  config::Config c = config;
  if (!c.redis) {
    c.redis = ParseRedisUrl(redis.unix_url()).value();
  }
  Boot(std::move(c));
}

AppUnderTest::AppUnderTest(TestRedis& redis, const config::Config& config) {
  config::Config c = config;
  if (!c.redis) {
    c.redis = ParseRedisUrl(redis.url()).value();
  }
  Boot(std::move(c));
}

AppUnderTest::AppUnderTest(const config::Config& config) {
  if (!config.redis) {
    throw std::logic_error("AppUnderTest(config): config.redis is not set");
  }
  Boot(config);
}

void AppUnderTest::Boot(config::Config c) {
  c.port = 0;
  c.data_dir = (dir_.path() / "data").string();
  c.log_level = spdlog::level::warn;
  app_ = std::make_unique<app::App>(std::move(c));
  auto st = app_->Start();
  if (!st) {
    throw std::runtime_error("app start failed: " + st.error().message);
  }
  thread_ = std::thread([this] { app_->Run(false); });
  // The session cache is used only once its invalidation channel is subscribed; tests that
  // count Redis commands or rely on the cache must not race the subscription.
  if (app_->config().session_cache_ms > 0 && !WaitForSessionCache(std::chrono::seconds(10))) {
    throw std::runtime_error("the session cache's subscription did not come up");
  }
}

bool AppUnderTest::WaitForSessionCache(std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    std::promise<bool> live;
    net::post(app_->io(), [&] { live.set_value(app_->sessions().cache_live()); });
    if (live.get_future().get()) {
      return true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return false;
}

uint64_t AppUnderTest::SessionCacheHits() {
  std::promise<uint64_t> hits;
  net::post(app_->io(), [&] { hits.set_value(app_->sessions().cache_hits()); });
  return hits.get_future().get();
}

AppUnderTest::~AppUnderTest() { Stop(); }

void AppUnderTest::Stop() {
  if (thread_.joinable()) {
    app_->RequestStop();
    thread_.join();
  }
}

uint16_t AppUnderTest::port() const { return app_->port(); }

}  // namespace plaudit::testing
