#pragma once
// Rate limits kept in Redis, shared by every plauditd instance.
//
// Algorithm: GCRA (generic cell rate algorithm). Each (scope, id) has one key holding a single
// timestamp, the theoretical arrival time (TAT) of the next event; an event is allowed while it
// keeps the TAT within one period of now. That gives "count per period" with bursts of up to
// `count` and a smooth refill of one event every period/count, in O(1) memory per id and one
// round trip per decision (src/redis/lua/rate_limit.lua, which touches that one key only, so it
// is cluster-safe). `now` is Redis' clock, so instances with skewed clocks still agree.
//
// Keys: <prefix><scope>:<id>, binary-safe (ids may be IP addresses, usernames, anything). Ids
// over kMaxIdBytes are replaced by a hash, so a hostile client cannot make keys arbitrarily
// large. Keys expire once their limiter is back to a full budget (TTL <= period).
//
// Failure model: a Redis outage surfaces as kUnavailable (callers decide whether to fail open);
// an unexpected reply from the script is kInternal.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "common/net.hpp"
#include "common/rate_limit.hpp"
#include "common/result.hpp"
#include "redis/client/client.hpp"
#include "redis/keys.hpp"

namespace plaudit::redis {

struct RateDecision {
  bool allowed = true;
  int64_t retry_after_ms = 0;  // when denied: how long until the same call would be allowed
};

class RateLimiter {
 public:
  // Ids longer than this are keyed by a hash of the id (see RateLimiter::Key).
  static constexpr size_t kMaxIdBytes = 128;

  // `client` must outlive the limiter.
  explicit RateLimiter(Client& client,
                       std::string key_prefix = std::string(keys::kRateLimitPrefix));

  // consume=true records one event if it is allowed; consume=false only checks whether one
  // more event would be allowed now, without using budget (e.g. check the failed-login limit
  // before verifying a password, and record only a failure). A disabled limit is allowed
  // without a Redis call. Redis down → kUnavailable; an error reply → kInternal.
  // `scope` and `id` must stay valid until the returned awaitable has completed.
  Awaitable<Result<RateDecision>> Check(std::string_view scope, std::string_view id,
                                        RateLimit limit, bool consume = true);

  // Gives back one event a Check(consume=true) recorded: an attempt reserved before its outcome
  // was known that turned out not to count (a login whose password was right). Reserving first
  // and refunding after is what keeps a burst of concurrent attempts within the limit, which a
  // check before and a charge after do not (every attempt of the burst passes the check).
  // A disabled limit makes no Redis call.
  Awaitable<Status> Refund(std::string_view scope, std::string_view id, RateLimit limit);

  // Check(consume=true) as a Status: Error{kRateLimited, message, retry_after_seconds (>= 1,
  // rounded up)} when denied, {} when allowed or the limit is disabled (then no Redis call).
  Awaitable<Status> Enforce(std::string_view scope, std::string_view id, RateLimit limit,
                            std::string_view message);

  // The Redis key of (scope, id); public for tests and operators.
  std::string Key(std::string_view scope, std::string_view id) const;

 private:
  Client& client_;
  std::string key_prefix_;
};

}  // namespace plaudit::redis
