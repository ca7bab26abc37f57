#pragma once
// Store::Run<T> and Store::RunGrouped<T>, included at the end of store.hpp.
//
// The job runs on a pool thread; its result is posted back to the awaiting coroutine's
// executor, so the coroutine always resumes on its own io_context. The executor is tracked
// as outstanding work until then, so that io_context's run() does not return while a query
// is in flight.
#include <chrono>
#include <exception>
#include <memory>
#include <optional>
#include <type_traits>
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

namespace detail {

// The awaiting coroutine's side of a job: its completion handler and its executor, tracked as
// outstanding work until the result is posted back.
template <class T, class Handler, class Executor>
struct Completion {
  Handler handler;
  Executor work;
  std::chrono::steady_clock::time_point started;

  // Posts `result` to the coroutine's executor, reporting the latency first. The pool thread
  // keeps no reference to the tracked executor: the last reference must go on the
  // io_context's own thread, or run() could return (and the io_context be destroyed) while
  // this thread is still releasing it.
  static void Deliver(std::shared_ptr<Completion> self, Result<T> result,
                      const std::function<void(double)>& observer) {
    if (observer) {
      observer(
          std::chrono::duration<double>(std::chrono::steady_clock::now() - self->started).count());
    }
    auto target = net::prefer(self->work, net::execution::outstanding_work.untracked);
    net::post(target, [self = std::move(self), result = std::move(result)]() mutable {
      std::move(self->handler)(std::move(result));
    });
  }
};

template <class T, class Handler>
auto MakeCompletion(Handler handler) {
  auto executor =
      net::prefer(net::get_associated_executor(handler), net::execution::outstanding_work.tracked);
  using State = Completion<T, Handler, decltype(executor)>;
  // Submit() takes a copyable std::function; the completion handler is move-only.
  return std::make_shared<State>(
      State{std::move(handler), std::move(executor), std::chrono::steady_clock::now()});
}

// One run of a grouped job inside the group's transaction, in a savepoint of its own (so that
// a failed statement never leaves the group's transaction aborted, on PostgreSQL).
template <class T>
Result<T> RunInSavepoint(const std::function<Result<T>(Connection&)>& fn, Connection& tx) {
  std::optional<Result<T>> result;
  try {
    Status st = tx.Transaction([&](Connection& c) -> Status {
      result = fn(c);
      if (!*result) {
        return tl::unexpected(result->error());
      }
      return {};
    });
    if (!st && (!result || *result)) {
      return tl::unexpected(st.error());  // the savepoint itself failed
    }
  } catch (const std::exception& e) {
    return Fail(ErrorCode::kInternal, std::string("database call threw: ") + e.what());
  } catch (...) {
    return Fail(ErrorCode::kInternal, "database call threw");
  }
  return std::move(*result);
}

}  // namespace detail

template <class T>
Awaitable<Result<T>> Store::Run(std::function<Result<T>(Connection&)> fn) {
  auto initiate = [this](auto handler, std::function<Result<T>(Connection&)> fn) {
    auto done = detail::MakeCompletion<T>(std::move(handler));
    Submit([this, done = std::move(done), fn = std::move(fn)](Connection* conn) mutable {
      Result<T> result = detail::InvokeJob<T>(fn, conn);
      using Done = typename decltype(done)::element_type;
      Done::Deliver(std::move(done), std::move(result), latency_observer_);
    });
  };
  return net::async_initiate<decltype(net::use_awaitable), void(Result<T>)>(
      std::move(initiate), net::use_awaitable, std::move(fn));
}

template <class T>
Awaitable<Result<T>> Store::RunGrouped(std::function<Result<T>(Connection&)> fn, int64_t order) {
  auto initiate = [this, order](auto handler, std::function<Result<T>(Connection&)> fn) {
    using Done = typename decltype(detail::MakeCompletion<T>(
        std::declval<decltype(handler)>()))::element_type;
    struct Job {
      std::shared_ptr<Done> done;
      std::function<Result<T>(Connection&)> fn;
      std::optional<Result<T>> answer;  // run()'s, delivered by settle()
    };
    auto job = std::make_shared<Job>(
        Job{detail::MakeCompletion<T>(std::move(handler)), std::move(fn), std::nullopt});
    GroupedJob grouped;
    grouped.run = [job](Connection& tx) {
      Result<T> result = detail::RunInSavepoint<T>(job->fn, tx);
      if (!result && result.error().retryable) {
        return GroupedJob::Ran::kRetry;
      }
      const auto ran = result ? GroupedJob::Ran::kOk : GroupedJob::Ran::kFailed;
      job->answer = std::move(result);
      return ran;
    };
    grouped.settle = [this, job](const Status& outcome) {
      Result<T> result = Fail(ErrorCode::kInternal, "grouped job settled without an answer");
      if (!outcome) {
        result = tl::unexpected(outcome.error());
      } else if (job->answer) {
        result = std::move(*job->answer);
      }
      Done::Deliver(std::move(job->done), std::move(result), latency_observer_);
    };
    grouped.alone = [this, job](Connection* conn) {
      Result<T> result = detail::InvokeJob<T>(job->fn, conn);
      Done::Deliver(std::move(job->done), std::move(result), latency_observer_);
    };
    grouped.order = order;
    SubmitGrouped(std::move(grouped));
  };
  return net::async_initiate<decltype(net::use_awaitable), void(Result<T>)>(
      std::move(initiate), net::use_awaitable, std::move(fn));
}

}  // namespace plaudit::sql
