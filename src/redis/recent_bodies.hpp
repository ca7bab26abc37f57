#pragma once
// The bodies each writer posted lately (API.md "Moderation": the same body from the same
// writer twice within 10 minutes is 409 `duplicate`). One key per (writer, BLAKE2b digest of
// the body), set with NX and an expiry: claiming answers whether it was free, in one command,
// on every instance alike. Keys `pl:dup:<user>:<digest>` (docs/architecture.md).
#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

#include "common/result.hpp"
#include "redis/client.hpp"

namespace plaudit::redis {

class RecentBodies {
 public:
  explicit RecentBodies(Client& client) : client_(client) {}

  // True when `body` was not posted by `user_id` within `window` (and now is, for `window`).
  Awaitable<Result<bool>> Claim(int64_t user_id, std::string_view body,
                                std::chrono::milliseconds window);
  // Gives a claim back (the comment was not stored after all).
  Awaitable<Status> Release(int64_t user_id, std::string_view body);

 private:
  Client& client_;
};

}  // namespace plaudit::redis
