// The client's connection: connect (then SELECT when the URL names a db), reconnect with
// exponential backoff after a failure or a lost connection, shut down, and fail commands
// that got no answer by their deadline. While the connection is not up, calls fail at once
// (client.cpp checks state_), so a Redis outage costs requests an error, not a wait.
//
// Every context gets a new generation_: timers and posted work carry the generation they
// were made for and do nothing once it has moved on, so a late connect timeout or SELECT
// reply cannot touch the connection that replaced theirs.
//
// Timeouts: every command gets the same command_timeout and replies come back in send order,
// so the oldest unanswered Request always has the earliest deadline. One timer, armed for the
// front of `pending_`, is enough for any number of commands in flight.
#include <hiredis/hiredis.h>
#include <spdlog/spdlog.h>

#include <algorithm>

#include "redis/client/asio_adapter.hpp"
#include "redis/client/client_impl.hpp"
#include "redis/client/reply_reader.hpp"
#include "redis/client/resp.hpp"
#include "redis/client/wait_connected.hpp"

namespace plaudit::redis::detail {

void ClientImpl::Start() {
  if (state_ == State::kIdle) {
    Connect();
  }
}

void ClientImpl::Stop() {
  if (state_ != State::kStopped) {
    spdlog::info("redis: client for {} stopped", endpoint().Describe());
  }
  Shutdown();
}

Awaitable<bool> ClientImpl::WaitConnected(std::chrono::milliseconds timeout) {
  return detail::WaitConnectedOf(weak_self_, timeout, [](const ClientImpl& c) {
    if (c.state_ == State::kStopped) {
      return detail::Readiness::kStopped;
    }
    return c.connected() ? detail::Readiness::kConnected : detail::Readiness::kWaiting;
  });
}

void ClientImpl::ArmTimeoutTimer() {
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

void ClientImpl::ExpireRequests() {
  auto now = Clock::now();
  while (!pending_.empty() && pending_.front()->deadline <= now) {
    Request* req = pending_.front();
    ++stats_.timeouts;
    // hiredis still holds the request: its late reply is dropped in HandleReply.
    FinishRequest(req, Fail(ErrorCode::kUnavailable, "redis timeout"));
  }
  ArmTimeoutTimer();
}

void ClientImpl::Connect() {
  if (state_ == State::kStopped) {
    return;
  }
  redisAsyncContext* ac = endpoint().unix_path.empty()
                              ? redisAsyncConnect(endpoint().host.c_str(), endpoint().port)
                              : redisAsyncConnectUnix(endpoint().unix_path.c_str());
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

void ClientImpl::OnConnect(const redisAsyncContext* ac, int status) {
  static_cast<ClientImpl*>(ac->data)->HandleConnect(ac, status);
}

void ClientImpl::HandleConnect(const redisAsyncContext* ac, int status) {
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
  if (endpoint().db == 0) {
    MarkConnected();
    return;
  }
  std::string db = std::to_string(endpoint().db);
  // privdata carries the generation number, never dereferenced: OnSelect casts it back.
  // NOLINTNEXTLINE(performance-no-int-to-ptr)
  if (!Write({"SELECT", db}, &OnSelect, reinterpret_cast<void*>(generation_))) {
    PostDrop(generation_, "cannot send SELECT");
  }
}

// Appends one command to hiredis's output buffer; the adapter flushes it on the next write
// event, together with every other command appended in the same loop turn.
bool ClientImpl::Write(const std::vector<std::string>& argv, redisCallbackFn* fn, void* privdata) {
  FormatCommand(argv, formatted_);
  if (redisAsyncFormattedCommand(ac_, fn, privdata, formatted_.data(), formatted_.size()) !=
      REDIS_OK) {
    return false;
  }
  ++stats_.commands_sent;
  return true;
}

void ClientImpl::OnSelect(redisAsyncContext* ac, void* reply, void* privdata) {
  static_cast<ClientImpl*>(ac->data)->HandleSelect(reply, reinterpret_cast<uint64_t>(privdata));
}

void ClientImpl::HandleSelect(void* raw, uint64_t gen) {
  if (raw == nullptr || gen != generation_ || state_ != State::kConnecting) {
    return;  // the context is going away; its disconnect path decides what happens next
  }
  const Reply reply = TakeReply(raw);
  if (reply.type == Reply::Type::kStatus) {
    MarkConnected();
  } else {
    PostDrop(gen, "SELECT " + std::to_string(endpoint().db) + " failed: " + reply.str);
  }
}

// Drops the connection from outside hiredis's callback (freeing a context inside its own
// callback is legal but easy to get wrong), then retries with backoff.
void ClientImpl::PostDrop(uint64_t gen, std::string reason) {
  net::post(ex_, [weak = weak_self_, gen, reason = std::move(reason)] {
    auto self = weak.lock();
    if (!self || self->generation_ != gen || self->state_ != State::kConnecting) {
      return;
    }
    self->CloseContext();
    self->ConnectFailed(reason);
  });
}

void ClientImpl::MarkConnected() {
  state_ = State::kConnected;
  connect_timer_.cancel();
  backoff_ = options_.reconnect_min;
  if (ever_connected_) {
    ++stats_.reconnects;
  }
  ever_connected_ = true;
  down_logged_ = false;
  spdlog::info("redis: connected to {}", endpoint().Describe());
}

void ClientImpl::OnDisconnect(const redisAsyncContext* ac, int status) {
  static_cast<ClientImpl*>(ac->data)->HandleDisconnect(ac, status);
}

void ClientImpl::HandleDisconnect(const redisAsyncContext* ac, int status) {
  if (ac != ac_) {
    return;  // we freed it ourselves (CloseContext)
  }
  // In-flight requests were already failed by their NULL-reply callbacks.
  ac_ = nullptr;
  ++generation_;
  state_ = State::kDisconnected;
  spdlog::warn("redis: lost connection to {}: {}", endpoint().Describe(),
               status == REDIS_OK ? "closed" : ac->c.errstr);
  down_logged_ = true;
  ScheduleReconnect();
}

void ClientImpl::ConnectFailed(const std::string& reason) {
  state_ = State::kDisconnected;
  // One warning per outage; the retries themselves are debug noise.
  if (!down_logged_) {
    spdlog::warn("redis: cannot connect to {}: {} (retrying)", endpoint().Describe(), reason);
    down_logged_ = true;
  } else {
    spdlog::debug("redis: cannot connect to {}: {}", endpoint().Describe(), reason);
  }
  ScheduleReconnect();
}

void ClientImpl::ScheduleReconnect() {
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
void ClientImpl::CloseContext() {
  redisAsyncContext* ac = ac_;
  if (ac == nullptr) {
    return;
  }
  ac_ = nullptr;
  ++generation_;
  redisAsyncFree(ac);
}

void ClientImpl::Shutdown() {
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

}  // namespace plaudit::redis::detail
