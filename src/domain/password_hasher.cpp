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
  if (sodium_init() < 0) {
    throw std::runtime_error("libsodium failed to initialise");
  }
  dummy_hash_ = HashNow("plaudit-dummy-password", options_);
}

PasswordHasher::~PasswordHasher() {
  pool_.join();
}

template <class F>
auto PasswordHasher::Offload(F fn) -> Awaitable<Result<decltype(fn())>> {
  using T = decltype(fn());
  if (pending_.fetch_add(1) >= options_.max_pending) {
    pending_.fetch_sub(1);
    Error e{ErrorCode::kRateLimited, "too many password checks in progress; retry shortly", 1};
    co_return tl::unexpected(e);
  }
  // co_spawn on the pool runs fn there and resumes this coroutine on its own executor.
  auto result = co_await net::co_spawn(
      pool_.get_executor(),
      [fn = std::move(fn)]() -> Awaitable<Result<T>> {
        try {
          co_return fn();
        } catch (const std::exception& e) {
          co_return Fail(ErrorCode::kUnavailable, e.what());
        }
      },
      net::use_awaitable);
  pending_.fetch_sub(1);
  co_return result;
}

Awaitable<Result<std::string>> PasswordHasher::Hash(std::string password) {
  co_return co_await Offload(
      [this, password = std::move(password)] { return HashNow(password, options_); });
}

Awaitable<Result<bool>> PasswordHasher::Verify(std::string encoded, std::string password) {
  co_return co_await Offload([encoded = std::move(encoded), password = std::move(password)] {
    return crypto_pwhash_str_verify(encoded.c_str(), password.data(), password.size()) == 0;
  });
}

Awaitable<Result<bool>> PasswordHasher::VerifyDummy(std::string password) {
  co_return co_await Verify(dummy_hash_, std::move(password));
}

}  // namespace plaudit::domain
