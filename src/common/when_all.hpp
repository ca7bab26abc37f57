#pragma once
// Awaits a dynamic number of awaitables started together on the caller's executor, and
// returns their results in order. Started in the same event-loop turn, their Redis commands
// leave in one write: N reads cost one round trip.
#include <exception>
#include <memory>
#include <optional>
#include <vector>

#include "common/net.hpp"

namespace plaudit {

template <class T>
Awaitable<std::vector<T>> WhenAll(std::vector<Awaitable<T>> ops) {
  auto ex = co_await net::this_coro::executor;
  struct State {
    explicit State(const net::any_io_executor& ex, size_t n)
        : done(ex, std::chrono::steady_clock::time_point::max()), results(n), left(n) {}
    net::steady_timer done;
    std::vector<std::optional<T>> results;
    std::exception_ptr error;  // the first one thrown, rethrown once all have finished
    size_t left;
  };
  auto state = std::make_shared<State>(ex, ops.size());
  if (ops.empty()) {
    co_return std::vector<T>{};
  }
  for (size_t i = 0; i < ops.size(); ++i) {
    net::co_spawn(ex, std::move(ops[i]), [state, i](const std::exception_ptr& e, T value) {
      if (!e) {
        state->results[i] = std::move(value);
      } else if (!state->error) {
        state->error = e;
      }
      if (--state->left == 0) {
        state->done.cancel();
      }
    });
  }
  boost::system::error_code ec;
  co_await state->done.async_wait(net::redirect_error(net::use_awaitable, ec));
  if (state->error) {
    std::rethrow_exception(state->error);
  }
  std::vector<T> out;
  out.reserve(state->results.size());
  for (auto& r : state->results) {
    out.push_back(std::move(*r));
  }
  co_return out;
}

}  // namespace plaudit
