#pragma once
// A private Redis Cluster for tests: `primaries` cluster-mode redis-servers (and `replicas`
// replicas of each) on free ports, joined by redis-cli --cluster create, with the steps tests
// need to move slots and fail nodes over while plauditd runs against it.
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "support/redis_server.hpp"

namespace plaudit::testing {

class RedisCluster {
 public:
  explicit RedisCluster(int primaries = 3, int replicas = 0);

  // redis-cluster://127.0.0.1:p0,127.0.0.1:p1,... (every node as a seed).
  std::string url() const;
  size_t size() const { return nodes_.size(); }
  RedisServer& node(size_t i) { return *nodes_.at(i); }
  // The nodes serving slots now, as CLUSTER SLOTS of a running node says.
  std::vector<size_t> Primaries() const;
  // The node that serves `slot` now.
  size_t OwnerOf(int slot) const;
  // redis-cli -c (following redirections) against a running node; stdout without the
  // trailing newline.
  std::string Cli(const std::string& args) const;
  // FLUSHALL on every primary.
  void FlushAll();
  // Until every running node says cluster_state:ok and they agree on who serves each slot.
  bool WaitHealthy(std::chrono::milliseconds timeout = std::chrono::seconds(20));

  // Moving a slot, in the steps redis-cli --cluster reshard takes: Begin marks it migrating
  // from its owner and importing on `to`; MoveKeys MIGRATEs up to `count` of its keys (0: all
  // left); Finish gives the slot to `to` on every node.
  void BeginMove(int slot, size_t to);
  void MoveKeys(int slot, size_t to, size_t count = 0);
  void FinishMove(int slot, size_t to);
  void MoveSlot(int slot, size_t to) {
    BeginMove(slot, to);
    MoveKeys(slot, to);
    FinishMove(slot, to);
  }

  std::string NodeId(size_t i) const;

 private:
  size_t AnyRunning() const;
  size_t IndexOfPort(int port) const;

  std::vector<std::unique_ptr<RedisServer>> nodes_;
  std::vector<std::string> ids_;
};

}  // namespace plaudit::testing
