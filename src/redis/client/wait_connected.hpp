#pragma once
// Client::WaitConnected for the three clients (one server, a cluster, a Sentinel-watched
// primary): for start-up and tests, not the request path, so it polls every 5 ms.
#include <algorithm>
#include <chrono>
#include <memory>

#include "common/net.hpp"

namespace plaudit::redis::detail {

// True as soon as `state(client)` says kConnected; false when it says kStopped, when the client
// is gone, or when `timeout` passes. Holds the client only while asking: a waiter never keeps
// a client alive.
enum class Readiness { kWaiting, kConnected, kStopped };

template <class C, class State>
Awaitable<bool> WaitConnectedOf(std::weak_ptr<C> weak, std::chrono::milliseconds timeout,
                                State state) {
  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + timeout;
  net::steady_timer timer(co_await net::this_coro::executor);
  while (true) {
    {
      auto self = weak.lock();
      const Readiness now_is = self ? state(*self) : Readiness::kStopped;
      if (now_is != Readiness::kWaiting) {
        co_return now_is == Readiness::kConnected;
      }
    }
    const auto now = Clock::now();
    if (now >= deadline) {
      co_return false;
    }
    timer.expires_after(std::min<Clock::duration>(std::chrono::milliseconds(5), deadline - now));
    co_await timer.async_wait(net::as_tuple(net::use_awaitable));
  }
}

}  // namespace plaudit::redis::detail
