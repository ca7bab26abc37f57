#pragma once
// Every Redis key Plaudit uses is built here; docs/architecture.md has the same table.
//
// | key                      | type   | holds                                        | TTL        |
// |--------------------------|--------|----------------------------------------------|------------|
// | pl:sess:<token-hash>     | HASH   | uid, username, display, role of one session  | session    |
// | pl:usess:<uid>           | ZSET   | token hashes of a user's sessions, by login  | session    |
// |                          |        | time; capped (oldest sessions are evicted)   |            |
// | pl:rl:<scope>:<id>       | STRING | GCRA theoretical arrival time (ms) of a      | ≤ period   |
// |                          |        | rate limit                                   |            |
//
// Single-key operations need no hash tag. Scripts touch one key each (cluster-ready).
// Token hashes are BLAKE2b-256 of the bearer token, hex: Redis never holds a usable token.
#include <cstdint>
#include <string>
#include <string_view>

namespace plaudit::redis::keys {

inline std::string Session(std::string_view token_hash) {
  return "pl:sess:" + std::string(token_hash);
}
inline std::string UserSessions(int64_t user_id) {
  return "pl:usess:" + std::to_string(user_id);
}
inline constexpr std::string_view kRateLimitPrefix = "pl:rl:";

}  // namespace plaudit::redis::keys
