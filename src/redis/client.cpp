// The hiredis-backed Client (see client.hpp for the contract).
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
//
// Timeouts: every command gets the same command_timeout and replies come back in send order,
// so the oldest unanswered Request always has the earliest deadline. One timer, armed for the
// front of `pending_`, is enough for any number of commands in flight.
#include "redis/client.hpp"

#include <hiredis/async.h>
#include <hiredis/hiredis.h>
#include <signal.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <boost/asio/any_completion_handler.hpp>
#include <boost/container/small_vector.hpp>
#include <charconv>
#include <deque>
#include <iterator>
#include <stdexcept>
#include <unordered_map>
#include <utility>

#include "redis/asio_adapter.hpp"
#include "redis/endpoint.hpp"
#include "redis/reply_reader.hpp"
#include "redis/resp.hpp"

namespace plaudit::redis {
namespace {

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

void Complete(const net::any_io_executor& io_ex, AnyHandler handler, Result<Replies> result) {
  if (handler.one) {
    Result<Reply> one = result ? Result<Reply>(std::move(result->front()))
                               : Result<Reply>(tl::unexpected(std::move(result.error())));
    PostCompletion(io_ex, std::move(handler.one), std::move(one));
  } else if (result) {
    PostCompletion(io_ex, std::move(handler.many),
                   Result<std::vector<Reply>>(std::vector<Reply>(
                       std::make_move_iterator(result->begin()),
                       std::make_move_iterator(result->end()))));
  } else {
    PostCompletion(io_ex, std::move(handler.many),
                   Result<std::vector<Reply>>(tl::unexpected(std::move(result.error()))));
  }
}

// A caller waiting for the replies of one or more commands written back to back.
struct Request {
  explicit Request(AnyHandler h) : handler(std::move(h)) {}
  AnyHandler handler;
  Replies replies;
  // argv[0] per command, kept only for the latency observer.
  boost::container::small_vector<std::string, 1> names;
  size_t expected = 0;             // number of commands
  int in_hiredis = 0;              // commands whose hiredis callback has not run yet
  bool done = false;               // the caller has been answered
  Clock::time_point start;
  Clock::time_point deadline;
};

class ClientImpl final : public Client {
 public:
  ClientImpl(net::any_io_executor ex, ClientOptions options, Endpoint endpoint)
      : ex_(std::move(ex)),
        options_(std::move(options)),
        endpoint_(std::move(endpoint)),
        backoff_(options_.reconnect_min),
        connect_timer_(ex_),
        reconnect_timer_(ex_),
        timeout_timer_(ex_) {}

  ~ClientImpl() override { Shutdown(); }

  void Start() override {
    if (state_ == State::kIdle) {
      Connect();
    }
  }

  void Stop() override {
    if (state_ != State::kStopped) {
      spdlog::info("redis: client for {} stopped", endpoint_.Describe());
    }
    Shutdown();
  }

  bool connected() const override { return state_ == State::kConnected; }

  Awaitable<bool> WaitConnected(std::chrono::milliseconds timeout) override {
    return WaitConnectedImpl(weak_self_, timeout);
  }

  Awaitable<Result<Reply>> Command(std::vector<std::string> argv) override {
    Commands commands;
    commands.push_back(std::move(argv));
    return Send<Result<Reply>>(weak_self_, ex_, std::move(commands));
  }

  Awaitable<Result<std::vector<Reply>>> Pipeline(Commands commands) override {
    return Send<Result<std::vector<Reply>>>(weak_self_, ex_, std::move(commands));
  }

  Awaitable<Result<Reply>> Eval(const Script& script, std::vector<std::string> keys,
                                std::vector<std::string> args) override {
    if (shas_.contains(script.source_hash)) {
      return EvalKnown(weak_self_, ex_, script, std::move(keys), std::move(args));
    }
    return EvalImpl(weak_self_, ex_, script, std::move(keys), std::move(args));
  }

  const ClientStats& stats() const override { return stats_; }

  void SetLatencyObserver(std::function<void(std::string_view, double)> observer) override {
    observer_ = std::move(observer);
  }

  static std::shared_ptr<ClientImpl> Make(net::any_io_executor ex, ClientOptions options,
                                          Endpoint endpoint) {
    auto client =
        std::make_shared<ClientImpl>(std::move(ex), std::move(options), std::move(endpoint));
    client->weak_self_ = client;
    return client;
  }

 private:
  enum class State { kIdle, kConnecting, kConnected, kDisconnected, kStopped };

  // Returns an awaitable that submits `commands` when awaited. It holds only a weak_ptr, so
  // awaiting it after the client is gone yields kUnavailable instead of a dangling access.
  template <class Value>
  static Awaitable<Value> Send(std::weak_ptr<ClientImpl> weak, net::any_io_executor ex,
                               Commands commands) {
    using Handler =
        std::conditional_t<std::is_same_v<Value, Result<Reply>>, ReplyHandler, PipelineHandler>;
    return net::async_initiate<const net::use_awaitable_t<>, void(Value)>(
        [weak = std::move(weak), ex = std::move(ex)](auto handler, Commands commands) {
          if (auto self = weak.lock()) {
            self->Submit(commands, AnyHandler(Handler(std::move(handler))));
          } else {
            PostCompletion(ex, std::move(handler),
                           Value(Fail(ErrorCode::kUnavailable, "redis client destroyed")));
          }
        },
        net::use_awaitable, std::move(commands));
  }

  // Send for one command the caller keeps (alive until the reply: it lives in the awaiting
  // coroutine's frame), so that a retry can send it again without a copy.
  static Awaitable<Result<Reply>> SendKept(std::weak_ptr<ClientImpl> weak, net::any_io_executor ex,
                                           const Commands* commands) {
    return net::async_initiate<const net::use_awaitable_t<>, void(Result<Reply>)>(
        [weak = std::move(weak), ex = std::move(ex)](auto handler, const Commands* commands) {
          if (auto self = weak.lock()) {
            self->Submit(*commands, AnyHandler(ReplyHandler(std::move(handler))));
          } else {
            PostCompletion(ex, std::move(handler),
                           Result<Reply>(Fail(ErrorCode::kUnavailable, "redis client destroyed")));
          }
        },
        net::use_awaitable, commands);
  }

  static Awaitable<bool> WaitConnectedImpl(std::weak_ptr<ClientImpl> weak,
                                           std::chrono::milliseconds timeout) {
    auto deadline = Clock::now() + timeout;
    net::steady_timer timer(co_await net::this_coro::executor);
    while (true) {
      {
        auto self = weak.lock();
        if (!self || self->state_ == State::kStopped) {
          co_return false;
        }
        if (self->connected()) {
          co_return true;
        }
      }
      auto now = Clock::now();
      if (now >= deadline) {
        co_return false;
      }
      // Polling is fine here: this is for start-up and tests, not the request path.
      timer.expires_after(std::min<Clock::duration>(std::chrono::milliseconds(5), deadline - now));
      co_await timer.async_wait(net::as_tuple(net::use_awaitable));
    }
  }

  static bool IsNoScript(const Result<Reply>& r) {
    return r && r->is_error() && r->str.starts_with("NOSCRIPT");
  }

  static Awaitable<Result<std::string>> LoadScript(std::weak_ptr<ClientImpl> weak,
                                                   net::any_io_executor ex, const Script& script) {
    Commands load{{"SCRIPT", "LOAD", script.source}};
    if (auto self = weak.lock()) ++self->stats_.script_loads;
    auto reply = co_await Send<Result<Reply>>(weak, ex, std::move(load));
    if (!reply) {
      co_return tl::unexpected(reply.error());
    }
    if (reply->type != Reply::Type::kString || reply->str.empty()) {
      co_return Fail(ErrorCode::kInternal,
                     "redis SCRIPT LOAD " + script.name + " failed: " + reply->str);
    }
    if (auto self = weak.lock()) {
      self->shas_[script.source_hash] = reply->str;
    }
    co_return std::move(reply->str);
  }

  // EVALSHA of a script whose sha this client knows (every call after its first): framed
  // straight from keys and args, with no coroutine frame and no argv of its own. A like's
  // EvalImpl frame and its two vectors cost ~1.5k instructions. Keys and args go with the
  // handler until the reply, so that a NOSCRIPT (SCRIPT FLUSH, a restarted Redis) can still
  // load the script and send them again.
  static Awaitable<Result<Reply>> EvalKnown(std::weak_ptr<ClientImpl> weak, net::any_io_executor ex,
                                            const Script& script, std::vector<std::string> keys,
                                            std::vector<std::string> args) {
    return net::async_initiate<const net::use_awaitable_t<>, void(Result<Reply>)>(
        [weak = std::move(weak), ex = std::move(ex), &script](
            auto handler, std::vector<std::string> keys, std::vector<std::string> args) {
          auto self = weak.lock();
          if (!self) {
            PostCompletion(ex, std::move(handler),
                           Result<Reply>(Fail(ErrorCode::kUnavailable, "redis client destroyed")));
            return;
          }
          // Eval saw the sha, and shas_ only grows.
          FormatEvalSha(self->shas_.at(script.source_hash), keys, args, self->formatted_);
          auto handler_ex = net::get_associated_executor(handler, ex);
          auto done = [weak, ex, &script, keys = std::move(keys), args = std::move(args),
                       h = std::move(handler)](Result<Reply> r) mutable {
            if (!IsNoScript(r)) {
              std::move(h)(std::move(r));
              return;
            }
            net::co_spawn(ex,
                          EvalAfterNoScript(weak, ex, script,
                                            EvalShaCommand("", std::move(keys), std::move(args))),
                          [h = std::move(h)](std::exception_ptr e, Result<Reply> r) mutable {
                            if (e) r = Fail(ErrorCode::kInternal, "redis eval failed");
                            std::move(h)(std::move(r));
                          });
          };
          self->SubmitFormatted(
              "EVALSHA", AnyHandler(ReplyHandler(net::bind_executor(handler_ex, std::move(done)))));
        },
        net::use_awaitable, std::move(keys), std::move(args));
  }

  // SCRIPT FLUSH, a Redis restart or a failover emptied the script cache: load the script,
  // then send `command` (an EVALSHA of it) once more with the new sha.
  static Awaitable<Result<Reply>> EvalAfterNoScript(std::weak_ptr<ClientImpl> weak,
                                                    net::any_io_executor ex, const Script& script,
                                                    Commands command) {
    auto loaded = co_await LoadScript(weak, ex, script);
    if (!loaded) co_return tl::unexpected(loaded.error());
    command.front()[1] = std::move(*loaded);
    co_return co_await SendKept(weak, ex, &command);
  }

  // `script` must outlive the call (GetScript's scripts live for the whole process).
  static Awaitable<Result<Reply>> EvalImpl(std::weak_ptr<ClientImpl> weak, net::any_io_executor ex,
                                           const Script& script, std::vector<std::string> keys,
                                           std::vector<std::string> args) {
    std::string sha;
    if (auto self = weak.lock()) {
      sha = self->KnownSha(script);
    } else {
      co_return Fail(ErrorCode::kUnavailable, "redis client destroyed");
    }
    if (sha.empty()) {
      auto loaded = co_await LoadScript(weak, ex, script);
      if (!loaded) {
        co_return tl::unexpected(loaded.error());
      }
      sha = std::move(*loaded);
    }
    // Built once; Submit only reads it, so a NOSCRIPT retry resends it with the new sha.
    const Commands command = EvalShaCommand(std::move(sha), std::move(keys), std::move(args));
    auto reply = co_await SendKept(weak, ex, &command);
    if (!IsNoScript(reply)) {
      co_return reply;
    }
    co_return co_await EvalAfterNoScript(weak, ex, script, command);
  }

  // EVALSHA sha numkeys keys... args..., as a one-command batch (keys and args moved in).
  static Commands EvalShaCommand(std::string sha, std::vector<std::string> keys,
                                 std::vector<std::string> args) {
    std::vector<std::string> argv;
    argv.reserve(3 + keys.size() + args.size());
    argv.push_back("EVALSHA");
    argv.push_back(std::move(sha));
    argv.push_back(std::to_string(keys.size()));
    std::move(keys.begin(), keys.end(), std::back_inserter(argv));
    std::move(args.begin(), args.end(), std::back_inserter(argv));
    Commands one;
    one.push_back(std::move(argv));
    return one;
  }

  std::string KnownSha(const Script& script) const {
    // By the source's hash, not the name: two Script objects may share a name (tests,
    // reloads) and must not share a sha.
    auto it = shas_.find(script.source_hash);
    return it == shas_.end() ? std::string() : it->second;
  }

  void Submit(const Commands& commands, AnyHandler handler) {
    bool is_single = static_cast<bool>(handler.one);
    if (commands.empty()) {
      if (is_single) {
        Complete(ex_, std::move(handler), Fail(ErrorCode::kInvalidArgument, "empty redis command"));
      } else {
        Complete(ex_, std::move(handler), Replies{});
      }
      return;
    }
    for (const auto& argv : commands) {
      if (argv.empty()) {
        Complete(ex_, std::move(handler), Fail(ErrorCode::kInvalidArgument, "empty redis command"));
        return;
      }
    }
    if (state_ != State::kConnected) {
      Complete(ex_, std::move(handler), Fail(ErrorCode::kUnavailable, "redis unavailable"));
      return;
    }
    Request* req = StartRequest(std::move(handler), commands.size());
    if (observer_) {
      for (const auto& argv : commands) {
        req->names.push_back(argv[0]);
      }
    }
    for (const auto& argv : commands) {
      FormatCommand(argv, formatted_);
      if (!WriteFormatted(req)) return;
    }
    Enqueue(req);
  }

  // One command already framed in formatted_ (EvalKnown).
  void SubmitFormatted(std::string_view name, AnyHandler handler) {
    if (state_ != State::kConnected) {
      Complete(ex_, std::move(handler), Fail(ErrorCode::kUnavailable, "redis unavailable"));
      return;
    }
    Request* req = StartRequest(std::move(handler), 1);
    if (observer_) req->names.emplace_back(name);
    if (!WriteFormatted(req)) return;
    Enqueue(req);
  }

  Request* StartRequest(AnyHandler handler, size_t commands) {
    auto* req = new Request(std::move(handler));
    req->expected = commands;
    req->replies.reserve(commands);
    req->start = Clock::now();
    req->deadline = req->start + options_.command_timeout;
    return req;
  }

  // Appends formatted_ to hiredis's output buffer for `req`; the adapter flushes it on the
  // next write event, together with every other command appended in the same loop turn.
  // False (and `req` failed and gone) when the context refuses it: only one being freed does.
  bool WriteFormatted(Request* req) {
    if (redisAsyncFormattedCommand(ac_, &OnReply, req, formatted_.data(), formatted_.size()) !=
        REDIS_OK) {
      FinishRequest(req, Fail(ErrorCode::kUnavailable, "redis unavailable"));
      MaybeDelete(req);
      return false;
    }
    ++stats_.commands_sent;
    ++req->in_hiredis;
    return true;
  }

  void Enqueue(Request* req) {
    pending_.push_back(req);
    ArmTimeoutTimer();
    // Calls, not commands: a comment page's pipeline of 60 HMGETs and the like script issued
    // beside it must leave in one write (one round trip), not be split by an eager flush.
    ++unflushed_;
    if (options_.eager_flush_requests > 0 && unflushed_ >= options_.eager_flush_requests) {
      FlushNow();
    }
  }

  // Writes hiredis's output buffer now instead of at the end of the loop turn, so that Redis
  // starts on these commands while this thread goes on parsing requests (see
  // ClientOptions::eager_flush_requests). Never called from inside a hiredis callback: a
  // write error frees the context, which fails the pending requests through posted
  // completions and HandleDisconnect.
  void FlushNow() {
    unflushed_ = 0;
    if (ac_ == nullptr || sdslen(ac_->c.obuf) == 0) {
      return;
    }
    ++stats_.batches_flushed;
    redisAsyncHandleWrite(ac_);
  }

  // Appends one command to hiredis's output buffer; the adapter flushes it on the next write
  // event, together with every other command appended in the same loop turn.
  bool Write(const std::vector<std::string>& argv, redisCallbackFn* fn, void* privdata) {
    FormatCommand(argv, formatted_);
    if (redisAsyncFormattedCommand(ac_, fn, privdata, formatted_.data(), formatted_.size()) !=
        REDIS_OK) {
      return false;
    }
    ++stats_.commands_sent;
    return true;
  }

  static void OnReply(redisAsyncContext* ac, void* reply, void* privdata) {
    static_cast<ClientImpl*>(ac->data)->HandleReply(static_cast<Request*>(privdata), reply);
  }

  void HandleReply(Request* req, void* reply) {
    --req->in_hiredis;
    if (!req->done) {
      if (reply == nullptr) {
        FinishRequest(req, Fail(ErrorCode::kUnavailable, "redis connection lost"));
      } else {
        size_t index = req->replies.size();
        req->replies.push_back(TakeReply(reply));
        if (observer_ && index < req->names.size()) {
          observer_(req->names[index],
                    std::chrono::duration<double>(Clock::now() - req->start).count());
        }
        if (req->replies.size() == req->expected) {
          FinishRequest(req, std::move(req->replies));
        }
      }
    }
    MaybeDelete(req);
  }

  void FinishRequest(Request* req, Result<Replies> result) {
    req->done = true;
    if (!pending_.empty() && pending_.front() == req) {
      pending_.pop_front();
    } else if (auto it = std::find(pending_.begin(), pending_.end(), req); it != pending_.end()) {
      pending_.erase(it);
    }
    Complete(ex_, std::move(req->handler), std::move(result));
  }

  static void MaybeDelete(Request* req) {
    if (req->done && req->in_hiredis == 0) {
      delete req;
    }
  }

  void ArmTimeoutTimer() {
    if (timer_armed_ || pending_.empty()) {
      return;
    }
    timer_armed_ = true;
    timeout_timer_.expires_at(pending_.front()->deadline);
    timeout_timer_.async_wait([weak = weak_self_](boost::system::error_code) {
      if (auto self = weak.lock()) {
        self->timer_armed_ = false;
        self->ExpireRequests();
      }
    });
  }

  void ExpireRequests() {
    auto now = Clock::now();
    while (!pending_.empty() && pending_.front()->deadline <= now) {
      Request* req = pending_.front();
      ++stats_.timeouts;
      // hiredis still holds the request: its late reply is dropped in HandleReply.
      FinishRequest(req, Fail(ErrorCode::kUnavailable, "redis timeout"));
    }
    ArmTimeoutTimer();
  }

  void Connect() {
    if (state_ == State::kStopped) {
      return;
    }
    redisAsyncContext* ac = endpoint_.unix_path.empty()
                                ? redisAsyncConnect(endpoint_.host.c_str(), endpoint_.port)
                                : redisAsyncConnectUnix(endpoint_.unix_path.c_str());
    if (ac == nullptr) {
      ConnectFailed("out of memory");
      return;
    }
    if (ac->err != 0) {
      std::string error = ac->errstr;
      redisAsyncFree(ac);
      ConnectFailed(error);
      return;
    }
    ac->data = this;
    UseReplyReader(ac->c.reader);  // replies arrive as Reply, built once (reply_reader.hpp)
    if (!AttachAsio(ac, ex_, [this] {
          ++stats_.batches_flushed;
          unflushed_ = 0;
        })) {
      redisAsyncFree(ac);
      ConnectFailed("cannot watch the socket");
      return;
    }
    ac_ = ac;
    ++generation_;
    state_ = State::kConnecting;
    redisAsyncSetConnectCallback(ac, &OnConnect);
    redisAsyncSetDisconnectCallback(ac, &OnDisconnect);
    // hiredis 0.14 has no async connect timeout. The timer also covers the SELECT reply.
    connect_timer_.expires_after(options_.connect_timeout);
    connect_timer_.async_wait([weak = weak_self_, gen = generation_](boost::system::error_code ec) {
      auto self = weak.lock();
      if (ec || !self || self->generation_ != gen || self->state_ != State::kConnecting) {
        return;
      }
      self->CloseContext();
      self->ConnectFailed("connect timeout");
    });
  }

  static void OnConnect(const redisAsyncContext* ac, int status) {
    static_cast<ClientImpl*>(ac->data)->HandleConnect(ac, status);
  }

  void HandleConnect(const redisAsyncContext* ac, int status) {
    if (ac != ac_) {
      return;
    }
    if (status != REDIS_OK) {
      // hiredis frees the context right after this callback.
      ac_ = nullptr;
      ++generation_;
      connect_timer_.cancel();
      ConnectFailed(ac->c.errstr);
      return;
    }
    if (endpoint_.db == 0) {
      MarkConnected();
      return;
    }
    std::string db = std::to_string(endpoint_.db);
    if (!Write({"SELECT", db}, &OnSelect, reinterpret_cast<void*>(generation_))) {
      PostDrop(generation_, "cannot send SELECT");
    }
  }

  static void OnSelect(redisAsyncContext* ac, void* reply, void* privdata) {
    static_cast<ClientImpl*>(ac->data)->HandleSelect(reply, reinterpret_cast<uint64_t>(privdata));
  }

  void HandleSelect(void* raw, uint64_t gen) {
    if (raw == nullptr || gen != generation_ || state_ != State::kConnecting) {
      return;  // the context is going away; its disconnect path decides what happens next
    }
    const Reply reply = TakeReply(raw);
    if (reply.type == Reply::Type::kStatus) {
      MarkConnected();
    } else {
      PostDrop(gen, "SELECT " + std::to_string(endpoint_.db) + " failed: " + reply.str);
    }
  }

  // Drops the connection from outside hiredis's callback (freeing a context inside its own
  // callback is legal but easy to get wrong), then retries with backoff.
  void PostDrop(uint64_t gen, std::string reason) {
    net::post(ex_, [weak = weak_self_, gen, reason = std::move(reason)] {
      auto self = weak.lock();
      if (!self || self->generation_ != gen || self->state_ != State::kConnecting) {
        return;
      }
      self->CloseContext();
      self->ConnectFailed(reason);
    });
  }

  void MarkConnected() {
    state_ = State::kConnected;
    connect_timer_.cancel();
    backoff_ = options_.reconnect_min;
    if (ever_connected_) {
      ++stats_.reconnects;
    }
    ever_connected_ = true;
    down_logged_ = false;
    spdlog::info("redis: connected to {}", endpoint_.Describe());
  }

  static void OnDisconnect(const redisAsyncContext* ac, int status) {
    static_cast<ClientImpl*>(ac->data)->HandleDisconnect(ac, status);
  }

  void HandleDisconnect(const redisAsyncContext* ac, int status) {
    if (ac != ac_) {
      return;  // we freed it ourselves (CloseContext)
    }
    // In-flight requests were already failed by their NULL-reply callbacks.
    ac_ = nullptr;
    ++generation_;
    state_ = State::kDisconnected;
    spdlog::warn("redis: lost connection to {}: {}", endpoint_.Describe(),
                 status == REDIS_OK ? "closed" : ac->c.errstr);
    down_logged_ = true;
    ScheduleReconnect();
  }

  void ConnectFailed(const std::string& reason) {
    state_ = State::kDisconnected;
    // One warning per outage; the retries themselves are debug noise.
    if (!down_logged_) {
      spdlog::warn("redis: cannot connect to {}: {} (retrying)", endpoint_.Describe(), reason);
      down_logged_ = true;
    } else {
      spdlog::debug("redis: cannot connect to {}: {}", endpoint_.Describe(), reason);
    }
    ScheduleReconnect();
  }

  void ScheduleReconnect() {
    if (state_ == State::kStopped) {
      return;
    }
    auto delay = backoff_;
    backoff_ = std::min(backoff_ * 2, options_.reconnect_max);
    reconnect_timer_.expires_after(delay);
    reconnect_timer_.async_wait([weak = weak_self_](boost::system::error_code ec) {
      auto self = weak.lock();
      if (!ec && self && self->state_ == State::kDisconnected) {
        self->Connect();
      }
    });
  }

  // Frees the current context: hiredis calls every pending callback with a NULL reply, which
  // fails those requests with kUnavailable. Must not be called from a hiredis callback.
  void CloseContext() {
    redisAsyncContext* ac = ac_;
    if (ac == nullptr) {
      return;
    }
    ac_ = nullptr;
    ++generation_;
    redisAsyncFree(ac);
  }

  void Shutdown() {
    state_ = State::kStopped;
    connect_timer_.cancel();
    reconnect_timer_.cancel();
    CloseContext();
    timeout_timer_.cancel();
    // Every pending request was in hiredis and has been failed by CloseContext; this only
    // guards the invariant.
    while (!pending_.empty()) {
      Request* req = pending_.front();
      FinishRequest(req, Fail(ErrorCode::kUnavailable, "redis client stopped"));
      MaybeDelete(req);
    }
  }

  std::weak_ptr<ClientImpl> weak_self_;  // what timers and helper coroutines hold
  net::any_io_executor ex_;
  ClientOptions options_;
  Endpoint endpoint_;
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
  size_t unflushed_ = 0;                // calls appended since the last write
  std::string formatted_;  // scratch for Write: one command's RESP bytes
  ClientStats stats_;
  std::function<void(std::string_view, double)> observer_;
};

}  // namespace

std::shared_ptr<Client> Client::Create(net::any_io_executor ex, ClientOptions options) {
  Endpoint endpoint = ParseUrl(options.url);
  // hiredis writes with write(2), which raises SIGPIPE (default action: exit) when Redis has
  // closed the connection; we want EPIPE and a reconnect instead.
  ::signal(SIGPIPE, SIG_IGN);
  return ClientImpl::Make(std::move(ex), std::move(options), std::move(endpoint));
}

}  // namespace plaudit::redis
