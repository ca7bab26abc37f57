#pragma once
// Every Redis key Plaudit uses is built here; docs/architecture.md has the same table.
//
// | key                      | type   | holds                                        | TTL        |
// |--------------------------|--------|----------------------------------------------|------------|
// | pl:sess:<token-hash>     | HASH   | uid, username, display, role of one session; | session    |
// |                          |        | ref = when its expiry next slides (ms)       |            |
// | pl:usess:<uid>           | ZSET   | token hashes of a user's sessions, by login  | session    |
// |                          |        | time; capped (oldest sessions are evicted)   |            |
// | pl:rl:<scope>:<id>       | STRING | GCRA theoretical arrival time (ms) of a      | ≤ period   |
// |                          |        | rate limit                                   |            |
// | pl:seq:article           | STRING | last article id handed out (INCR)            | none       |
// | pl:art:{lN}:<id>         | HASH   | an article's list fields and its view count  | none       |
// | pl:art:{lN}:<id>:body    | STRING | an article's sanitised HTML content, of the   | none       |
// |                          |        | version in its floor's bv                     |            |
// | pl:art:{lN}:<id>:floor   | HASH   | while the hash is absent, the lowest row      | 10 min;    |
// |                          |        | version (v) and comments_ver (c) a fill may   | deleted: 1 d |
// |                          |        | cache; v = 2^62: deleted; bv: the body's      |            |
// |                          |        | version                                       |            |
// | pl:arts:{pub}:<list>     | ZSET   | published list index: all, article, post;    | none       |
// |                          |        | score = pinned·2^51 + publishedAt ms, member  |            |
// |                          |        | = 19-digit id; sentinel member at -inf       |            |
// | pl:arts:{pub}:<list>:new | ZSET   | the same, while being rebuilt from SQL       | none       |
// | pl:arts:{pub}:lock       | STRING | who is rebuilding the list indexes           | 30 s,      |
// |                          |        |                                              | renewed    |
// | pl:arts:{pub}:v:<id>     | STRING | row version of the article's last list change | 10 min     |
// | pl:vd:{views}            | SET    | ids of articles with unflushed view counts   | none       |
// | pl:vf:{views}            | ZSET   | ids claimed by a flush, not yet confirmed in | none       |
// |                          |        | SQL; score = the claim's seq                 |            |
// | pl:vseq:{views}          | STRING | last seq a views claim or stamp took:        | none       |
// |                          |        | max(INCR, the clock in µs)                   |            |
// | pl:vbm:{views}           | STRING | a check saw this dataset (gone: emptied)     | none       |
// | pl:vrm:{views}           | STRING | "<owner> <lease end ms>": view counts are    | none       |
// |                          |        | recovering from a Redis that came back older |            |
// | pl:lk:{lN}:<t>:<bucket>  | SET    | user ids liking target t (a<id>/c<id>) whose | none       |
// |                          |        | id >> 8 == bucket; member 0 = loaded (intset) |            |
// | pl:lc:{lN}:<t>           | STRING | like count of t                              | none       |
// | pl:lp:{lN}:<t>:<b>       | HASH   | pending like changes uid → state "1"/"0";    | none       |
// |                          |        | b is "s" (small mode) or the user-id bucket   |            |
// | pl:lf:{lN}:<t>:<b>       | HASH   | the same, claimed by a flush in progress,    | none       |
// |                          |        | plus field "#": the claim's seq               |            |
// | pl:ld:{lN}               | ZSET   | dirty buckets "<t>:<b>" by first change      | none       |
// | pl:lfi:{lN}              | SET    | claimed buckets not yet confirmed in SQL      | none       |
// | pl:lseq:{lN}             | STRING | last seq a claim of the shard (or an article | none       |
// |                          |        | or comment write in it) took:                 |            |
// |                          |        | max(INCR, the clock in µs)                    |            |
// | pl:lep:{lN}              | STRING | epoch: moves when unflushed changes leave     | none       |
// |                          |        | Redis (a done) or a count is dropped          |            |
// | pl:lrm:{lN}              | STRING | the shard is recovering from a Redis that     | none       |
// |                          |        | came back older than SQL                      |            |
// | pl:lbm:{lN}              | STRING | a check saw this dataset (gone: emptied)      | none       |
// | pl:cpend:{lN}            | ZSET   | article and comment writes whose Redis step  | none       |
// |                          |        | has not landed: "<a|c><article id>:<seq>",    |            |
// |                          |        | score = seq (redis/cache_marks.hpp)           |            |
// | pl:seq:comment           | STRING | last comment sequence number (INCR); a       | none       |
// |                          |        | comment id is seq·256 + its article's shard  |            |
// | pl:cm:{lN}:<cid>         | HASH   | a comment's fields, reply count, version     | none       |
// | pl:cmeta:{lN}:<aid>      | HASH   | state of an article's comment cache:         | none       |
// |                          |        | building (owner, lease) or ready             |            |
// | pl:ct:{lN}:<aid>         | ZSET   | listed top-level comments, score = id        | none       |
// | pl:ch:{lN}:<aid>         | ZSET   | the same, score = like count                 | none       |
// | pl:crt:{lN}:<cid>        | ZSET   | listed replies of a top-level comment, by id  | none       |
// | pl:crh:{lN}:<cid>        | ZSET   | the same, score = like count                 | none       |
//   N = shard of the target's article (article id % 256): an article's cache hash, its likes,
//   its comments, their indexes and their likes share one hash slot with their shard's dirty
//   index, so a comment like moves the comment in its hot index in the same script, and an
//   article like checks the article is published in the same script. ZSET members are
//   19-digit zero-padded ids, so equal scores order by id.
//
// Single-key operations need no hash tag. Each script touches the keys of one hash slot
// (cluster-ready).
// Token hashes are BLAKE2b-256 of the bearer token, hex: Redis never holds a usable token.
#include <charconv>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace plaudit::redis::keys {

// Keys are built on every request (a like builds eight), so each is one allocation: the
// pieces are measured, then copied once. Chained `+` made a temporary per piece.
struct Num {
  explicit Num(int64_t v) : len(static_cast<size_t>(std::to_chars(buf, buf + sizeof buf, v).ptr - buf)) {}
  char buf[20];
  size_t len;
};
inline std::string_view Piece(std::string_view s) { return s; }
inline std::string_view Piece(const Num& n) { return {n.buf, n.len}; }
template <class... Parts>
std::string Cat(const Parts&... parts) {
  const std::string_view pieces[] = {Piece(parts)...};
  size_t size = 0;
  for (std::string_view p : pieces) size += p.size();
  std::string out(size, '\0');
  char* at = out.data();
  for (std::string_view p : pieces) {
    if (!p.empty()) std::memcpy(at, p.data(), p.size());
    at += p.size();
  }
  return out;
}

inline std::string Session(std::string_view token_hash) { return Cat("pl:sess:", token_hash); }
inline std::string UserSessions(int64_t user_id) { return Cat("pl:usess:", Num(user_id)); }
// Counts the plauditd processes that applied one invalidation (SessionStore::Publish).
inline std::string InvalidationAck(std::string_view nonce) { return Cat("pl:iack:", nonce); }
inline constexpr std::string_view kRateLimitPrefix = "pl:rl:";

inline constexpr std::string_view kArticleSeq = "pl:seq:article";
inline constexpr int kLikeShards = 256;
inline int LikeShard(int64_t article_id) { return static_cast<int>(article_id % kLikeShards); }
inline std::string LikeTag(int shard) { return Cat("{l", Num(shard), "}"); }
// "<prefix>{l<shard>}:<rest>": a key in a like shard's hash slot.
template <class Rest>
std::string InShard(std::string_view prefix, int shard, const Rest& rest) {
  return Cat(prefix, "{l", Num(shard), "}:", rest);
}
// An article's hash carries its like shard's tag, so like_set.lua can check in the same step
// that the article is published.
inline std::string Article(int64_t id) { return InShard("pl:art:", LikeShard(id), Num(id)); }
inline std::string ArticleBody(int64_t id) {
  return Cat("pl:art:{l", Num(LikeShard(id)), "}:", Num(id), ":body");
}
inline std::string ArticleFloor(int64_t id) {
  return Cat("pl:art:{l", Num(LikeShard(id)), "}:", Num(id), ":floor");
}
// list: "all", "article" or "post".
inline std::string PublishedList(std::string_view list) { return Cat("pl:arts:{pub}:", list); }
inline std::string PublishedListRebuild(std::string_view list) {
  return Cat("pl:arts:{pub}:", list, ":new");
}
inline constexpr std::string_view kPublishedListLock = "pl:arts:{pub}:lock";
inline std::string PublishedListVersion(int64_t id) { return Cat("pl:arts:{pub}:v:", Num(id)); }
// The flusher's view claim (view_claim.lua) moves ids from the dirty set to the in-flight
// one atomically, so the three share the {views} tag.
inline constexpr std::string_view kViewsDirty = "pl:vd:{views}";
inline constexpr std::string_view kViewsInFlight = "pl:vf:{views}";
inline constexpr std::string_view kViewsSeq = "pl:vseq:{views}";
inline constexpr std::string_view kViewsBirthMark = "pl:vbm:{views}";
inline constexpr std::string_view kViewsRecoveryMark = "pl:vrm:{views}";
// An article's hash or body (pl:art:{lN}:<id>[:body]), not the published lists (pl:arts:).
inline bool IsArticleCache(std::string_view key) { return key.substr(0, 8) == "pl:art:{"; }

inline constexpr int kLikeBucketShift = 8;  // 256 users (+ the loaded mark) per bucket: an intset
inline std::string LikeBucket(int shard, std::string_view member) {
  return InShard("pl:lk:", shard, member);
}
inline std::string LikeBig(int shard, std::string_view target) {
  return InShard("pl:lb:", shard, target);
}
inline std::string LikeCount(int shard, std::string_view target) {
  return InShard("pl:lc:", shard, target);
}
inline std::string LikePending(int shard, std::string_view member) {
  return InShard("pl:lp:", shard, member);
}
inline std::string LikeInFlight(int shard, std::string_view member) {
  return InShard("pl:lf:", shard, member);
}
inline std::string LikeDirty(int shard) { return Cat("pl:ld:{l", Num(shard), "}"); }
inline std::string LikeInFlightSet(int shard) { return Cat("pl:lfi:{l", Num(shard), "}"); }
inline std::string LikeSeq(int shard) { return Cat("pl:lseq:{l", Num(shard), "}"); }
inline std::string LikeEpoch(int shard) { return Cat("pl:lep:{l", Num(shard), "}"); }
inline std::string LikeRecoveryMark(int shard) { return Cat("pl:lrm:{l", Num(shard), "}"); }
inline std::string LikeBirthMark(int shard) { return Cat("pl:lbm:{l", Num(shard), "}"); }
inline std::string CacheMarks(int shard) { return Cat("pl:cpend:{l", Num(shard), "}"); }

// The shard of a key that only caches SQL's like and comment state (like sets, counts and
// marks, comment caches), or -1 for any other key (unflushed like changes, the shard's seq,
// epoch and indexes of the write-behind, article hashes, sessions, ...). Dropped when a shard
// recovers from a Redis that came back older than SQL (like_recover.lua). Article hashes hold
// unflushed view counts, so the views recovery drops those, under its lease (view_check.lua).
inline int CachedShardOf(std::string_view key) {
  static constexpr std::string_view kCaches[] = {"pl:lk:",  "pl:lb:",  "pl:lc:",  "pl:cm:",
                                                 "pl:cmeta:", "pl:ct:", "pl:ch:", "pl:crt:",
                                                 "pl:crh:"};
  for (std::string_view prefix : kCaches) {
    if (key.substr(0, prefix.size()) != prefix) continue;
    std::string_view rest = key.substr(prefix.size());
    if (rest.size() < 4 || rest[0] != '{' || rest[1] != 'l') return -1;
    int shard = 0;
    auto [end, ec] = std::from_chars(rest.data() + 2, rest.data() + rest.size(), shard);
    if (ec != std::errc{} || end == rest.data() + rest.size() || *end != '}') return -1;
    return shard >= 0 && shard < kLikeShards ? shard : -1;
  }
  return -1;
}

// Comments: a comment id's low 8 bits are its article's shard (see CommentIdFor).
inline constexpr std::string_view kCommentSeq = "pl:seq:comment";
inline int64_t CommentIdFor(int64_t seq, int64_t article_id) {
  return seq * kLikeShards + LikeShard(article_id);
}
inline std::string Comment(int64_t comment_id) {
  return InShard("pl:cm:", LikeShard(comment_id), Num(comment_id));
}
inline std::string CommentMeta(int64_t article_id) {
  return InShard("pl:cmeta:", LikeShard(article_id), Num(article_id));
}
inline std::string CommentsByTime(int64_t article_id) {
  return InShard("pl:ct:", LikeShard(article_id), Num(article_id));
}
inline std::string CommentsByLikes(int64_t article_id) {
  return InShard("pl:ch:", LikeShard(article_id), Num(article_id));
}
inline std::string RepliesByTime(int64_t comment_id) {
  return InShard("pl:crt:", LikeShard(comment_id), Num(comment_id));
}
inline std::string RepliesByLikes(int64_t comment_id) {
  return InShard("pl:crh:", LikeShard(comment_id), Num(comment_id));
}

}  // namespace plaudit::redis::keys
