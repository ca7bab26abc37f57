#include "domain/password_hasher.hpp"

#include <sodium.h>

#include <stdexcept>

namespace plaudit::domain {

PasswordHashOptions PasswordHashOptions::Interactive() {
  return {crypto_pwhash_OPSLIMIT_INTERACTIVE, crypto_pwhash_MEMLIMIT_INTERACTIVE};
}

PasswordHashOptions PasswordHashOptions::Minimal() {
  return {crypto_pwhash_OPSLIMIT_MIN, crypto_pwhash_MEMLIMIT_MIN};
}

namespace {

std::string HashNow(const std::string& password, const PasswordHashOptions& o) {
  char out[crypto_pwhash_STRBYTES];
  if (crypto_pwhash_str(out, password.data(), password.size(), o.ops_limit, o.mem_limit) != 0) {
    throw std::runtime_error("crypto_pwhash_str failed (out of memory)");
  }
  return out;
}

}  // namespace

PasswordHasher::PasswordHasher(PasswordHashOptions options)
    : options_(options), pool_(static_cast<size_t>(std::max(1, options.threads))) {
  budget_[kCheck] = std::max(1, options_.max_pending);
  budget_[kNewHash] = options_.max_pending_new > 0 ? options_.max_pending_new
                                                   : std::max(1, options_.max_pending / 4);
  if (sodium_init() < 0) {
    throw std::runtime_error("libsodium failed to initialise");
  }
  dummy_hash_ = HashNow("plaudit-dummy-password", options_);
}

PasswordHasher::~PasswordHasher() {
  pool_.join();
}

void PasswordHasher::Enqueue(Work work, std::function<void()> job) {
  {
    std::lock_guard lock(queue_mu_);
    queues_[work].push_back(std::move(job));
  }
  net::post(pool_, [this] { RunNext(); });
}

void PasswordHasher::RunNext() {
  std::function<void()> job;
  {
    std::lock_guard lock(queue_mu_);
    for (auto& q : queues_) {
      if (!q.empty()) {
        job = std::move(q.front());
        q.pop_front();
        break;
      }
    }
  }
  if (job) job();
}

template <class T>
Awaitable<Result<T>> PasswordHasher::Offload(Work work, std::function<T()> fn) {
  if (pending_[work].fetch_add(1) >= budget_[work]) {
    pending_[work].fetch_sub(1);
    Error e{ErrorCode::kRateLimited,
            work == kCheck ? "too many password checks in progress; retry shortly"
                           : "too many sign-ups in progress; retry shortly",
            1};
    co_return tl::unexpected(e);
  }
  // The same hand-off as sql::Store::Run: the job runs on the pool, and its result is posted
  // back to the awaiting coroutine's executor (kept alive as outstanding work meanwhile).
  auto initiate = [this, work](auto handler, std::function<T()> fn) {
    using Handler = decltype(handler);
    auto executor = net::prefer(net::get_associated_executor(handler),
                                net::execution::outstanding_work.tracked);
    struct State {
      Handler handler;
      decltype(executor) work;
    };
    auto state = std::make_shared<State>(State{std::move(handler), std::move(executor)});
    Enqueue(work, [state = std::move(state), fn = std::move(fn)]() mutable {
      Result<T> result;
      try {
        result = fn();
      } catch (const std::exception& e) {
        result = Fail(ErrorCode::kUnavailable, e.what());
      }
      auto target = net::prefer(state->work, net::execution::outstanding_work.untracked);
      net::post(target, [state = std::move(state), result = std::move(result)]() mutable {
        std::move(state->handler)(std::move(result));
      });
    });
  };
  auto result = co_await net::async_initiate<decltype(net::use_awaitable), void(Result<T>)>(
      std::move(initiate), net::use_awaitable, std::move(fn));
  pending_[work].fetch_sub(1);
  co_return result;
}

Awaitable<Result<std::string>> PasswordHasher::Hash(std::string password) {
  // A named std::function: GCC 12 double-destroys a lambda temporary with non-trivial
  // captures that is converted inside a co_await expression.
  std::function<std::string()> job = [this, password = std::move(password)] {
    return HashNow(password, options_);
  };
  co_return co_await Offload<std::string>(kNewHash, std::move(job));
}

Awaitable<Result<bool>> PasswordHasher::Verify(std::string encoded, std::string password) {
  std::function<bool()> job = [encoded = std::move(encoded), password = std::move(password)] {
    return crypto_pwhash_str_verify(encoded.c_str(), password.data(), password.size()) == 0;
  };
  co_return co_await Offload<bool>(kCheck, std::move(job));
}

Awaitable<Result<bool>> PasswordHasher::VerifyDummy(std::string password) {
  co_return co_await Verify(dummy_hash_, std::move(password));
}

}  // namespace plaudit::domain
