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
// | pl:seq:article           | STRING | last article id handed out (INCR)            | none       |
// | pl:art:{<id>}            | HASH   | an article's list fields and its view count  | none       |
// | pl:art:{<id>}:body       | STRING | an article's sanitised HTML content          | none       |
// | pl:arts:{pub}:<list>     | ZSET   | published list index: all, article, post;    | none       |
// |                          |        | score = pinned·2^51 + publishedAt ms, member  |            |
// |                          |        | = 19-digit id; sentinel member at -inf       |            |
// | pl:arts:{pub}:<list>:new | ZSET   | the same, while being rebuilt from SQL       | none       |
// | pl:arts:{pub}:lock       | STRING | who is rebuilding the list indexes           | 30 s       |
// | pl:views:dirty           | SET    | ids of articles with unflushed view counts   | none       |
// | pl:changes               | STREAM | change feed for search indexers, ~100k long  | none       |
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

inline constexpr std::string_view kArticleSeq = "pl:seq:article";
inline std::string Article(int64_t id) { return "pl:art:{" + std::to_string(id) + "}"; }
inline std::string ArticleBody(int64_t id) { return Article(id) + ":body"; }
// list: "all", "article" or "post".
inline std::string PublishedList(std::string_view list) {
  return "pl:arts:{pub}:" + std::string(list);
}
inline std::string PublishedListRebuild(std::string_view list) {
  return PublishedList(list) + ":new";
}
inline constexpr std::string_view kPublishedListLock = "pl:arts:{pub}:lock";
inline constexpr std::string_view kViewsDirty = "pl:views:dirty";
inline constexpr std::string_view kChanges = "pl:changes";

}  // namespace plaudit::redis::keys
