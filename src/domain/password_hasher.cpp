#include "domain/password_hasher.hpp"

#include <sodium.h>

#include <stdexcept>

#include "common/pool_call.hpp"

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

PasswordHasher::~PasswordHasher() { pool_.join(); }

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
  if (job) {
    job();
  }
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
  // back to the awaiting coroutine's executor (common/pool_call.hpp).
  std::function<Result<T>()> guarded = [fn = std::move(fn)]() -> Result<T> {
    try {
      return fn();
    } catch (const std::exception& e) {
      return Fail(ErrorCode::kUnavailable, e.what());
    }
  };
  std::function<void(std::function<void()>)> submit = [this, work](std::function<void()> job) {
    Enqueue(work, std::move(job));
  };
  auto result = co_await CallThrough<Result<T>>(submit, std::move(guarded));
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
