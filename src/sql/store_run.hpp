#pragma once
// Store::Run<T>, included at the end of store.hpp.
//
// The job runs on a pool thread; its result is posted back to the awaiting coroutine's
// executor, so the coroutine always resumes on its own io_context. The executor is tracked
// as outstanding work until then, so that io_context's run() does not return while a query
// is in flight.
#include <chrono>
#include <exception>
#include <memory>
#include <utility>

namespace plaudit::sql {

namespace detail {

// A job that lost a deadlock (or a serialization failure) runs again from its start: the
// server rolled its transaction back, and a job reads and writes only the database and its
// own locals, so a second run is a fresh attempt. Twice more at most, a few ms apart.
inline constexpr int kJobAttempts = 3;
void PauseBeforeRetry(int attempt);

template <class T>
Result<T> InvokeJob(const std::function<Result<T>(Connection&)>& fn, Connection* conn) {
  if (conn == nullptr) {
    return Fail(ErrorCode::kUnavailable, "database unavailable");
  }
  for (int attempt = 1;; ++attempt) {
    try {
      Result<T> result = fn(*conn);
      if (result || !result.error().retryable || attempt == kJobAttempts) {
        return result;
      }
    } catch (const std::exception& e) {
      return Fail(ErrorCode::kInternal, std::string("database call threw: ") + e.what());
    } catch (...) {
      return Fail(ErrorCode::kInternal, "database call threw");
    }
    PauseBeforeRetry(attempt);
  }
}

}  // namespace detail

template <class T>
Awaitable<Result<T>> Store::Run(std::function<Result<T>(Connection&)> fn) {
  auto initiate = [this](auto handler, std::function<Result<T>(Connection&)> fn) {
    using Handler = decltype(handler);
    auto executor = net::prefer(net::get_associated_executor(handler),
                                net::execution::outstanding_work.tracked);
    // Submit() takes a copyable std::function; the completion handler is move-only.
    struct State {
      Handler handler;
      decltype(executor) work;
    };
    auto state = std::make_shared<State>(State{std::move(handler), std::move(executor)});
    auto started = std::chrono::steady_clock::now();
    Submit([this, started, state = std::move(state), fn = std::move(fn)](Connection* conn) mutable {
      Result<T> result = detail::InvokeJob<T>(fn, conn);
      if (latency_observer_) {
        latency_observer_(
            std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
      }
      // The pool thread keeps no reference to the tracked executor: the last reference must
      // go on the io_context's own thread, or run() could return (and the io_context be
      // destroyed) while this thread is still releasing it.
      auto target = net::prefer(state->work, net::execution::outstanding_work.untracked);
      net::post(target, [state = std::move(state), result = std::move(result)]() mutable {
        std::move(state->handler)(std::move(result));
      });
    });
  };
  return net::async_initiate<decltype(net::use_awaitable), void(Result<T>)>(
      std::move(initiate), net::use_awaitable, std::move(fn));
}

}  // namespace plaudit::sql
