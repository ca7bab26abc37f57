#pragma once
// Runs a whole plauditd App in-process on port 0 against a private redis-server and a
// given database, on its own thread, for API tests over real HTTP.
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>

#include "support/http_client.hpp"
#include "support/redis_server.hpp"
#include "support/temp_dir.hpp"
#include "support/test_redis.hpp"

namespace plaudit::app {
class App;
}
namespace plaudit::config {
struct Config;
}

namespace plaudit::testing {

class AppUnderTest {
 public:
  // database_url empty: SQLite in a temp dir. redis: an external test server.
  AppUnderTest(RedisServer& redis, std::string database_url = {});
  AppUnderTest(RedisServer& redis, const config::Config& config);
  // On the test's Redis (one server or the cluster) unless `config` names one.
  AppUnderTest(TestRedis& redis, const config::Config& config);
  // On the Redis `config` names (config.redis must be set: a cluster or Sentinels of the
  // test's own).
  explicit AppUnderTest(const config::Config& config);
  ~AppUnderTest();

  void Stop();
  uint16_t port() const;
  HttpClient Client() const { return HttpClient("127.0.0.1", port()); }
  app::App& app() { return *app_; }
  // Until the session cache is in use (its subscription is up); false after `timeout`.
  bool WaitForSessionCache(std::chrono::milliseconds timeout);
  // Session lookups this app answered from its cache.
  uint64_t SessionCacheHits();

 private:
  void Boot(config::Config config);

  TempDir dir_{"plaudit-api"};
  std::unique_ptr<app::App> app_;
  std::thread thread_;
};

}  // namespace plaudit::testing
