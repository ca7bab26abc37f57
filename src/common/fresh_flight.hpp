#pragma once
// Coalesces reads that must be fresh: a caller gets the result of a load that started after
// it called, never one already under way (which may have read before a write the caller saw
// acknowledged). While a load of a key runs, every caller that arrives joins one next load,
// started when the running one ends; so a burst of N readers of one key costs two loads, and
// each waits at most for the end of the running one and the whole of its own.
//
// What it is for: a page's version read (CommentService::PageVersion, the article lists'
// versions). Under a crowd on one page each request asked Redis the same question; now a
// round trip answers everyone who arrived before it was sent, and the freshness argument
// ("a read shows every write acknowledged before it started") still holds, because the
// answer was asked for after they started.
//
// Single-threaded (the event loop's executor), like SingleFlight.
#include <chrono>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <optional>

#include "common/net.hpp"
#include "common/result.hpp"

namespace plaudit {

template <class Key, class T>
class FreshFlight {
 public:
  using Loader = std::function<Awaitable<Result<T>>()>;

  Awaitable<Result<T>> Do(Key key, Loader loader) {
    auto ex = co_await net::this_coro::executor;
    auto it = flights_.find(key);
    if (it == flights_.end()) {
      // Nothing under way: this caller loads, and hands the next load to whoever queued.
      flights_.emplace(key, Flight{});
      ++loads_;
      Result<T> result = co_await Load(loader);
      StartNext(key, ex);
      co_return result;
    }
    std::shared_ptr<Next> next = it->second.next;
    if (!next) {
      next = std::make_shared<Next>(ex, std::move(loader));
      it->second.next = next;
    }
    ++waiters_;
    boost::system::error_code ec;
    co_await next->done.async_wait(net::redirect_error(net::use_awaitable, ec));
    if (next->result) {
      co_return *next->result;
    }
    co_return Fail(ErrorCode::kInternal, "load abandoned");
  }

  // For tests: how many loads ran and how many callers waited for a next one.
  int loads() const { return loads_; }
  int waiters() const { return waiters_; }

 private:
  struct Next {
    Next(const net::any_io_executor& ex, Loader l)
        : done(ex, std::chrono::steady_clock::time_point::max()), loader(std::move(l)) {}
    net::steady_timer done;
    Loader loader;  // the first waiter's: every waiter asks the same question of one key
    std::optional<Result<T>> result;
  };
  struct Flight {
    std::shared_ptr<Next> next;  // the callers that arrived while this load ran
  };

  static Awaitable<Result<T>> Load(const Loader& loader) {
    try {
      co_return co_await loader();
    } catch (const std::exception& e) {
      co_return Fail(ErrorCode::kInternal, e.what());
    }
  }

  // The load of `key` that ran has ended: its queued callers' load starts now (they all
  // arrived before this moment), or the key is idle again.
  void StartNext(const Key& key, const net::any_io_executor& ex) {
    auto it = flights_.find(key);
    std::shared_ptr<Next> next = std::move(it->second.next);
    if (!next) {
      flights_.erase(it);
      return;
    }
    ++loads_;
    net::co_spawn(ex, RunNext(key, std::move(next)), net::detached);
  }

  Awaitable<void> RunNext(Key key, std::shared_ptr<Next> next) {
    Result<T> result = co_await Load(next->loader);
    next->result = std::move(result);
    next->done.cancel();  // wakes every waiter
    auto ex = co_await net::this_coro::executor;
    StartNext(key, ex);
  }

  std::map<Key, Flight> flights_;
  int loads_ = 0;
  int waiters_ = 0;
};

}  // namespace plaudit
