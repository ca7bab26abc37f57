#pragma once
// Runs a blocking call on other threads and resumes the awaiting coroutine on its own executor
// with the result: how libcurl (fetch/) and Argon2id (domain/password_hasher) stay off the I/O
// thread.
#include <memory>
#include <utility>

#include "common/net.hpp"

namespace plaudit {

// `submit(job)` hands a copyable `void()` job to the threads that run it (a pool, a queue of
// one's own); the job runs `fn()` there, and its result (a movable, copyable R) is handed back
// on the awaiter's executor, which is kept alive as outstanding work meanwhile.
template <class R, class Submit, class Fn>
Awaitable<R> CallThrough(Submit submit, Fn fn) {
  auto initiate = [&submit](auto handler, Fn f) {
    using Handler = decltype(handler);
    auto executor = net::prefer(net::get_associated_executor(handler),
                                net::execution::outstanding_work.tracked);
    struct State {
      Handler handler;
      decltype(executor) work;
    };
    auto state = std::make_shared<State>(State{std::move(handler), std::move(executor)});
    submit([state, f = std::move(f)]() mutable {
      R result = f();
      // The last reference to the tracked executor is dropped on its own thread (as
      // sql::Store::Run does): the worker thread never owns the awaiter's outstanding work.
      auto target = net::prefer(state->work, net::execution::outstanding_work.untracked);
      net::post(target, [state, result = std::move(result)]() mutable {
        std::move(state->handler)(std::move(result));
      });
    });
  };
  co_return co_await net::async_initiate<decltype(net::use_awaitable), void(R)>(
      std::move(initiate), net::use_awaitable, std::move(fn));
}

// `fn()` runs on `pool` (a net::thread_pool).
template <class R, class Pool, class Fn>
Awaitable<R> CallOnPool(Pool& pool, Fn fn) {
  auto submit = [&pool](auto job) { net::post(pool, std::move(job)); };
  co_return co_await CallThrough<R>(submit, std::move(fn));
}

}  // namespace plaudit
