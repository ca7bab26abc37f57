#pragma once
// Sessions live in Redis only (rebuildable state: if Redis is emptied, users log in again).
// A session is found by the BLAKE2b-256 hash of its token, so a Redis dump holds no usable
// token. Each user's sessions are indexed (capped) so a role change reaches them at once.
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/result.hpp"
#include "redis/client.hpp"

namespace plaudit::redis {

struct SessionData {
  int64_t user_id = 0;
  std::string username;
  std::string display_name;
  std::string role;
};

class SessionStore {
 public:
  SessionStore(Client& client, std::chrono::milliseconds ttl, int max_sessions_per_user = 32);

  // A fresh random token (256 bits, base64url) for a new session.
  static std::string NewToken();
  // The key material for a token (hex BLAKE2b-256).
  static std::string HashToken(std::string_view token);

  Awaitable<Status> Create(std::string_view token, const SessionData& data);
  // The session of `token`, sliding its expiry; nullopt when absent or expired.
  Awaitable<Result<std::optional<SessionData>>> Get(std::string_view token);
  Awaitable<Status> Delete(std::string_view token, int64_t user_id);
  // Updates the role in every live session of the user.
  Awaitable<Status> SetRole(int64_t user_id, std::string_view role);

  std::chrono::milliseconds ttl() const { return ttl_; }

 private:
  int64_t NextSlideMs() const;  // when a session's expiry should next slide

  Client& client_;
  std::chrono::milliseconds ttl_;
  int max_sessions_;
};

}  // namespace plaudit::redis
