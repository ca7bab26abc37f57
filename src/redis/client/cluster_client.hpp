#pragma once
// A Redis Cluster client (--redis redis-cluster://host:port[,host:port...]): the Client
// contract (client.hpp) over one pipelined connection per primary.
//
// Routing: a command goes to the primary of its key's hash slot (cluster_slots.hpp), from a
// slot map read with CLUSTER SLOTS at start, every second, and soon after anything says it
// moved. A batch (Pipeline, PipelineFramed) whose commands live on several primaries is split,
// sent to all of them at once, and its replies put back in order. Then every reply that is a
// redirection is followed, command by command:
//   MOVED       the slot has a new owner: noted at once (the map is read again), sent there;
//   ASK         the slot is being migrated and this key has left: sent once to the target,
//               behind ASKING;
//   TRYAGAIN,   a multi-key command mid-migration, or a cluster failing over: sent again
//   CLUSTERDOWN after 10, 20, 40, 80, 80... ms while the command timeout lasts, then
//               kUnavailable.
// Scripts are loaded on whichever node answers NOSCRIPT (each node's Client does that). A
// script never runs while its slot migrates: its keys get the slot's guard key
// (cluster::SlotGuardKey), which exists nowhere, so the source answers ASK and the target
// TRYAGAIN, and both mean "wait" for a script (cluster_client.cpp, ScriptCommand). A script
// then runs on all of its slot's keys or none of them, as on one Redis; a reshard costs its
// slots' scripts a wait of about one slot's migration, and a migration left half done (a
// killed redis-cli: `redis-cli --cluster fix` ends it) their 503s until it is ended.
//
// Failure: a primary that goes away fails its commands with kUnavailable, as one Redis's
// client does, and makes the map be read again; once the cluster has promoted a replica, the
// map names it and commands go there. The order of commands is kept per slot only: a batch's
// commands on different nodes run concurrently (one atomic step never spans slots anyway).
//
// stats().reconnects counts every node connection's reconnects and every change of a slot's
// owner: the page caches key what they keep by it, since either may mean another copy of the
// data (a promoted replica may be behind its old primary).
#include <array>
#include <memory>

#include "redis/client/client.hpp"
#include "redis/client/cluster_slots.hpp"

namespace plaudit::redis {

class ClusterClient final : public Client {
 public:
  static std::shared_ptr<ClusterClient> Make(net::any_io_executor ex, ClientOptions options);
  ClusterClient(net::any_io_executor ex, ClientOptions options);
  ~ClusterClient() override;

  void Start() override;
  void Stop() override;
  // The map is known and every primary in it is connected.
  bool connected() const override;
  Awaitable<bool> WaitConnected(std::chrono::milliseconds timeout) override;

  Awaitable<Result<Reply>> Command(std::vector<std::string> argv) override;
  Awaitable<Result<std::vector<Reply>>> Pipeline(
      std::vector<std::vector<std::string>> commands) override;
  Awaitable<Result<std::vector<Reply>>> PipelineFramed(FramedCommands commands) override;
  Awaitable<Result<Reply>> Eval(const Script& script, std::vector<std::string> keys,
                                std::vector<std::string> args) override;
  // On the connection to the primary of `key`'s slot, where the key's writes went: when the
  // slot changed owner since, stats().reconnects has moved (the caller's check).
  Awaitable<Result<int64_t>> WaitReplicas(std::string_view key, int replicas,
                                          std::chrono::milliseconds timeout) override;

  std::vector<std::shared_ptr<Client>> Primaries() override;
  // The primary of the channel's slot (sharded pub/sub); before the map is known, each call
  // the next seed.
  RedisEndpoint PubSubEndpoint(std::string_view channel) const override;
  bool ShardedPubSub() const override { return true; }
  const ClientStats& stats() const override;
  void SetLatencyObserver(std::function<void(std::string_view, double)> observer) override;

  // Reads the slot map now (tests: after a reshard or a failover they made).
  Awaitable<Status> Refresh();

  // One node's connection (public for the routing code in cluster_client.cpp).
  struct Node {
    RedisEndpoint::Node addr;
    std::shared_ptr<Client> client;
  };

 private:
  using Clock = std::chrono::steady_clock;

  // The node that serves `slot` (-1: any node), or null when no map says.
  std::shared_ptr<Node> Route(int slot) const;
  // The connection to `addr`, made (and started) on first use.
  std::shared_ptr<Node> NodeAt(const RedisEndpoint::Node& addr);
  void NoteMoved(int slot, const RedisEndpoint::Node& addr);
  void ApplyMap(const cluster::SlotMap& map);
  void Retire(const std::shared_ptr<Node>& node);
  // Asks the refresher to read the map soon (at most every kMinRefreshGap).
  void WantRefresh();

  static Awaitable<void> RefreshLoop(std::weak_ptr<ClusterClient> weak);
  static Awaitable<Status> RefreshOnce(std::weak_ptr<ClusterClient> weak);

  template <class Batch>
  static Awaitable<Result<std::vector<Reply>>> RunBatch(std::weak_ptr<ClusterClient> weak,
                                                        Batch batch);
  template <class Send>
  static Awaitable<Result<Reply>> RunOne(std::weak_ptr<ClusterClient> weak, int slot, Send send);

  std::weak_ptr<ClusterClient> weak_self_;
  net::any_io_executor ex_;
  ClientOptions options_;  // endpoint: the seeds; the rest is each node's
  bool started_ = false;
  bool stopped_ = false;
  std::vector<std::shared_ptr<Node>> nodes_;      // every live connection, by address
  std::vector<std::shared_ptr<Node>> primaries_;  // the map's primaries
  std::array<int16_t, cluster::kSlots> owner_;    // index into primaries_; -1: none
  bool have_map_ = false;
  bool refresh_wanted_ = false;
  Clock::time_point last_refresh_{};
  net::steady_timer wake_;
  uint64_t topology_changes_ = 0;
  ClientStats retired_;  // the stats of retired connections, so that the sums never go back
  mutable ClientStats stats_;
  mutable size_t pubsub_turn_ = 0;
  std::function<void(std::string_view, double)> observer_;
};

}  // namespace plaudit::redis
