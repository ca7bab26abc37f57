#include "support/test_redis.hpp"

#include <cstdlib>
#include <sstream>
#include <stdexcept>
#include <vector>

namespace plaudit::testing {

namespace {

RedisCluster& SharedCluster() {
  static RedisCluster cluster(3, 0);
  return cluster;
}

bool StartsWith(const std::string& s, const std::string& prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}

// Commands of no key that change or read every node's state.
bool OnEveryPrimary(const std::string& args) {
  for (const char* p : {"FLUSHALL", "FLUSHDB", "SCRIPT ", "CLIENT ", "ACL ", "CONFIG ", "--scan",
                        "PUBSUB ", "DBSIZE"}) {
    if (StartsWith(args, p)) {
      return true;
    }
  }
  return false;
}

}  // namespace

bool TestRedis::ClusterMode() {
  const char* v = std::getenv("PLAUDIT_TEST_REDIS");
  return v != nullptr && std::string(v) == "cluster";
}

TestRedis::TestRedis() {
  if (ClusterMode()) {
    cluster_ = &SharedCluster();
    if (!cluster_->WaitHealthy()) {
      throw std::runtime_error("the test cluster is not healthy");
    }
    cluster_->FlushAll();
    for (size_t p : cluster_->Primaries()) {
      cluster_->node(p).Cli("SCRIPT FLUSH");
    }
  } else {
    server_ = std::make_unique<RedisServer>();
  }
}

std::string TestRedis::url() const { return cluster_ ? cluster_->url() : server_->unix_url(); }

RedisServer& TestRedis::server() const {
  if (!server_) {
    throw std::logic_error("this test needs one redis-server: add PL_NEEDS_ONE_REDIS()");
  }
  return *server_;
}

std::string TestRedis::Cli(const std::string& args) const {
  if (!cluster_) {
    return server_->Cli(args);
  }
  if (!OnEveryPrimary(args)) {
    return cluster_->Cli(args);
  }
  // Every primary's answer: counts (CLIENT KILL, DBSIZE, PUBSUB NUMSUB's) summed, lists
  // (--scan) joined, a status (OK) when all say it.
  std::vector<std::string> outs;
  for (size_t p : cluster_->Primaries()) {
    outs.push_back(cluster_->node(p).Cli(args));
  }
  if (StartsWith(args, "--scan")) {
    std::string all;
    for (const auto& o : outs) {
      if (o.empty()) {
        continue;
      }
      if (!all.empty()) {
        all += '\n';
      }
      all += o;
    }
    return all;
  }
  if (StartsWith(args, "PUBSUB NUMSUB")) {  // "channel\ncount"
    long total = 0;
    std::string channel;
    for (const auto& o : outs) {
      const size_t nl = o.find('\n');
      channel = o.substr(0, nl);
      total += std::stol(o.substr(nl + 1));
    }
    return channel + "\n" + std::to_string(total);
  }
  const bool counts = StartsWith(args, "CLIENT KILL") || StartsWith(args, "DBSIZE");
  if (counts) {
    long total = 0;
    for (const auto& o : outs) {
      total += std::stol(o);
    }
    return std::to_string(total);
  }
  for (const auto& o : outs) {
    if (o != outs.front()) {
      return o;  // a disagreement shows
    }
  }
  return outs.front();
}

}  // namespace plaudit::testing
