#pragma once
// Asynchronous Redis client on the caller's Asio executor, built on the hiredis async API.
//
// Design: one connection, many commands in flight. hiredis writes commands in order and
// answers callbacks in order, so every concurrent coroutine that calls Command() shares the
// socket's round trips (pipelining): N requests waiting on Redis cost one write and one read
// syscall batch, not N round trips. All methods must be called from the executor the client
// was created on (the server runs its io_context on one thread; see docs/architecture.md).
//
// Lifetime: only the owner's shared_ptr keeps the client alive; dropping it closes the
// connection and fails in-flight commands with kUnavailable. Destroy it before its io_context.
// Create() sets SIGPIPE to SIG_IGN: hiredis writes with write(2), and a Redis that
// went away must cost a reconnect, not the process.
//
// Failure model: when Redis is down, calls fail at once with ErrorCode::kUnavailable while
// a background loop reconnects with exponential backoff; a command that gets no answer
// within `command_timeout` also fails with kUnavailable (its late reply is discarded).
// A Redis error reply (e.g. WRONGTYPE) is not a transport failure: it is returned as a
// Reply of type kError; except LOADING, BUSY and MASTERDOWN (the server cannot serve now),
// which fail the call with kUnavailable like a dropped connection (UnavailableReply).
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/net.hpp"
#include "common/redis_endpoint.hpp"
#include "common/result.hpp"
#include "redis/client/reply.hpp"
#include "redis/client/resp.hpp"

namespace plaudit::redis {

struct ClientOptions {
  // Parsed from redis://host:port[/db] or unix:///path/to/redis.sock[?db=N] (ParseRedisUrl);
  // a redis-cluster:// one makes Create() return a ClusterClient (cluster_client.hpp), a
  // redis-sentinel:// one a SentinelClient (sentinel_client.hpp).
  RedisEndpoint endpoint = RedisEndpoint::Tcp("127.0.0.1");
  std::chrono::milliseconds connect_timeout{1000};
  std::chrono::milliseconds command_timeout{1000};
  std::chrono::milliseconds reconnect_min{50};
  std::chrono::milliseconds reconnect_max{2000};
  // Commands are batched per event-loop turn; once this many are waiting they are written at
  // once, so Redis works on them while this thread goes on reading requests. With 64 HTTP
  // connections, writing only at the end of each turn left the two processes taking turns
  // (a third of the 2 cores idle): 16 gave ~1.3x likes/s (bench/run.sh, docs/benchmarks.md).
  // 0 = only at the end of the turn. A single Pipeline() always leaves in one write.
  // Counted in calls (a Command, an Eval or a whole Pipeline), not commands, so that one big
  // pipeline does not flush alone and leave the call issued beside it (a comment page's
  // replies and its like states) for a second write.
  size_t eager_flush_requests = 16;
};

// A Lua script from src/redis/lua/, addressed by its file name ("like.lua"). Its SHA1 is not
// computed here (no SHA1 in our dependencies): each Client learns it from SCRIPT LOAD on first
// use and caches it by the source's hash (computed once here: comparing the whole source on
// every call was ~800 instructions of a like).
struct Script {
  std::string name;
  std::string source;
  size_t source_hash;
  Script(std::string name, std::string source);
};

// Counters for tests and metrics: how many round trips a request type costs.
struct ClientStats {
  uint64_t commands_sent = 0;    // every command written to the socket (incl. SCRIPT LOAD)
  uint64_t batches_flushed = 0;  // write batches (one per event-loop turn with pending writes)
  uint64_t reconnects = 0;
  uint64_t timeouts = 0;
  // SCRIPT LOADs (a script's first use, or a NOSCRIPT after SCRIPT FLUSH or a restart): a
  // caller that pipelined a command behind an EVALSHA learns that Redis may have run that
  // command first (ArticleCache::Get's view mark).
  uint64_t script_loads = 0;

  // Summing connections' counters (the cluster and Sentinel clients keep retired ones').
  ClientStats& operator+=(const ClientStats& s) {
    commands_sent += s.commands_sent;
    batches_flushed += s.batches_flushed;
    reconnects += s.reconnects;
    timeouts += s.timeouts;
    script_loads += s.script_loads;
    return *this;
  }
};

class Client : public std::enable_shared_from_this<Client> {
 public:
  // The client for options.endpoint's topology: one connection to one Redis, a Redis
  // Cluster's (cluster_client.hpp), or the primary's that Sentinel names (sentinel_client.hpp).
  static std::shared_ptr<Client> Create(net::any_io_executor ex, ClientOptions options);
  virtual ~Client() = default;

  // Starts connecting (returns immediately); the connection is retried in the background.
  virtual void Start() = 0;
  // Closes the connection and fails pending commands; no reconnect after this.
  virtual void Stop() = 0;
  virtual bool connected() const = 0;
  // Waits until connected (true) or until `timeout` passes or the client is stopped (false).
  // For start-up readiness and tests; requests should call Command() and handle kUnavailable.
  virtual Awaitable<bool> WaitConnected(std::chrono::milliseconds timeout) = 0;

  // Sends one command (binary-safe argv) and awaits its reply.
  virtual Awaitable<Result<Reply>> Command(std::vector<std::string> argv) = 0;
  // Sends several commands back to back (one write) and awaits all replies, in order.
  virtual Awaitable<Result<std::vector<Reply>>> Pipeline(
      std::vector<std::vector<std::string>> commands) = 0;
  // The same for commands framed by the caller (resp.hpp), e.g. many that share arguments.
  virtual Awaitable<Result<std::vector<Reply>>> PipelineFramed(FramedCommands commands) = 0;
  // EVALSHA with SCRIPT LOAD on first use and after NOSCRIPT (e.g. after SCRIPT FLUSH or a
  // Redis restart), then retries once. `script` must outlive the call (GetScript()'s do).
  virtual Awaitable<Result<Reply>> Eval(const Script& script, std::vector<std::string> keys,
                                        std::vector<std::string> args) = 0;

  // WAIT: how many replicas have acknowledged every write this client's connection to the
  // primary of `key`'s slot made before the call (--redis-wait-replicas). It must go on the
  // connection that ran the writes, since WAIT counts the calling client's writes; a caller
  // that needs that to hold compares stats().reconnects before its write and after this.
  // WAIT blocks the connection in Redis (every command queued behind it waits), so calls
  // coalesce per connection: one WAIT at a time, and callers that arrive while one is in
  // flight share the next one, sent once it has answered (its count covers all their writes,
  // which were answered before it was sent). A batch's WAIT asks for the most replicas and
  // the shortest timeout its callers gave. `timeout` must be positive (WAIT 0 blocks forever).
  virtual Awaitable<Result<int64_t>> WaitReplicas(std::string_view key, int replicas,
                                                  std::chrono::milliseconds timeout) = 0;

  // The clients of the primaries that hold the data: a Redis Cluster's, or this one. For what
  // must ask every server: SCAN (which walks one node's keys) and INFO. Commands sent on them
  // are not redirected, and a cluster's list may change after any await.
  virtual std::vector<std::shared_ptr<Client>> Primaries() = 0;
  // Where a subscriber of `channel` should connect now (Subscriber asks before each connect).
  virtual RedisEndpoint PubSubEndpoint(std::string_view channel) const = 0;
  // Whether pub/sub goes through shard channels (SPUBLISH, SSUBSCRIBE): on a Redis Cluster,
  // where a PUBLISH's receiver count names only the publishing node's subscribers, and the
  // session store waits for that many acknowledgements. A shard channel's subscribers all sit
  // on the node of its slot, so SPUBLISH counts every one of them.
  virtual bool ShardedPubSub() const { return false; }

  // stats().reconnects also moves when a cluster's slots change hands: either way the data
  // behind a key may be another copy now.
  virtual const ClientStats& stats() const = 0;
  // Called with the latency of each command that got a reply (for /metrics); may be empty.
  // Runs inside the reply path: it must not call back into the client.
  virtual void SetLatencyObserver(
      std::function<void(std::string_view command, double seconds)>) = 0;
};

}  // namespace plaudit::redis
