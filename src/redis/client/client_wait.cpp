// ClientImpl::WaitReplicas: WAIT for --redis-wait-replicas, coalesced per connection.
//
// Why coalesced: WAIT blocks the calling connection in Redis until enough replicas have
// acknowledged its writes or the timeout passes, and every command pipelined behind it waits
// as long. One WAIT per like would put a replication round trip between every two likes of a
// connection. But WAIT's count covers every write the connection made before it, so one WAIT
// answers all the callers whose writes were answered before it was sent: while a WAIT is in
// flight, callers queue for the next one, which goes when it answers (a caller never shares a
// WAIT sent before it asked: that one may have left ahead of its write).
#include <algorithm>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <exception>

#include "redis/client/client_impl.hpp"

namespace plaudit::redis::detail {

Awaitable<Result<int64_t>> ClientImpl::WaitReplicas(std::string_view, int replicas,
                                                    std::chrono::milliseconds timeout) {
  return net::async_initiate<const net::use_awaitable_t<>, void(Result<int64_t>)>(
      [weak = weak_self_, ex = ex_, replicas, timeout](auto handler) {
        auto self = weak.lock();
        if (!self) {
          PostCompletion(ex, std::move(handler),
                         Result<int64_t>(Fail(ErrorCode::kUnavailable, "redis client destroyed")));
          return;
        }
        self->QueueWait(WaitHandler(std::move(handler)), replicas, timeout);
      },
      net::use_awaitable);
}

void ClientImpl::QueueWait(WaitHandler handler, int replicas, std::chrono::milliseconds timeout) {
  if (replicas <= 0 || timeout.count() <= 0) {
    PostCompletion(ex_, std::move(handler),
                   Result<int64_t>(Fail(ErrorCode::kInvalidArgument,
                                        "WAIT needs a replica count and a timeout above 0")));
    return;
  }
  WaitBatch& next = wait_next_;
  if (next.waiters.empty()) {
    next.replicas = replicas;
    next.timeout = timeout;
  } else {
    next.replicas = std::max(next.replicas, replicas);
    next.timeout = std::min(next.timeout, timeout);
  }
  next.waiters.push_back(std::move(handler));
  if (!wait_in_flight_) {
    SendWait();
  }
}

void ClientImpl::SendWait() {
  wait_in_flight_ = true;
  WaitBatch batch = std::move(wait_next_);
  wait_next_ = WaitBatch{};
  net::co_spawn(ex_, RunWait(weak_self_, ex_, std::move(batch)), net::detached);
}

void ClientImpl::FailQueuedWaits() {
  for (auto& waiter : wait_next_.waiters) {
    PostCompletion(ex_, std::move(waiter),
                   Result<int64_t>(Fail(ErrorCode::kUnavailable, "redis client destroyed")));
  }
  wait_next_ = WaitBatch{};
}

Awaitable<void> ClientImpl::RunWait(std::weak_ptr<ClientImpl> weak, net::any_io_executor ex,
                                    WaitBatch batch) {
  Commands wait;
  wait.push_back({"WAIT", std::to_string(batch.replicas), std::to_string(batch.timeout.count())});
  Result<int64_t> count = Fail(ErrorCode::kUnavailable, "redis: WAIT not answered");
  try {
    auto r = co_await Send<Result<Reply>>(weak, ex, std::move(wait));
    if (!r) {
      count = tl::unexpected(r.error());
    } else if (r->type == Reply::Type::kInteger) {
      count = r->integer;
    } else {
      // e.g. a node demoted to a replica ("WAIT cannot be used with replica instances").
      count = Fail(ErrorCode::kUnavailable, "redis: WAIT refused: " + r->str);
    }
  } catch (const std::exception& e) {
    count = Fail(ErrorCode::kInternal, e.what());
  }
  for (auto& waiter : batch.waiters) {
    PostCompletion(ex, std::move(waiter), count);
  }
  auto self = weak.lock();
  if (!self) {
    co_return;
  }
  self->wait_in_flight_ = false;
  if (!self->wait_next_.waiters.empty()) {
    self->SendWait();
  }
}

}  // namespace plaudit::redis::detail
