#pragma once
// One-time values (API.md "Guests and sign-in from elsewhere": a site sign-in token's `jti` is
// refused the second time, on every instance). Each use claims a key with SET NX and an expiry
// as long as the value could still be presented, so Redis forgets it only once it is useless
// anyway. Keys `pl:once:<scope>:<BLAKE2b-128 of the value>` (docs/architecture.md): the value
// itself (chosen by a client) never becomes part of a key.
//
// What this cannot see: a Redis that loses the key (FLUSHALL, a restore of an older snapshot,
// a failover before replication) lets that token be used once more within its lifetime; the
// lifetime is short (10 minutes at most) for that reason.
#include <chrono>
#include <string_view>

#include "common/result.hpp"
#include "redis/client/client.hpp"

namespace plaudit::redis {

class OnceKeys {
 public:
  explicit OnceKeys(Client& client) : client_(client) {}

  // True the first time `value` of `scope` is claimed within `ttl`; false when it was before.
  Awaitable<Result<bool>> Claim(std::string_view scope, std::string_view value,
                                std::chrono::milliseconds ttl);

 private:
  Client& client_;
};

}  // namespace plaudit::redis
