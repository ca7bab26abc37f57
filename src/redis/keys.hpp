#pragma once
// Every Redis key Plaudit uses is built here; docs/architecture.md has the same table.
// keys_test.cpp checks both tables, row for row, against kAllKeys below.
//
// | key                      | type    | holds                                       | TTL        |
// |--------------------------|---------|---------------------------------------------|------------|
// | pl:sess:<token-hash>     | HASH    | uid of one session (older sessions also     | session,   |
// |                          |         | hold username, display, role: ignored); ref | sliding    |
// |                          |         | = when its expiry next slides (ms)          |            |
// | pl:usess:<uid>           | ZSET    | token hashes of a user's sessions by login  | longest    |
// |                          |         | time (≤ 32)                                 | session,   |
// |                          |         |                                             | sliding    |
// | pl:inval:sessions        | CHANNEL | pub/sub: invalidations of the session cache | —          |
// |                          |         | and the user directory: t:<token-hash>,     |            |
// |                          |         | u:<uid> (an account changed), each with     |            |
// |                          |         | #<nonce> when the publisher waits for       |            |
// |                          |         | acknowledgements                            |            |
// | pl:iack:<nonce>          | STRING  | how many plauditd processes applied one     | 10 s       |
// |                          |         | invalidation                                |            |
// | pl:rl:<scope>:<id>       | STRING  | GCRA theoretical arrival time (ms) of a     | ≤ period   |
// |                          |         | rate limit                                  |            |
// | pl:dup:<writer>:<digest> | STRING  | a writer's recent comment body (BLAKE2b):   | 10 min     |
// |                          |         | the same body again is 409 duplicate;       |            |
// |                          |         | writer = user id, or g<address> for guests  |            |
// | pl:once:<scope>:<digest> | STRING  | a one-time value seen (a sign-in token's    | its        |
// |                          |         | jti), by BLAKE2b: a second use is refused   | lifetime   |
// | pl:signin:<digest>       | STRING  | a sign-in with a provider under way, by the | 10 min     |
// |                          |         | BLAKE2b of its state: provider, nonce, PKCE |            |
// |                          |         | verifier, return URL, browser binding:      |            |
// |                          |         | taken (GETDEL) by its one callback          |            |
// | pl:seq:article           | STRING  | last article id handed out (INCR)           | none       |
// | pl:art:{lN}:<id>         | HASH    | an article's list fields, view count and    | none       |
// |                          |         | row version ver                             |            |
// | pl:art:{lN}:<id>:body    | STRING  | an article's sanitised HTML, of version bv  | none       |
// |                          |         | (its floor)                                 |            |
// | pl:art:{lN}:<id>:floor   | HASH    | while the hash is absent: the lowest row    | 10 min,    |
// |                          |         | version (v) and comments_ver (c) a fill may | renewed by |
// |                          |         | cache; v = 2^62: deleted; bv: the cached    | a write;   |
// |                          |         | body's version                              | deleted:   |
// |                          |         |                                             | 1 day      |
// | pl:arts:{pub}:<list>     | ZSET    | published list index, <list> = all, article | none       |
// |                          |         | or post; score = pinned·2^51 + publishedAt  |            |
// |                          |         | ms, member = 19-digit id; sentinel member   |            |
// |                          |         | at -inf                                     |            |
// | pl:arts:{pub}:<list>:new | ZSET    | the same, while being rebuilt from SQL      | none       |
// | pl:arts:{pub}:lock       | STRING  | the instance rebuilding the list indexes    | 30 s,      |
// |                          |         |                                             | renewed by |
// |                          |         |                                             | each step  |
// | pl:arts:{pub}:v:<id>     | STRING  | row version of the article's last list      | 10 min     |
// |                          |         | change applied                              |            |
// | pl:lv:{pub}              | STRING  | version of the published list indexes: up   | none       |
// |                          |         | with every change of them; below 2^40:      |            |
// |                          |         | unborn (a reader sets a random base)        |            |
// | pl:lv:{lN}               | STRING  | version of what a list page shows of the    | none       |
// |                          |         | shard's articles (fields, like and comment  |            |
// |                          |         | counts; not views); unborn as {pub}'s       |            |
// | pl:lvw:{lN}              | STRING  | version of the shard's articles' view       | none       |
// |                          |         | counts; unborn as {pub}'s                   |            |
// | pl:vd:{views}            | SET     | ids of articles with unflushed view counts  | none       |
// | pl:vf:{views}            | ZSET    | ids claimed by a flush, not yet confirmed   | none       |
// |                          |         | in SQL; score = the claim's seq             |            |
// | pl:vseq:{views}          | STRING  | last seq a views claim or stamp took:       | none       |
// |                          |         | max(INCR, the clock in µs)                  |            |
// | pl:vbm:{views}           | STRING  | a check saw this dataset; gone after        | none       |
// |                          |         | FLUSHALL                                    |            |
// | pl:pulse:{views}         | STRING  | INCR by every periodic flush pass: below a  | none       |
// |                          |         | value a process read, the dataset went back |            |
// | pl:vrm:{views}           | STRING  | "<owner> <lease end ms>": view counts are   | none       |
// |                          |         | recovering from a Redis that came back      |            |
// |                          |         | older                                       |            |
// | pl:lk:{lN}:<t>:s         | SET     | every user id liking target t (a<id>/c<id>) | none       |
// |                          |         | while ≤ 256 (small mode); member 0 = loaded |            |
// |                          |         | (intset)                                    |            |
// | pl:lb:{lN}:<t>           | STRING  | t was split into buckets (big mode)         | none       |
// | pl:lk:{lN}:<t>:<bucket>  | SET     | then: user ids liking t whose id >> 8 ==    | none       |
// |                          |         | bucket; member 0 = loaded (intset)          |            |
// | pl:lc:{lN}:<t>           | STRING  | like count of t                             | none       |
// | pl:lp:{lN}:<t>:<b>       | HASH    | pending like changes uid → state "1"/"0"; b | none       |
// |                          |         | is "s" (small mode) or the user-id bucket   |            |
// | pl:lf:{lN}:<t>:<b>       | HASH    | the same, claimed by a flush in progress,   | none       |
// |                          |         | plus field "#": the claim's seq (a change a |            |
// |                          |         | recovery merged in: "state:seq")            |            |
// | pl:ld:{lN}               | ZSET    | dirty buckets "<t>:<b>" by first change     | none       |
// |                          |         | (ms)                                        |            |
// | pl:lfi:{lN}              | SET     | claimed buckets not yet confirmed in SQL    | none       |
// | pl:lseq:{lN}             | STRING  | last seq a claim of the shard (or an        | none       |
// |                          |         | article or comment write in it) took:       |            |
// |                          |         | max(INCRBY 2, the clock in µs), even        |            |
// | pl:lep:{lN}              | STRING  | epoch: moves when unflushed changes leave   | none       |
// |                          |         | Redis (a done) or a count is dropped        |            |
// | pl:lrm:{lN}              | STRING  | the shard is recovering from a Redis that   | none       |
// |                          |         | came back older than SQL                    |            |
// | pl:lbm:{lN}              | STRING  | a check saw this dataset (value: when, in   | none       |
// |                          |         | µs); gone after FLUSHALL (an emptied Redis, |            |
// |                          |         | not an older one)                           |            |
// | pl:cpend:{lN}            | ZSET    | article and comment writes whose Redis step | none       |
// |                          |         | has not landed: "<a|c><article id>:<seq>",  |            |
// |                          |         | score = seq (redis/cache_marks.hpp)         |            |
// | pl:seq:comment           | STRING  | last comment sequence number (INCR); a      | none       |
// |                          |         | comment id is seq·256 + its article's shard |            |
// | pl:cm:{lN}:<cid>         | HASH    | a comment's fields, reply count and row     | none       |
// |                          |         | version                                     |            |
// | pl:cmeta:{lN}:<aid>      | HASH    | state of an article's comment cache:        | none       |
// |                          |         | building (owner, lease) or ready; the       |            |
// |                          |         | thread's version (birth b, changes v)       |            |
// | pl:live:events           | CHANNEL | pub/sub: live updates of every thread:      | —          |
// |                          |         | <aid> <seq> <kind> <id>[,<id>...]           |            |
// | pl:lvs:{lN}:<aid>        | STRING  | last live-update seq of a thread            | 1 day      |
// | pl:lvg:{lN}:<aid>        | STRING  | a thread's likes event was just published   | 1 s        |
// | pl:ct:{lN}:<aid>         | ZSET    | listed top-level comments, score = id       | none       |
// | pl:ch:{lN}:<aid>         | ZSET    | the same, score = like count                | none       |
// | pl:crt:{lN}:<cid>        | ZSET    | listed replies of a top-level comment,      | none       |
// |                          |         | score = id                                  |            |
// | pl:crh:{lN}:<cid>        | ZSET    | the same, score = like count                | none       |
// | pl:pg:<bucket>           | HASH    | normalised page URL → the article id of its | none       |
// |                          |         | thread (bucket = FNV-1a of the URL % 4096); |            |
// |                          |         | a cache of SQL's pages table                |            |
// | pl:guard:{<tag>}         | none    | never written: appended to a script's keys  | —          |
// |                          |         | on Redis Cluster, so that no script runs    |            |
// |                          |         | while its slot migrates                     |            |
// |                          |         | (cluster_slots.hpp)                         |            |
//   N = shard of the target's article (article id % 256): an article's cache hash, its likes,
//   its comments, their indexes and their likes share one hash slot with their shard's dirty
//   index, so a comment like moves the comment in its hot index in the same script, and an
//   article like checks the article is published in the same script. ZSET members are
//   19-digit zero-padded ids, so equal scores order by id.
//
// Single-key operations need no hash tag. Each script touches the keys of one hash slot
// (cluster-ready).
// Token hashes are BLAKE2b-256 of the bearer token, hex: Redis never holds a usable token.
#include <array>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "redis/client/cluster_slots.hpp"

namespace plaudit::redis::keys {

// Keys are built on every request (a like builds eight), so each is one allocation: the
// pieces are measured, then copied once. Chained `+` made a temporary per piece.
struct Num {
  explicit Num(int64_t v)
      : len(static_cast<size_t>(std::to_chars(buf, buf + sizeof buf, v).ptr - buf)) {}
  char buf[20]{};
  size_t len;
};
inline std::string_view Piece(std::string_view s) { return s; }
inline std::string_view Piece(const Num& n) { return {n.buf, n.len}; }
template <class... Parts>
std::string Cat(const Parts&... parts) {
  const std::string_view pieces[] = {Piece(parts)...};
  size_t size = 0;
  for (std::string_view p : pieces) {
    size += p.size();
  }
  std::string out(size, '\0');
  char* at = out.data();
  for (std::string_view p : pieces) {
    if (!p.empty()) {
      std::memcpy(at, p.data(), p.size());
    }
    at += p.size();
  }
  return out;
}

// The text of every key comes from a constant here, and kAllKeys (at the end) lists the
// shape of every key they build; keys_test.cpp checks both tables against it. The test also
// fails on any `pl:<name>` in the code under src/ (C++ or Lua) that begins no listed key, so
// a key built elsewhere, or a new constant left out of kAllKeys, cannot go unlisted.
// Every key of Plaudit's begins "pl:" (a SCAN MATCH glob of them all: redis/dataset.hpp).
inline constexpr std::string_view kEveryKey = "pl:*";
inline constexpr std::string_view kSessionPrefix = "pl:sess:";
inline constexpr std::string_view kUserSessionsPrefix = "pl:usess:";
// The pub/sub channel of session and account invalidations (SessionStore publishes on it,
// every plauditd's Subscriber listens).
inline constexpr std::string_view kSessionInvalidations = "pl:inval:sessions";
inline constexpr std::string_view kInvalidationAckPrefix = "pl:iack:";
inline constexpr std::string_view kRateLimitPrefix = "pl:rl:";
// A writer's recent comment body (redis/recent_bodies.hpp): pl:dup:<writer>:<digest>, the
// writer a user id, or "g" and the client address of a guest.
inline constexpr std::string_view kRecentBodyPrefix = "pl:dup:";
inline std::string RecentBody(std::string_view writer, std::string_view digest_hex) {
  return Cat(kRecentBodyPrefix, writer, ":", digest_hex);
}
// A one-time value already used (redis/once_keys.hpp): pl:once:<scope>:<digest>.
inline constexpr std::string_view kOncePrefix = "pl:once:";
inline std::string Once(std::string_view scope, std::string_view digest_hex) {
  return Cat(kOncePrefix, scope, ":", digest_hex);
}
// A sign-in with an OpenID provider or GitHub under way (redis/sign_in_states.hpp).
inline constexpr std::string_view kSignInPrefix = "pl:signin:";
inline std::string SignIn(std::string_view digest_hex) { return Cat(kSignInPrefix, digest_hex); }
inline std::string Session(std::string_view token_hash) { return Cat(kSessionPrefix, token_hash); }
inline std::string UserSessions(int64_t user_id) { return Cat(kUserSessionsPrefix, Num(user_id)); }
// Counts the plauditd processes that applied one invalidation (SessionStore::Publish).
inline std::string InvalidationAck(std::string_view nonce) {
  return Cat(kInvalidationAckPrefix, nonce);
}

inline constexpr std::string_view kArticleSeq = "pl:seq:article";
inline constexpr int kLikeShards = 256;
inline int LikeShard(int64_t article_id) { return static_cast<int>(article_id % kLikeShards); }
inline std::string LikeTag(int shard) { return Cat("{l", Num(shard), "}"); }
// "<prefix>{l<shard>}": a key of a like shard's own, and "<prefix>{l<shard>}:<rest...>": a
// key in the shard's hash slot.
inline std::string ShardKey(std::string_view prefix, int shard) {
  return Cat(prefix, "{l", Num(shard), "}");
}
template <class... Rest>
std::string InShard(std::string_view prefix, int shard, const Rest&... rest) {
  return Cat(prefix, "{l", Num(shard), "}:", rest...);
}
// An article's hash carries its like shard's tag, so like_set.lua can check in the same step
// that the article is published.
inline constexpr std::string_view kArticlePrefix = "pl:art:";
inline constexpr std::string_view kArticleBodyTail = ":body";
inline constexpr std::string_view kArticleFloorTail = ":floor";
inline std::string Article(int64_t id) { return InShard(kArticlePrefix, LikeShard(id), Num(id)); }
inline std::string ArticleBody(int64_t id) {
  return InShard(kArticlePrefix, LikeShard(id), Num(id), kArticleBodyTail);
}
inline std::string ArticleFloor(int64_t id) {
  return InShard(kArticlePrefix, LikeShard(id), Num(id), kArticleFloorTail);
}
inline constexpr std::string_view kPublishedListPrefix = "pl:arts:{pub}:";
inline constexpr std::string_view kPublishedListRebuildTail = ":new";
inline constexpr std::string_view kPublishedListLock = "pl:arts:{pub}:lock";
inline constexpr std::string_view kPublishedListVersionPrefix = "pl:arts:{pub}:v:";
// list: "all", "article" or "post".
inline std::string PublishedList(std::string_view list) { return Cat(kPublishedListPrefix, list); }
inline std::string PublishedListRebuild(std::string_view list) {
  return Cat(kPublishedListPrefix, list, kPublishedListRebuildTail);
}
inline std::string PublishedListVersion(int64_t id) {
  return Cat(kPublishedListVersionPrefix, Num(id));
}
// Versions of what a published list page shows (render/article_lists.cpp): the indexes' ({pub})
// and each shard's articles' ({lN}), raised in the same script as each change they cover.
inline constexpr std::string_view kListVersionPrefix = "pl:lv:";
inline constexpr std::string_view kPublishedListsVersion = "pl:lv:{pub}";
inline constexpr std::string_view kListViewsVersionPrefix = "pl:lvw:";
inline std::string ListVersion(int shard) { return ShardKey(kListVersionPrefix, shard); }
inline std::string ListViewsVersion(int shard) { return ShardKey(kListViewsVersionPrefix, shard); }
// The flusher's view claim (view_claim.lua) moves ids from the dirty set to the in-flight
// one atomically, so the three share the {views} tag.
inline constexpr std::string_view kViewsDirty = "pl:vd:{views}";
inline constexpr std::string_view kViewsInFlight = "pl:vf:{views}";
inline constexpr std::string_view kViewsSeq = "pl:vseq:{views}";
inline constexpr std::string_view kViewsBirthMark = "pl:vbm:{views}";
inline constexpr std::string_view kViewsRecoveryMark = "pl:vrm:{views}";
// Not a view key, but in their slot: on a cluster the pulse lives with the views check.
inline constexpr std::string_view kDatasetPulse = "pl:pulse:{views}";
// An article's hash or body (pl:art:{lN}:<id>[:body]), not the published lists (pl:arts:).
inline bool IsArticleCache(std::string_view key) {
  return key.starts_with(kArticlePrefix) && key.substr(kArticlePrefix.size(), 1) == "{";
}

inline constexpr int kLikeBucketShift = 8;  // 256 users (+ the loaded mark) per bucket: an intset
inline constexpr std::string_view kLikeSetPrefix = "pl:lk:";
// A target's small-mode set is its like set of member "<t>:s"; LikeStore and the like
// scripts append this tail themselves.
inline constexpr std::string_view kLikeSmallSetTail = ":s";
inline constexpr std::string_view kLikeBigPrefix = "pl:lb:";
inline constexpr std::string_view kLikeCountPrefix = "pl:lc:";
inline constexpr std::string_view kLikePendingPrefix = "pl:lp:";
inline constexpr std::string_view kLikeInFlightPrefix = "pl:lf:";
inline constexpr std::string_view kLikeDirtyPrefix = "pl:ld:";
inline constexpr std::string_view kLikeInFlightSetPrefix = "pl:lfi:";
inline constexpr std::string_view kLikeSeqPrefix = "pl:lseq:";
inline constexpr std::string_view kLikeEpochPrefix = "pl:lep:";
inline constexpr std::string_view kLikeRecoveryMarkPrefix = "pl:lrm:";
inline constexpr std::string_view kLikeBirthMarkPrefix = "pl:lbm:";
inline constexpr std::string_view kCacheMarksPrefix = "pl:cpend:";
inline std::string LikeBucket(int shard, std::string_view member) {
  return InShard(kLikeSetPrefix, shard, member);
}
inline std::string LikeBig(int shard, std::string_view target) {
  return InShard(kLikeBigPrefix, shard, target);
}
inline std::string LikeCount(int shard, std::string_view target) {
  return InShard(kLikeCountPrefix, shard, target);
}
inline std::string LikePending(int shard, std::string_view member) {
  return InShard(kLikePendingPrefix, shard, member);
}
inline std::string LikeInFlight(int shard, std::string_view member) {
  return InShard(kLikeInFlightPrefix, shard, member);
}
inline std::string LikeDirty(int shard) { return ShardKey(kLikeDirtyPrefix, shard); }
inline std::string LikeInFlightSet(int shard) { return ShardKey(kLikeInFlightSetPrefix, shard); }
inline std::string LikeSeq(int shard) { return ShardKey(kLikeSeqPrefix, shard); }
inline std::string LikeEpoch(int shard) { return ShardKey(kLikeEpochPrefix, shard); }
inline std::string LikeRecoveryMark(int shard) { return ShardKey(kLikeRecoveryMarkPrefix, shard); }
inline std::string LikeBirthMark(int shard) { return ShardKey(kLikeBirthMarkPrefix, shard); }
inline std::string CacheMarks(int shard) { return ShardKey(kCacheMarksPrefix, shard); }

// Comments: a comment id's low 8 bits are its article's shard (see CommentIdFor).
inline constexpr std::string_view kCommentSeq = "pl:seq:comment";
inline constexpr std::string_view kCommentPrefix = "pl:cm:";
inline constexpr std::string_view kCommentMetaPrefix = "pl:cmeta:";
inline constexpr std::string_view kCommentsByTimePrefix = "pl:ct:";
inline constexpr std::string_view kCommentsByLikesPrefix = "pl:ch:";
inline constexpr std::string_view kRepliesByTimePrefix = "pl:crt:";
inline constexpr std::string_view kRepliesByLikesPrefix = "pl:crh:";
inline int64_t CommentIdFor(int64_t seq, int64_t article_id) {
  return seq * kLikeShards + LikeShard(article_id);
}
inline std::string Comment(int64_t comment_id) {
  return InShard(kCommentPrefix, LikeShard(comment_id), Num(comment_id));
}
inline std::string CommentMeta(int64_t article_id) {
  return InShard(kCommentMetaPrefix, LikeShard(article_id), Num(article_id));
}
// Live updates (redis/live_channel.hpp): the one channel, and each thread's event sequence.
inline constexpr std::string_view kLiveEvents = "pl:live:events";
inline constexpr std::string_view kLiveSeqPrefix = "pl:lvs:";
inline std::string LiveSeq(int64_t article_id) {
  return InShard(kLiveSeqPrefix, LikeShard(article_id), Num(article_id));
}
inline constexpr std::string_view kLiveGatePrefix = "pl:lvg:";
inline std::string LiveGate(int64_t article_id) {
  return InShard(kLiveGatePrefix, LikeShard(article_id), Num(article_id));
}
inline std::string CommentsByTime(int64_t article_id) {
  return InShard(kCommentsByTimePrefix, LikeShard(article_id), Num(article_id));
}
inline std::string CommentsByLikes(int64_t article_id) {
  return InShard(kCommentsByLikesPrefix, LikeShard(article_id), Num(article_id));
}
inline std::string RepliesByTime(int64_t comment_id) {
  return InShard(kRepliesByTimePrefix, LikeShard(comment_id), Num(comment_id));
}
inline std::string RepliesByLikes(int64_t comment_id) {
  return InShard(kRepliesByLikesPrefix, LikeShard(comment_id), Num(comment_id));
}

// Page threads (redis/page_map.hpp): which article holds a page's thread, by its URL. Spread
// over buckets so that no hash grows with the number of pages of every site; a counts call
// reads its URLs' buckets in one pipeline. Only a cache: SQL's pages table decides.
inline constexpr std::string_view kPageMapPrefix = "pl:pg:";
inline constexpr uint64_t kPageMapBuckets = 4096;
inline std::string PageMap(std::string_view url) {
  uint64_t h = 14695981039346656037ull;  // FNV-1a: the same bucket in every process and build
  for (unsigned char c : url) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return Cat(kPageMapPrefix, Num(static_cast<int64_t>(h % kPageMapBuckets)));
}

// The shard of a key that only caches SQL's like and comment state (like sets, counts and
// marks, comment caches, the shard's list version: dropped, it is born again with a new
// value, so no list page rendered from the older state is served), or -1 for any other key
// (unflushed like changes, the shard's seq, epoch and indexes of the write-behind, article hashes,
// sessions, ...). Dropped when a shard recovers from a Redis that came back older than SQL
// (like_recover.lua). Article hashes hold unflushed view counts, so the views recovery drops those,
// under its lease (view_check.lua).
inline int CachedShardOf(std::string_view key) {
  static constexpr std::string_view kCaches[] = {
      kLikeSetPrefix,        kLikeBigPrefix,        kLikeCountPrefix,       kCommentPrefix,
      kCommentMetaPrefix,    kCommentsByTimePrefix, kCommentsByLikesPrefix, kRepliesByTimePrefix,
      kRepliesByLikesPrefix, kListVersionPrefix,    kListViewsVersionPrefix};
  for (std::string_view prefix : kCaches) {
    if (key.substr(0, prefix.size()) != prefix) {
      continue;
    }
    std::string_view rest = key.substr(prefix.size());
    if (rest.size() < 4 || rest[0] != '{' || rest[1] != 'l') {
      return -1;
    }
    int shard = 0;
    auto [end, ec] = std::from_chars(rest.data() + 2, rest.data() + rest.size(), shard);
    if (ec != std::errc{} || end == rest.data() + rest.size() || *end != '}') {
      return -1;
    }
    return shard >= 0 && shard < kLikeShards ? shard : -1;
  }
  return -1;
}

// Around the hashed part ("<tag>") of a script's first key: the cluster client's
// (client/cluster_slots.hpp, cluster::SlotGuardKey), listed here with every other key.
using cluster::kSlotGuardPrefix;
using cluster::kSlotGuardTail;

// A key as the tables above write it: `head`, the fixed text before its first variable part
// (the shard tag {lN} or an argument), and `tail`, the fixed text after its last one (empty
// for most); a fixed key is all head. One per row of the tables.
struct KeyShape {
  std::string_view head;
  std::string_view tail = {};
};
inline constexpr std::array kAllKeys{
    KeyShape{kSessionPrefix},
    KeyShape{kUserSessionsPrefix},
    KeyShape{kSessionInvalidations},
    KeyShape{kInvalidationAckPrefix},
    KeyShape{kRateLimitPrefix},
    KeyShape{kRecentBodyPrefix},
    KeyShape{kOncePrefix},
    KeyShape{kSignInPrefix},
    KeyShape{kArticleSeq},
    KeyShape{kArticlePrefix},
    KeyShape{kArticlePrefix, kArticleBodyTail},
    KeyShape{kArticlePrefix, kArticleFloorTail},
    KeyShape{kPublishedListPrefix},
    KeyShape{kPublishedListPrefix, kPublishedListRebuildTail},
    KeyShape{kPublishedListLock},
    KeyShape{kPublishedListVersionPrefix},
    KeyShape{kPublishedListsVersion},
    KeyShape{kListVersionPrefix},
    KeyShape{kListViewsVersionPrefix},
    KeyShape{kViewsDirty},
    KeyShape{kViewsInFlight},
    KeyShape{kViewsSeq},
    KeyShape{kViewsBirthMark},
    KeyShape{kViewsRecoveryMark},
    KeyShape{kDatasetPulse},
    KeyShape{kLikeSetPrefix, kLikeSmallSetTail},
    KeyShape{kLikeBigPrefix},
    KeyShape{kLikeSetPrefix},  // a big-mode bucket
    KeyShape{kLikeCountPrefix},
    KeyShape{kLikePendingPrefix},
    KeyShape{kLikeInFlightPrefix},
    KeyShape{kLikeDirtyPrefix},
    KeyShape{kLikeInFlightSetPrefix},
    KeyShape{kLikeSeqPrefix},
    KeyShape{kLikeEpochPrefix},
    KeyShape{kLikeRecoveryMarkPrefix},
    KeyShape{kLikeBirthMarkPrefix},
    KeyShape{kCacheMarksPrefix},
    KeyShape{kCommentSeq},
    KeyShape{kCommentPrefix},
    KeyShape{kCommentMetaPrefix},
    KeyShape{kLiveEvents},
    KeyShape{kLiveSeqPrefix},
    KeyShape{kLiveGatePrefix},
    KeyShape{kCommentsByTimePrefix},
    KeyShape{kCommentsByLikesPrefix},
    KeyShape{kRepliesByTimePrefix},
    KeyShape{kRepliesByLikesPrefix},
    KeyShape{kPageMapPrefix},
    KeyShape{kSlotGuardPrefix, kSlotGuardTail},
};

}  // namespace plaudit::redis::keys
