#include "support/redis_sentinel.hpp"

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace plaudit::testing {

namespace {

std::string Sh(const std::string& cmd) {
  std::string out;
  FILE* p = ::popen((cmd + " 2>&1").c_str(), "r");
  if (!p) {
    throw std::runtime_error("popen failed");
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

}  // namespace

SentinelProcess::SentinelProcess(std::string service, int watched_port, int quorum) {
  port_ = FreeTcpPort();
  // Sentinel rewrites this file (the primary it follows, the replicas and Sentinels it has
  // met), so a restarted Sentinel goes on from where it was.
  std::ofstream conf(dir_.path() / "sentinel.conf");
  conf << "bind 127.0.0.1\n"
       << "port " << port_ << "\n"
       << "dir " << dir_.path().string() << "\n"
       << "sentinel monitor " << service << " 127.0.0.1 " << watched_port << " " << quorum << "\n"
       << "sentinel down-after-milliseconds " << service << " 1000\n"
       << "sentinel failover-timeout " << service << " 2000\n";
  conf.close();
  Start();
}

SentinelProcess::~SentinelProcess() { Stop(); }

void SentinelProcess::Start() {
  if (proc_) {
    return;
  }
  std::string bin = FindExecutable("redis-server", {"/usr/bin", "/usr/local/bin"});
  if (bin.empty()) {
    throw std::runtime_error("redis-server not found: run scripts/install-deps.sh");
  }
  proc_ = std::make_unique<Process>(
      std::vector<std::string>{bin, (dir_.path() / "sentinel.conf").string(), "--sentinel"},
      (dir_.path() / "sentinel.log").string());
  if (!WaitFor([&] { return Cli("PING") == "PONG"; }, std::chrono::seconds(10))) {
    throw std::runtime_error("redis-server --sentinel did not start; see " +
                             (dir_.path() / "sentinel.log").string());
  }
}

void SentinelProcess::Stop() {
  if (proc_) {
    proc_->Stop();
    proc_.reset();
  }
}

std::string SentinelProcess::Cli(const std::string& args) const {
  return Sh("redis-cli -p " + std::to_string(port_) + " " + args);
}

int SentinelProcess::PrimaryPort(const std::string& service) const {
  std::istringstream in(Cli("SENTINEL get-master-addr-by-name " + service));
  std::string host, port;
  if (!(in >> host >> port)) {
    return 0;
  }
  try {
    return std::stoi(port);
  } catch (const std::exception&) {
    return 0;
  }
}

RedisSentinel::RedisSentinel(std::string service, int sentinels) : service_(std::move(service)) {
  servers_.push_back(std::make_unique<RedisServer>());
  servers_.push_back(std::make_unique<RedisServer>(
      std::vector<std::string>{"--replicaof", "127.0.0.1", std::to_string(servers_[0]->port())}));
  for (int i = 0; i < sentinels; ++i) {
    sentinels_.push_back(
        std::make_unique<SentinelProcess>(service_, servers_[0]->port(), (sentinels + 1) / 2));
  }
  // The Sentinels must have met the replica and each other before any failover can happen.
  const bool met = WaitFor(
      [&] {
        for (const auto& s : sentinels_) {
          const std::string info = s->Cli("INFO sentinel");
          const std::string want = "slaves=1,sentinels=" + std::to_string(sentinels);
          if (info.find(want) == std::string::npos) {
            return false;
          }
        }
        return true;
      },
      std::chrono::seconds(30));
  if (!met || !WaitSettled(0)) {
    throw std::runtime_error("the test Sentinels did not settle");
  }
}

std::string RedisSentinel::url(int db) const {
  std::string u = "redis-sentinel://";
  for (size_t i = 0; i < sentinels_.size(); ++i) {
    if (i > 0) {
      u += ',';
    }
    u += "127.0.0.1:" + std::to_string(sentinels_[i]->port());
  }
  u += "/" + service_;
  if (db != 0) {
    u += "?db=" + std::to_string(db);
  }
  return u;
}

size_t RedisSentinel::Primary() const {
  int port = 0;
  for (const auto& s : sentinels_) {
    if (!s->running()) {
      continue;
    }
    const int p = s->PrimaryPort(service_);
    if (port != 0 && p != port) {
      throw std::runtime_error("the Sentinels disagree on the primary");
    }
    port = p;
  }
  for (size_t i = 0; i < servers_.size(); ++i) {
    if (servers_[i]->port() == port) {
      return i;
    }
  }
  throw std::runtime_error("no Sentinel names a data node");
}

bool RedisSentinel::WaitSettled(size_t primary, std::chrono::milliseconds timeout) {
  const int want = servers_.at(primary)->port();
  return WaitFor(
      [&] {
        for (const auto& s : sentinels_) {
          if (s->running() && s->PrimaryPort(service_) != want) {
            return false;
          }
        }
        if (servers_[primary]->Cli("ROLE").rfind("master", 0) != 0) {
          return false;
        }
        auto& other = *servers_[1 - primary];
        if (!other.running()) {
          return true;
        }
        const std::string info = other.Cli("INFO replication");
        return info.find("master_port:" + std::to_string(want)) != std::string::npos &&
               info.find("master_link_status:up") != std::string::npos;
      },
      timeout);
}

void RedisSentinel::StartFailover() {
  for (const auto& s : sentinels_) {
    if (!s->running()) {
      continue;
    }
    const std::string r = s->Cli("SENTINEL FAILOVER " + service_);
    if (r != "OK") {
      throw std::runtime_error("SENTINEL FAILOVER: " + r);
    }
    return;
  }
  throw std::runtime_error("no Sentinel is running");
}

}  // namespace plaudit::testing
