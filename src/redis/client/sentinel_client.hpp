#pragma once
// A client for a primary that Redis Sentinel watches
// (--redis redis-sentinel://host:port[,host:port...]/service[?db=N]): the Client contract
// (client.hpp) over one pipelined connection to whichever node is the primary now.
//
// Finding the primary: the Sentinels are asked in turn, SENTINEL get-master-addr-by-name
// <service>; the first that answers names it (one that is down, or does not know the service,
// is skipped). A connection to that node is used only once it answers ROLE with "master": a
// Sentinel names the old primary for a moment after a failover, and an old primary that comes
// back is restarted as a replica. Reads there would see a copy that is behind, so such a node
// is closed and the Sentinels asked again, after 50, 100, ... ms (up to reconnect_max).
//
// Following it: a subscription to +switch-master on a Sentinel (the next one when it is lost)
// says when a failover has ended; the Sentinels are also asked again every second, when the
// primary's connection drops (its own reconnect is not trusted until ROLE says master again)
// and when a reply says READONLY (the node was demoted under us). While the primary is in
// doubt, calls fail at once with kUnavailable, as one Redis's client does while Redis is down;
// afterwards they go to the new primary without a restart.
//
// stats() sums every primary connection this client has had (closed ones' counters are kept)
// and `reconnects` also moves on each change of primary: replication is asynchronous, so the
// promoted replica may be behind, and what was cached from the old primary must start over.
// The Sentinel connections are not counted.
#include <memory>
#include <optional>

#include "redis/client/client.hpp"
#include "redis/client/subscriber.hpp"

namespace plaudit::redis {

class SentinelClient final : public Client {
 public:
  static std::shared_ptr<SentinelClient> Make(net::any_io_executor ex, ClientOptions options);
  SentinelClient(net::any_io_executor ex, ClientOptions options);
  ~SentinelClient() override;

  void Start() override;
  void Stop() override;
  // A primary is known, said ROLE master on this connection, and is connected.
  bool connected() const override;
  Awaitable<bool> WaitConnected(std::chrono::milliseconds timeout) override;

  Awaitable<Result<Reply>> Command(std::vector<std::string> argv) override;
  Awaitable<Result<std::vector<Reply>>> Pipeline(
      std::vector<std::vector<std::string>> commands) override;
  Awaitable<Result<std::vector<Reply>>> PipelineFramed(FramedCommands commands) override;
  Awaitable<Result<Reply>> Eval(const Script& script, std::vector<std::string> keys,
                                std::vector<std::string> args) override;
  // On the primary's connection; after a change of primary stats().reconnects has moved.
  Awaitable<Result<int64_t>> WaitReplicas(std::string_view key, int replicas,
                                          std::chrono::milliseconds timeout) override;

  // {the primary's client}, or none while no primary is known.
  std::vector<std::shared_ptr<Client>> Primaries() override;
  // The primary in use (or last used); before the first, an endpoint no connect succeeds on,
  // so that a subscriber retries with backoff instead of listening on a Sentinel.
  RedisEndpoint PubSubEndpoint(std::string_view channel) const override;
  const ClientStats& stats() const override;
  void SetLatencyObserver(std::function<void(std::string_view, double)> observer) override;

  // The primary in use now, if any (tests).
  std::optional<RedisEndpoint::Node> primary() const;

 private:
  using Clock = std::chrono::steady_clock;

  // The primary's client if calls may go there now; otherwise null (and the Sentinels are
  // asked again soon).
  std::shared_ptr<Client> Usable();
  // Calls fail until the Sentinels have been asked again and the node they name checked.
  void Doubt(std::string_view why);
  void WantResolve();
  void Retire(std::shared_ptr<Client>& client);
  void OnSwitchMaster(std::string_view payload);
  RedisEndpoint NextSentinel();

  static Awaitable<void> WatchLoop(std::weak_ptr<SentinelClient> weak);
  static Awaitable<Status> ResolveOnce(std::weak_ptr<SentinelClient> weak);
  // Awaits a call on the primary; a READONLY reply (the node is a replica now) becomes
  // kUnavailable and puts the primary in doubt.
  template <class T>
  static Awaitable<T> Watched(std::weak_ptr<SentinelClient> weak, Awaitable<T> call);

  std::weak_ptr<SentinelClient> weak_self_;
  net::any_io_executor ex_;
  ClientOptions options_;  // endpoint: the Sentinels, the service and the db
  bool started_ = false;
  bool stopped_ = false;
  std::vector<std::shared_ptr<Client>> sentinels_;  // one connection per Sentinel, in URL order
  size_t sentinel_turn_ = 0;                        // the one asked first next time
  size_t subscriber_turn_ = 0;
  std::shared_ptr<Subscriber> switches_sub_;
  std::shared_ptr<Client> primary_;
  RedisEndpoint::Node primary_addr_;
  bool have_addr_ = false;
  bool doubted_ = false;
  std::optional<RedisEndpoint::Node> last_refused_;  // warned about; cleared once one is used
  uint64_t verified_at_ = 0;  // primary_->stats().reconnects when ROLE last said master
  bool resolve_wanted_ = true;
  bool backing_off_ = false;  // WatchLoop waits after a failed round
  net::steady_timer wake_;
  uint64_t switches_ = 0;  // changes of primary
  ClientStats retired_;
  mutable ClientStats stats_;
  std::function<void(std::string_view, double)> observer_;
};

}  // namespace plaudit::redis
