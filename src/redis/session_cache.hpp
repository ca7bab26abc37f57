#pragma once
// Sessions recently read from Redis, kept in this process for at most `max_age` so that a
// signed-in burst (a page load, a run of likes) does not read the same hash again and again:
// on a like, the session read was ~15% of plauditd's CPU and a second Redis round trip
// (A/B of two builds, 1000 users: 25.9 -> 22.0 us of plauditd CPU per like, +18% likes/s).
//
// What keeps it correct (docs/architecture.md "Session cache"):
// - an entry never outlives the session's expiry as Redis reported it (PTTL), nor max_age;
// - logout, eviction and role changes erase entries here at once and publish the session
//   or user on a channel every plauditd listens to (Subscriber), which erases theirs;
// - the cache is used only while that subscription is up, and is emptied whenever it goes
//   up or down (messages may have been missed);
// - a lookup that was in flight while anything was invalidated is not stored (epoch).
// What it does not see: a session key deleted or shortened in Redis by hand, or FLUSHALL.
// Those take effect within max_age.
#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>

#include "redis/sessions_data.hpp"

namespace plaudit::redis {

class SessionCache {
 public:
  using Clock = std::chrono::steady_clock;

  explicit SessionCache(size_t capacity) : capacity_(capacity) {}

  // The live entry for a token, or nullptr (an expired one is dropped). Keyed by the token
  // itself so that a hit needs no BLAKE2b; invalidations name the hash (what Redis holds).
  const SessionData* Find(std::string_view token, Clock::time_point now);
  // Stores a lookup's result unless something was invalidated since `epoch_at_lookup`.
  // Full: expired entries are dropped first, then everything (the cache only saves reads).
  void Put(const std::string& token, const std::string& token_hash, const SessionData& data,
           Clock::time_point valid_until, uint64_t epoch_at_lookup, Clock::time_point now);

  // An invalidation message: "t:<token hash>" (one session) or "u:<user id>" (all of a user's),
  // optionally followed by "#<nonce>" (the publisher waits for acknowledgements under it).
  // Anything else empties the cache: an unknown message must not leave stale entries behind.
  void Apply(std::string_view message);

  // What a message names (for other caches on the same channel, such as the user directory).
  struct Invalidation {
    enum class Kind { kToken, kUser, kUnknown };
    Kind kind = Kind::kUnknown;
    std::string_view token_hash;  // kToken
    int64_t user_id = 0;          // kUser
    std::string_view ack;         // the nonce to acknowledge under, or empty
  };
  static Invalidation Parse(std::string_view message);
  void EraseToken(const std::string& token_hash);
  void EraseUser(int64_t user_id);
  void Clear();

  // Bumped by every erase and clear.
  uint64_t epoch() const { return epoch_; }
  size_t size() const { return entries_.size(); }

  static std::string TokenMessage(std::string_view token_hash);
  static std::string UserMessage(int64_t user_id);

 private:
  struct Entry {
    SessionData data;
    std::string token_hash;
    Clock::time_point valid_until;
  };
  // Transparent, so a lookup by the request's string_view allocates nothing.
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  using Entries = std::unordered_map<std::string, Entry, Hash, std::equal_to<>>;

  void Erase(Entries::iterator it);

  size_t capacity_;
  uint64_t epoch_ = 0;
  Entries entries_;                                      // token -> entry
  std::unordered_map<std::string, std::string> tokens_;  // token hash -> token
};

}  // namespace plaudit::redis
