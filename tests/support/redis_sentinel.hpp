#pragma once
// Redis Sentinel for tests: a primary, a replica of it and Sentinels watching them (each a
// `redis-server sentinel.conf --sentinel` on a free port, with a config file of its own that it
// rewrites), and the steps tests need: SENTINEL FAILOVER, a primary that dies, a Sentinel that
// is down. Failure detection is quick: down-after-milliseconds 1000, failover-timeout 2000.
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "support/process.hpp"
#include "support/redis_server.hpp"
#include "support/temp_dir.hpp"

namespace plaudit::testing {

// One Sentinel watching `service` at 127.0.0.1:`watched_port` with `quorum`.
class SentinelProcess {
 public:
  SentinelProcess(std::string service, int watched_port, int quorum);
  ~SentinelProcess();

  void Start();  // (re)starts from its (rewritten) config; waits until it answers PING
  void Stop();
  bool running() const { return proc_ != nullptr; }
  int port() const { return port_; }
  // redis-cli against this Sentinel; stdout without the trailing newline.
  std::string Cli(const std::string& args) const;
  // The port of the primary this Sentinel names now (0: none).
  int PrimaryPort(const std::string& service) const;

 private:
  TempDir dir_{"plaudit-sentinel"};
  int port_ = 0;
  std::unique_ptr<Process> proc_;
};

class RedisSentinel {
 public:
  explicit RedisSentinel(std::string service = "plaudit", int sentinels = 3);

  // redis-sentinel://127.0.0.1:s0,127.0.0.1:s1,.../service[?db=N]
  std::string url(int db = 0) const;
  const std::string& service() const { return service_; }
  // The data nodes: 0 started as the primary, 1 as its replica.
  RedisServer& server(size_t i) { return *servers_.at(i); }
  SentinelProcess& sentinel(size_t i) { return *sentinels_.at(i); }
  size_t sentinels() const { return sentinels_.size(); }

  // The data node every running Sentinel names (throws when they disagree or name none).
  size_t Primary() const;
  size_t Replica() const { return 1 - Primary(); }
  // Until every running Sentinel names `primary`, it says ROLE master, and the other node (if
  // running) replicates from it with its link up.
  bool WaitSettled(size_t primary, std::chrono::milliseconds timeout = std::chrono::seconds(30));
  // SENTINEL FAILOVER on a running Sentinel: the replica is promoted (not waited for).
  void StartFailover();

 private:
  std::string service_;
  std::vector<std::unique_ptr<RedisServer>> servers_;
  std::vector<std::unique_ptr<SentinelProcess>> sentinels_;
};

}  // namespace plaudit::testing
