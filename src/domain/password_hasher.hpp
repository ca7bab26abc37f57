#pragma once
// Argon2id password hashing (libsodium crypto_pwhash_str) off the I/O thread, bounded.
//
// One hash costs ~0.15 s of CPU and 64 MiB of memory at the interactive profile. Hashes run
// on a dedicated pool of `threads` threads, so at most threads × memory is in use at once,
// and at most `max_pending` may wait or run: beyond that a call fails at once with
// kRateLimited rather than queueing without bound — a login flood gets 429s, not an
// exhausted machine.
//
// Why two classes of work: a sign-up flood (issue 41: 70 concurrent sign-ups from one
// address) used to fill the one queue, and every login anywhere got 429. New hashes (sign-ups,
// first-run setup) now have their own, smaller budget (a quarter of the queue, at least one),
// and a thread that frees up always takes a waiting password check first: a login waits for
// at most the hashes already running, never for the sign-ups queued before it.
#include <array>
#include <atomic>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <string>

#include "common/net.hpp"
#include "common/result.hpp"

namespace plaudit::domain {

struct PasswordHashOptions {
  unsigned long long ops_limit;
  size_t mem_limit;
  int threads = 2;
  int max_pending = 64;  // password checks (logins) waiting or running
  // New hashes (sign-ups, setup) waiting or running; 0: a quarter of max_pending, at least 1.
  int max_pending_new = 0;

  static PasswordHashOptions Interactive();  // libsodium's interactive profile (64 MiB)
  static PasswordHashOptions Minimal();      // libsodium's minimum cost: tests only
};

class PasswordHasher {
 public:
  explicit PasswordHasher(PasswordHashOptions options);
  ~PasswordHasher();

  // The encoded hash ($argon2id$v=19$m=...,t=...,p=1$salt$hash). Runs after every waiting
  // password check, within the new-hash budget.
  Awaitable<Result<std::string>> Hash(std::string password);
  // Whether `password` matches `encoded`. A malformed `encoded` is a mismatch.
  Awaitable<Result<bool>> Verify(std::string encoded, std::string password);
  // Spends the same work as a Verify against a real hash, for unknown usernames, so that
  // response time does not reveal which usernames exist.
  Awaitable<Result<bool>> VerifyDummy(std::string password);

  int pending() const { return pending_[0].load() + pending_[1].load(); }
  const PasswordHashOptions& options() const { return options_; }

 private:
  enum Work { kCheck = 0, kNewHash = 1 };  // also the queues' priority order
  // Runs fn on the pool, bounded by its class's budget; resumes on the caller's executor.
  template <class T>
  Awaitable<Result<T>> Offload(Work work, std::function<T()> fn);
  // Queues `job` in its class; one pool task is posted per job, and each runs the most
  // urgent job waiting at that moment.
  void Enqueue(Work work, std::function<void()> job);
  void RunNext();

  PasswordHashOptions options_;
  net::thread_pool pool_;
  std::array<std::atomic<int>, 2> pending_{};
  std::array<int, 2> budget_{};
  std::mutex queue_mu_;
  std::array<std::deque<std::function<void()>>, 2> queues_;
  std::string dummy_hash_;
};

}  // namespace plaudit::domain
