#pragma once
// Runs a coroutine to completion on a private io_context on the calling thread: for tests that
// drive a store or a service directly, without an app around it.
#include <exception>
#include <optional>
#include <utility>

#include "common/net.hpp"

namespace plaudit::testing {

template <class T>
T RunSync(Awaitable<T> aw) {
  net::io_context ioc;
  std::optional<T> out;
  net::co_spawn(
      ioc, [&]() -> Awaitable<void> { out.emplace(co_await std::move(aw)); },
      [](std::exception_ptr e) {
        if (e) {
          std::rethrow_exception(e);
        }
      });
  ioc.run();
  return std::move(*out);
}

}  // namespace plaudit::testing
