#pragma once
// Coalesces concurrent loads of one key in this process: the first caller runs the loader,
// the others wait for its result instead of stampeding SQL. Single-threaded (the event
// loop's executor); the result is handed to every waiter.
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>

#include "common/net.hpp"
#include "common/result.hpp"

namespace plaudit {

template <class Key, class T>
class SingleFlight {
 public:
  Awaitable<Result<T>> Do(const Key& key, std::function<Awaitable<Result<T>>()> loader) {
    auto it = flights_.find(key);
    if (it != flights_.end()) {
      auto flight = it->second;
      ++waiters_;
      boost::system::error_code ec;
      co_await flight->done.async_wait(net::redirect_error(net::use_awaitable, ec));
      if (flight->result) {
        co_return *flight->result;
      }
      co_return Fail(ErrorCode::kInternal, "load abandoned");
    }
    auto ex = co_await net::this_coro::executor;
    auto flight = std::make_shared<Flight>(ex);
    flights_.emplace(key, flight);
    ++loads_;
    Result<T> result = co_await loader();
    flight->result = result;
    flights_.erase(key);
    flight->done.cancel();  // wakes every waiter
    co_return result;
  }

  bool InFlight(const Key& key) const { return flights_.count(key) != 0; }

  // For tests: how many loads ran and how many callers waited on another's load.
  int loads() const { return loads_; }
  int waiters() const { return waiters_; }

 private:
  struct Flight {
    explicit Flight(const net::any_io_executor& ex)
        : done(ex, std::chrono::steady_clock::time_point::max()) {}
    net::steady_timer done;
    std::optional<Result<T>> result;
  };
  std::map<Key, std::shared_ptr<Flight>> flights_;
  int loads_ = 0;
  int waiters_ = 0;
};

}  // namespace plaudit
