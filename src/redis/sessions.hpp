#pragma once
// Sessions live in Redis only (rebuildable state: if Redis is emptied, users log in again).
// A session is found by the BLAKE2b-256 hash of its token, so a Redis dump holds no usable
// token. A session says whose it is and nothing more: the user's role and existence are read
// from SQL on each request (domain/user_directory.hpp). Each user's sessions are indexed
// (capped, and kept alive as long as the sessions are) so that deleting an account deletes
// them. Optionally fronted by a short-lived per-process SessionCache (see session_cache.hpp).
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/result.hpp"
#include "redis/client/client.hpp"
#include "redis/session_cache.hpp"
#include "redis/sessions_data.hpp"

namespace plaudit::redis {

struct SessionCacheOptions {
  std::chrono::milliseconds max_age{0};  // 0: no cache, every lookup reads Redis
  size_t capacity = 100'000;             // sessions (about 200 bytes each)
};

class SessionStore {
 public:
  // The channel invalidations are published on (SessionCache::Apply's messages).
  static constexpr const char* kInvalidationChannel = "pl:inval:sessions";

  SessionStore(Client& client, std::chrono::milliseconds ttl, int max_sessions_per_user = 32,
               SessionCacheOptions cache = {});

  // A fresh random token (256 bits, base64url) for a new session.
  static std::string NewToken();
  // The key material for a token (hex BLAKE2b-256).
  static std::string HashToken(std::string_view token);

  Awaitable<Status> Create(std::string_view token, const SessionData& data);
  // The session of `token`, sliding its expiry; nullopt when absent or expired.
  Awaitable<Result<std::optional<SessionData>>> Get(std::string_view token);
  // The session of `token` when the cache holds it now (what Get would answer without a
  // round trip), else null: a caller on the request path skips Get's coroutine frames.
  const SessionData* FindCached(std::string_view token);
  Awaitable<Status> Delete(std::string_view token, int64_t user_id);
  // Tells every plauditd that the user's account changed (a role, a deletion), on the
  // invalidation channel: their caches of the user drop it. Returns once every plauditd that
  // received the message has applied it (Publish).
  Awaitable<Status> PublishUserChange(int64_t user_id);
  // Deletes every session of the user (an account deleted), then publishes the change.
  Awaitable<Status> DeleteUser(int64_t user_id);

  std::chrono::milliseconds ttl() const { return ttl_; }

  // Wired to the Subscriber of kInvalidationChannel (no effect without a cache).
  void SetCacheLive(bool subscribed);
  void OnInvalidation(std::string_view message);
  // To run (detached) once a message has been applied everywhere in this process (the session
  // cache and every other cache on the channel): counts this process under the message's
  // nonce. A lost acknowledgement only makes the publisher wait out kAckTimeout.
  Awaitable<void> Acknowledge(std::string message);

  // How long Publish waits for the acknowledgements of the processes that received a message
  // (one hung process must not hang the request that changed something).
  static constexpr std::chrono::milliseconds kAckTimeout{1000};
  // For tests and metrics: lookups answered from the cache.
  uint64_t cache_hits() const { return cache_hits_; }
  // Whether lookups use the cache now (configured, subscribed and Redis connected).
  bool cache_live() const { return CacheUsable(); }

 private:
  // Whether lookups may use the cache right now.
  bool CacheUsable() const;
  // PUBLISHes `message` with a fresh nonce, then waits (at most kAckTimeout) until as many
  // processes have acknowledged it as PUBLISH said received it. Redis hands a message to the
  // subscribers' sockets before it replies, but a process may still answer a request that
  // arrives before it reads that socket: the wait makes "the next request, in every
  // process" exact.
  Awaitable<Status> Publish(std::string message);
  int64_t NextSlideMs() const;  // when a session's expiry should next slide

  Client& client_;
  std::chrono::milliseconds ttl_;
  int max_sessions_;
  std::chrono::milliseconds cache_max_age_;
  std::optional<SessionCache> cache_;  // set when cache max_age > 0
  bool cache_live_ = false;
  uint64_t cache_hits_ = 0;
};

}  // namespace plaudit::redis
