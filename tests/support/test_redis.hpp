#pragma once
// The Redis an API test runs against: a redis-server of its own, or, when the environment
// says PLAUDIT_TEST_REDIS=cluster, the process's shared 3-primary Redis Cluster (emptied for
// each test). ctest runs the API suite both ways (tests/CMakeLists.txt).
//
// Cli() speaks to either: a command of one key follows the cluster's redirections, and what
// names no key (FLUSHALL, SCRIPT FLUSH, CLIENT KILL, --scan...) runs on every primary. What
// only one server can do (stop it, restore a snapshot) throws on a cluster: a test that needs
// it says so first with PL_NEEDS_ONE_REDIS() and is skipped there.
#include <memory>
#include <string>

#include "support/redis_cluster.hpp"
#include "support/redis_server.hpp"

namespace plaudit::testing {

class TestRedis {
 public:
  TestRedis();

  static bool ClusterMode();  // PLAUDIT_TEST_REDIS=cluster
  bool cluster() const { return cluster_ != nullptr; }
  // For --redis: unix:// of the server, or redis-cluster:// of every node.
  std::string url() const;
  std::string Cli(const std::string& args) const;

  // One redis-server only (these throw std::logic_error on a cluster).
  RedisServer& server() const;
  void Stop() { server().Stop(); }
  void Start() { server().Start(); }
  pid_t pid() const { return server().pid(); }
  const std::string& socket_path() const { return server().socket_path(); }
  std::string unix_url() const { return server().unix_url(); }
  std::string tcp_url() const { return server().tcp_url(); }
  int port() const { return server().port(); }
  std::string SaveSnapshot() { return server().SaveSnapshot(); }
  void RestartFrom(const std::string& snapshot) { server().RestartFrom(snapshot); }

 private:
  std::unique_ptr<RedisServer> server_;
  RedisCluster* cluster_ = nullptr;
};

}  // namespace plaudit::testing

// At the top of a test that stops, restores or otherwise needs one redis-server.
#define PL_NEEDS_ONE_REDIS()                                                   \
  do {                                                                         \
    if (::plaudit::testing::TestRedis::ClusterMode())                          \
      GTEST_SKIP() << "needs one redis-server (stops, restores or pauses it)"; \
  } while (0)

// At the top of a test that counts one instance's Redis commands or cache hits: on a cluster
// its requests alternate between two instances, so such counts say nothing there.
#define PL_COUNTS_ONE_INSTANCE()                                                 \
  do {                                                                           \
    if (::plaudit::testing::TestRedis::ClusterMode())                            \
      GTEST_SKIP() << "counts one instance's commands; requests alternate here"; \
  } while (0)
