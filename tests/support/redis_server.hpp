#pragma once
// A private redis-server for one test suite: Unix socket and TCP port on 127.0.0.1 in a
// temp dir, no persistence. Tests may stop and restart it to simulate outages.
#include <memory>
#include <string>
#include <vector>

#include "support/process.hpp"
#include "support/temp_dir.hpp"

namespace plaudit::testing {

class RedisServer {
 public:
  // `extra_args` are appended to redis-server's command line (e.g. cluster mode).
  explicit RedisServer(std::vector<std::string> extra_args = {});
  ~RedisServer();

  void Start();  // (re)starts on the same socket and port; waits until it accepts
  void Stop();   // SIGTERM and wait: simulates Redis going away
  bool running() const { return proc_ != nullptr; }
  // The redis-server's pid (-1 when stopped), e.g. to SIGSTOP it and simulate a hung server.
  pid_t pid() const { return proc_ ? proc_->pid() : -1; }

  const std::string& socket_path() const { return socket_; }
  int port() const { return port_; }
  std::string unix_url() const { return "unix://" + socket_; }
  std::string tcp_url() const { return "redis://127.0.0.1:" + std::to_string(port_); }

  // A snapshot of the whole dataset now (SAVE), kept aside under a file of its own.
  std::string SaveSnapshot();
  // Restarts the server from a snapshot SaveSnapshot() kept: Redis comes back older, as
  // after a restore from a backup or a failover to a lagging replica.
  void RestartFrom(const std::string& snapshot);

  // Runs redis-cli against the server and returns its stdout (trailing newline removed).
  std::string Cli(const std::string& args) const;

 private:
  TempDir dir_{"plaudit-redis"};
  std::string socket_;
  int port_ = 0;
  std::vector<std::string> extra_args_;
  std::unique_ptr<Process> proc_;
  int snapshots_ = 0;
};

}  // namespace plaudit::testing
