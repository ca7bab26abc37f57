#pragma once
// Argon2id password hashing (libsodium crypto_pwhash_str) off the I/O thread, bounded.
//
// One hash costs ~0.15 s of CPU and 64 MiB of memory at the interactive profile. Hashes run
// on a dedicated pool of `threads` threads, so at most threads × memory is in use at once,
// and at most `max_pending` may wait or run: beyond that a call fails at once with
// kRateLimited rather than queueing without bound — a login flood gets 429s, not an
// exhausted machine.
#include <atomic>
#include <cstddef>
#include <functional>
#include <string>

#include "common/net.hpp"
#include "common/result.hpp"

namespace plaudit::domain {

struct PasswordHashOptions {
  unsigned long long ops_limit;
  size_t mem_limit;
  int threads = 2;
  int max_pending = 64;

  static PasswordHashOptions Interactive();  // libsodium's interactive profile (64 MiB)
  static PasswordHashOptions Minimal();      // libsodium's minimum cost: tests only
};

class PasswordHasher {
 public:
  explicit PasswordHasher(PasswordHashOptions options);
  ~PasswordHasher();

  // The encoded hash ($argon2id$v=19$m=...,t=...,p=1$salt$hash).
  Awaitable<Result<std::string>> Hash(std::string password);
  // Whether `password` matches `encoded`. A malformed `encoded` is a mismatch.
  Awaitable<Result<bool>> Verify(std::string encoded, std::string password);
  // Spends the same work as a Verify against a real hash, for unknown usernames, so that
  // response time does not reveal which usernames exist.
  Awaitable<Result<bool>> VerifyDummy(std::string password);

  int pending() const { return pending_.load(); }
  const PasswordHashOptions& options() const { return options_; }

 private:
  // Runs fn on the pool, bounded by max_pending; resumes on the caller's executor.
  template <class T>
  Awaitable<Result<T>> Offload(std::function<T()> fn);

  PasswordHashOptions options_;
  net::thread_pool pool_;
  std::atomic<int> pending_{0};
  std::string dummy_hash_;
};

}  // namespace plaudit::domain
