#pragma once
// The bodies each writer posted lately (API.md "Moderation": the same body from the same
// writer twice within 10 minutes is 409 `duplicate`). One key per (writer, BLAKE2b digest of
// the body), set with NX and an expiry: claiming answers whether it was free, in one command,
// on every instance alike. Keys `pl:dup:<writer>:<digest>` (docs/architecture.md).
#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

#include "common/result.hpp"
#include "redis/client/client.hpp"

namespace plaudit::redis {

class RecentBodies {
 public:
  explicit RecentBodies(Client& client) : client_(client) {}

  // The writer of a user's comments, and of a guest's (by client address).
  static std::string UserWriter(int64_t user_id) { return std::to_string(user_id); }
  static std::string GuestWriter(std::string_view address) { return "g" + std::string(address); }

  // True when `body` was not posted by `writer` within `window` (and now is, for `window`).
  Awaitable<Result<bool>> Claim(std::string_view writer, std::string_view body,
                                std::chrono::milliseconds window);
  // Gives a claim back (the comment was not stored after all).
  Awaitable<Status> Release(std::string_view writer, std::string_view body);

 private:
  Client& client_;
};

}  // namespace plaudit::redis
