#include "support/redis_server.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <stdexcept>

namespace plaudit::testing {

RedisServer::RedisServer(std::vector<std::string> extra_args) : extra_args_(std::move(extra_args)) {
  socket_ = (dir_.path() / "redis.sock").string();
  const bool cluster =
      std::find(extra_args_.begin(), extra_args_.end(), "--cluster-enabled") != extra_args_.end();
  port_ = cluster ? FreeClusterTcpPort() : FreeTcpPort();
  Start();
}

RedisServer::~RedisServer() { Stop(); }

void RedisServer::Start() {
  if (proc_) {
    return;
  }
  std::string bin = FindExecutable("redis-server", {"/usr/bin", "/usr/local/bin"});
  if (bin.empty()) {
    throw std::runtime_error("redis-server not found: run scripts/install-deps.sh");
  }
  std::vector<std::string> argv{bin,
                                "--port",
                                std::to_string(port_),
                                "--bind",
                                "127.0.0.1",
                                "--unixsocket",
                                socket_,
                                "--unixsocketperm",
                                "700",
                                "--dir",
                                dir_.path().string(),
                                "--save",
                                "",
                                "--appendonly",
                                "no",
                                "--daemonize",
                                "no",
                                "--loglevel",
                                "warning"};
  argv.insert(argv.end(), extra_args_.begin(), extra_args_.end());
  proc_ = std::make_unique<Process>(argv, (dir_.path() / "redis.log").string());
  if (!WaitFor([&] { return UnixSocketAccepts(socket_); }, std::chrono::seconds(10))) {
    throw std::runtime_error("redis-server did not start; see " +
                             (dir_.path() / "redis.log").string());
  }
}

void RedisServer::Stop() {
  if (proc_) {
    proc_->Stop();
    proc_.reset();
  }
}

std::string RedisServer::SaveSnapshot() {
  if (Cli("SAVE") != "OK") {
    throw std::runtime_error("redis SAVE failed");
  }
  const auto dump = dir_.path() / "dump.rdb";
  const auto kept = dir_.path() / ("snapshot-" + std::to_string(++snapshots_) + ".rdb");
  std::filesystem::rename(dump, kept);
  return kept.string();
}

void RedisServer::RestartFrom(const std::string& snapshot) {
  Stop();  // no save points: a SIGTERM writes nothing
  const auto dump = dir_.path() / "dump.rdb";
  std::filesystem::copy_file(snapshot, dump, std::filesystem::copy_options::overwrite_existing);
  Start();
  // The socket accepts before the data is loaded (PING answers LOADING until then); once
  // loaded, the file goes, so that later restarts of this server start empty, as before.
  if (!WaitFor([&] { return Cli("PING") == "PONG"; }, std::chrono::seconds(10))) {
    throw std::runtime_error("redis-server did not load " + snapshot);
  }
  std::filesystem::remove(dump);
}

std::string RedisServer::Cli(const std::string& args) const {
  std::string cmd = "redis-cli -s '" + socket_ + "' " + args + " 2>&1";
  std::string out;
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) {
    throw std::runtime_error("popen redis-cli failed");
  }
  std::array<char, 4096> buf{};
  size_t n;
  while ((n = std::fread(buf.data(), 1, buf.size(), p)) > 0) {
    out.append(buf.data(), n);
  }
  ::pclose(p);
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) {
    out.pop_back();
  }
  return out;
}

}  // namespace plaudit::testing
