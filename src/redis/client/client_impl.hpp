#pragma once
// The hiredis-backed Client (see client.hpp for the contract). Private to src/redis: only the
// client's own files include this header.
//
// One class in three files, one concern each:
//   client.cpp             the public calls, and pipelining: framing commands into hiredis's
//                          output buffer, writing it once per loop turn (or early), and
//                          matching replies to their Request;
//   client_connection.cpp  connect (and SELECT), reconnect with backoff, shutdown, and the
//                          sweep that fails commands past their deadline;
//   client_scripts.cpp     Eval: EVALSHA, SCRIPT LOAD on first use and after NOSCRIPT.
//
// Ownership: the user owns the client through a shared_ptr. Nothing else keeps it alive —
// timers and helper coroutines hold weak_ptrs — so dropping the last reference frees the
// hiredis context at once, which fails every in-flight command with kUnavailable. A caller's
// completion handler is owned by its Request until it is answered, and it is always posted,
// never called from inside hiredis or from the initiating function.
//
// Request lifetime: hiredis keeps a raw Request* per command (privdata) and calls back exactly
// once per command: with the reply, or with NULL when the context is freed. A Request is
// deleted when its caller has been answered (reply, timeout or failure) and hiredis has called
// back for all of its commands, so a reply arriving after a timeout lands on a live Request and
// is dropped.
#include <hiredis/async.h>

#include <boost/asio/any_completion_handler.hpp>
#include <boost/container/small_vector.hpp>
#include <deque>
#include <unordered_map>
#include <utility>

#include "redis/client/client.hpp"

namespace plaudit::redis::detail {

using Clock = std::chrono::steady_clock;
using Commands = std::vector<std::vector<std::string>>;
using ReplyHandler = net::any_completion_handler<void(Result<Reply>)>;
using PipelineHandler = net::any_completion_handler<void(Result<std::vector<Reply>>)>;

// The caller of Command() or of Pipeline(): exactly one member is set. (Not a std::variant:
// any_completion_handler's catch-all constructor makes variant's converting paths recurse.)
struct AnyHandler {
  ReplyHandler one;
  PipelineHandler many;

  explicit AnyHandler(ReplyHandler h) : one(std::move(h)) {}
  explicit AnyHandler(PipelineHandler h) : many(std::move(h)) {}
  AnyHandler(AnyHandler&&) = default;
  AnyHandler& operator=(AnyHandler&&) = default;
  // Copying would silently wrap one any_completion_handler in another; forbid it.
  AnyHandler(const AnyHandler&) = delete;
  AnyHandler& operator=(const AnyHandler&) = delete;
};

// Completes `handler` later, never inside the caller's stack: posted to the client's executor,
// then dispatched to the handler's own (the same one, unless the caller bound another).
template <class Handler, class Value>
void PostCompletion(const net::any_io_executor& io_ex, Handler handler, Value value) {
  net::post(io_ex, [h = std::move(handler), v = std::move(value)]() mutable {
    auto ex = net::get_associated_executor(h);
    net::dispatch(ex,
                  [h = std::move(h), v = std::move(v)]() mutable { std::move(h)(std::move(v)); });
  });
}

// A request's replies: inline for one command (most calls: a script, a GET), so that a
// call's reply needs no vector allocated for it.
using Replies = boost::container::small_vector<Reply, 1>;

// A caller waiting for the replies of one or more commands written back to back.
struct Request {
  explicit Request(AnyHandler h) : handler(std::move(h)) {}
  AnyHandler handler;
  Replies replies;
  // argv[0] per command, kept only for the latency observer.
  boost::container::small_vector<std::string, 1> names;
  size_t expected = 0;  // number of commands
  int in_hiredis = 0;   // commands whose hiredis callback has not run yet
  bool done = false;    // the caller has been answered
  Clock::time_point start;
  Clock::time_point deadline;
};

class ClientImpl final : public Client {
 public:
  ClientImpl(net::any_io_executor ex, ClientOptions options);
  // Only an empty executor (a bug) or a failed allocation can throw here, and
  // std::terminate is the right end for both.
  // NOLINTNEXTLINE(bugprone-exception-escape)
  ~ClientImpl() override {
    Shutdown();
    FailQueuedWaits();
  }

  static std::shared_ptr<ClientImpl> Make(net::any_io_executor ex, ClientOptions options);

  // client_connection.cpp
  void Start() override;
  void Stop() override;
  bool connected() const override { return state_ == State::kConnected; }
  Awaitable<bool> WaitConnected(std::chrono::milliseconds timeout) override;

  // client.cpp
  Awaitable<Result<Reply>> Command(std::vector<std::string> argv) override;
  Awaitable<Result<std::vector<Reply>>> Pipeline(Commands commands) override;
  Awaitable<Result<std::vector<Reply>>> PipelineFramed(FramedCommands commands) override;
  const ClientStats& stats() const override { return stats_; }
  std::vector<std::shared_ptr<Client>> Primaries() override { return {shared_from_this()}; }
  RedisEndpoint PubSubEndpoint(std::string_view) const override { return options_.endpoint; }
  void SetLatencyObserver(std::function<void(std::string_view, double)> observer) override {
    observer_ = std::move(observer);
  }

  // client_scripts.cpp
  Awaitable<Result<Reply>> Eval(const Script& script, std::vector<std::string> keys,
                                std::vector<std::string> args) override;

  // client_wait.cpp
  Awaitable<Result<int64_t>> WaitReplicas(std::string_view key, int replicas,
                                          std::chrono::milliseconds timeout) override;

 private:
  enum class State { kIdle, kConnecting, kConnected, kDisconnected, kStopped };

  // --- client.cpp: submitting commands and matching their replies ---

  // Returns an awaitable that submits `commands` when awaited. It holds only a weak_ptr, so
  // awaiting it after the client is gone yields kUnavailable instead of a dangling access.
  // Value is Result<Reply> (Command, SCRIPT LOAD) or Result<std::vector<Reply>> (Pipeline);
  // defined in client.cpp, which instantiates the first for client_scripts.cpp.
  // Cmds: Commands or FramedCommands.
  template <class Value, class Cmds = Commands>
  static Awaitable<Value> Send(std::weak_ptr<ClientImpl> weak, net::any_io_executor ex,
                               Cmds commands);
  // Send for one command the caller keeps (alive until the reply: it lives in the awaiting
  // coroutine's frame), so that a retry can send it again without a copy.
  static Awaitable<Result<Reply>> SendKept(std::weak_ptr<ClientImpl> weak, net::any_io_executor ex,
                                           const Commands* commands);
  void Submit(const Commands& commands, AnyHandler handler);
  void Submit(const FramedCommands& commands, AnyHandler handler);
  // One command already framed in formatted_ (EvalKnown).
  void SubmitFormatted(std::string_view name, AnyHandler handler);
  Request* StartRequest(AnyHandler handler, size_t commands);
  bool WriteFormatted(Request* req) { return WriteFormatted(req, formatted_); }
  bool WriteFormatted(Request* req, std::string_view command);
  void Enqueue(Request* req);
  void FlushNow();
  static void OnReply(redisAsyncContext* ac, void* reply, void* privdata);
  void HandleReply(Request* req, void* reply);
  void FinishRequest(Request* req, Result<Replies> result);
  static void MaybeDelete(Request* req);

  // --- client_scripts.cpp: EVALSHA and SCRIPT LOAD ---

  static bool IsNoScript(const Result<Reply>& r);
  static Awaitable<Result<std::string>> LoadScript(std::weak_ptr<ClientImpl> weak,
                                                   net::any_io_executor ex, const Script& script);
  static Awaitable<Result<Reply>> EvalKnown(std::weak_ptr<ClientImpl> weak, net::any_io_executor ex,
                                            const Script& script, std::vector<std::string> keys,
                                            std::vector<std::string> args);
  static Awaitable<Result<Reply>> EvalAfterNoScript(std::weak_ptr<ClientImpl> weak,
                                                    net::any_io_executor ex, const Script& script,
                                                    Commands command);
  static Awaitable<Result<Reply>> EvalImpl(std::weak_ptr<ClientImpl> weak, net::any_io_executor ex,
                                           const Script& script, std::vector<std::string> keys,
                                           std::vector<std::string> args);
  static Commands EvalShaCommand(std::string sha, std::vector<std::string> keys,
                                 std::vector<std::string> args);
  std::string KnownSha(const Script& script) const;

  // --- client_wait.cpp: WAIT, one at a time, shared by the callers that arrive meanwhile ---

  using WaitHandler = net::any_completion_handler<void(Result<int64_t>)>;
  struct WaitBatch {
    std::vector<WaitHandler> waiters;
    int replicas = 0;
    std::chrono::milliseconds timeout{0};
  };
  void QueueWait(WaitHandler handler, int replicas, std::chrono::milliseconds timeout);
  void SendWait();
  void FailQueuedWaits();  // the client is going away: the next WAIT will not be sent
  static Awaitable<void> RunWait(std::weak_ptr<ClientImpl> weak, net::any_io_executor ex,
                                 WaitBatch batch);

  // --- client_connection.cpp: the connection's life and the command deadlines ---

  const RedisEndpoint& endpoint() const { return options_.endpoint; }
  void ArmTimeoutTimer();
  void ExpireRequests();
  void Connect();
  static void OnConnect(const redisAsyncContext* ac, int status);
  void HandleConnect(const redisAsyncContext* ac, int status);
  bool Write(const std::vector<std::string>& argv, redisCallbackFn* fn, void* privdata);
  static void OnSelect(redisAsyncContext* ac, void* reply, void* privdata);
  void HandleSelect(void* raw, uint64_t gen);
  void PostDrop(uint64_t gen, std::string reason);
  void MarkConnected();
  static void OnDisconnect(const redisAsyncContext* ac, int status);
  void HandleDisconnect(const redisAsyncContext* ac, int status);
  void ConnectFailed(const std::string& reason);
  void ScheduleReconnect();
  void CloseContext();
  void Shutdown();

  std::weak_ptr<ClientImpl> weak_self_;  // what timers and helper coroutines hold
  net::any_io_executor ex_;
  ClientOptions options_;
  State state_ = State::kIdle;
  redisAsyncContext* ac_ = nullptr;
  uint64_t generation_ = 0;  // bumped per context, so stale timers and callbacks are ignored
  std::chrono::milliseconds backoff_;
  bool ever_connected_ = false;
  bool down_logged_ = false;
  net::steady_timer connect_timer_;
  net::steady_timer reconnect_timer_;
  net::steady_timer timeout_timer_;
  bool timer_armed_ = false;
  std::deque<Request*> pending_;  // unanswered requests, oldest (earliest deadline) first
  std::unordered_map<size_t, std::string> shas_;  // Script::source_hash -> sha
  size_t unflushed_ = 0;                          // calls appended since the last write
  std::string formatted_;                         // scratch for Write: one command's RESP bytes
  ClientStats stats_;
  std::function<void(std::string_view, double)> observer_;
  bool wait_in_flight_ = false;  // a WAIT has been sent and not answered
  WaitBatch wait_next_;          // the callers the next WAIT answers
};

}  // namespace plaudit::redis::detail
