#pragma once
// The fixture of the tests that run the built plauditd binary: a temp dir of its own holding
// the data dir (SQLite, the embedded Redis child) and the process's log.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "support/http_client.hpp"
#include "support/process.hpp"
#include "support/temp_dir.hpp"

namespace plaudit::testing {

class PlauditdProcessTest : public ::testing::Test {
 protected:
  explicit PlauditdProcessTest(const std::string& prefix) : dir_(prefix) {}

  // plauditd serving `port` on this fixture's data dir, with `args` after those.
  std::unique_ptr<Process> Start(std::vector<std::string> args, int port) {
    std::vector<std::string> argv = {PLAUDITD_PATH, "--data-dir", data_dir(), "--port",
                                     std::to_string(port)};
    argv.insert(argv.end(), args.begin(), args.end());
    return std::make_unique<Process>(argv, log_path());
  }

  // The status of GET `target`, or -1 when nothing answers.
  static int Status(int port, const std::string& target) {
    try {
      return HttpClient("127.0.0.1", port).Get(target).status;
    } catch (...) {
      return -1;
    }
  }

  static bool Ready(int port) {
    return WaitFor([&] { return Status(port, "/readyz") == 200; }, std::chrono::seconds(20));
  }

  // The output of shell command `cmd` (stderr too), without the last newlines.
  static std::string Shell(const std::string& cmd) {
    std::string out;
    FILE* p = ::popen((cmd + " 2>&1").c_str(), "r");
    char buf[512];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof(buf), p)) > 0) {
      out.append(buf, n);
    }
    ::pclose(p);
    while (!out.empty() && out.back() == '\n') {
      out.pop_back();
    }
    return out;
  }

  // redis-cli against the embedded child's socket; its output without the last newlines.
  std::string RedisCli(const std::string& args) {
    return Shell("redis-cli -s " + ShellQuote(redis_socket()) + " " + args);
  }

  pid_t RedisChildPid() {
    std::ifstream in(std::filesystem::path(data_dir()) / "redis/redis.pid");
    pid_t pid = -1;
    in >> pid;
    return pid;
  }

  std::string data_dir() const { return (dir_.path() / "data").string(); }
  std::string redis_socket() const { return data_dir() + "/redis/redis.sock"; }
  std::string log_path() const { return (dir_.path() / "plauditd.log").string(); }
  std::string Log() const { return ReadFile(log_path()); }

  TempDir dir_;
};

}  // namespace plaudit::testing
