#pragma once
// Like states and counts in Redis (see like_set.lua for the one atomic step, keys.hpp for
// the layout). A target's records are one intset while it has at most 256 likers, then
// buckets by user id (256 ids per SET, intset-encoded), so no key grows with a target's or
// a user's popularity and thinly liked targets cost about 5 bytes a like.
#include <array>
#include <boost/asio/any_completion_handler.hpp>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "common/result.hpp"
#include "model/target.hpp"
#include "redis/client/client.hpp"
#include "redis/shard_set.hpp"

namespace plaudit::redis {

// A target's name in its keys ("a<id>", "c<id>") and its shard. A comment id carries its
// article's shard (keys::CommentIdFor), so either id decides it.
std::string TargetName(const model::Target& t);
int TargetShard(const model::Target& t);

// Where a comment like also moves the comment: its hot order (the article's top-level one, or
// its parent's replies), in the same atomic step.
struct HotOrder {
  int64_t article_id = 0;
  std::optional<int64_t> parent_id;
};

int64_t LikeBucketOf(int64_t user_id);
// The user ids of a bucket, [first, last].
std::pair<int64_t, int64_t> LikeBucketUsers(int64_t bucket);

// What Redis holds of one user's like of a target. The scripts' reply codes (-1, -2,
// 'miss', 'unpublished') become these here, at the store's edge.
enum class LikeOf {
  kNo,
  kYes,
  kNotLoaded,     // the user's records of the target are not in Redis (load them from SQL)
  kNotPublished,  // Set with require_published: the article is not cached as published
};
struct LikeReading {
  LikeOf user = LikeOf::kNotLoaded;
  std::optional<int64_t> count;  // nullopt: the count is not in Redis

  bool Known() const { return user == LikeOf::kYes || user == LikeOf::kNo; }
  bool Complete() const { return Known() && count.has_value(); }
  bool liked() const { return user == LikeOf::kYes; }
};

// The two id sequences: article ids are a seq, comment ids seq·256 + their article's shard.
enum class IdKind { kArticle, kComment };

// Whether article or comment ids can exist, as Redis tells it (store/unknown_ids.hpp): the
// kind's sequence's last value (keys::kArticleSeq, kCommentSeq; nullopt when Redis does not
// hold it), and for each
// shard asked its birth mark (keys::LikeBirthMark: the time the check first marked this
// dataset; nullopt: emptied since), its seq (keys::LikeSeq: every cache mark and like claim of
// the shard raises it; nullopt while the shard has none) and whether a cache mark is pending
// there (a write in flight, or one whose Redis step never landed).
struct IdFrontier {
  struct Shard {
    std::optional<int64_t> birth;
    std::optional<int64_t> seq;
    bool marked = true;
  };
  std::optional<int64_t> seq;
  std::vector<Shard> shards;  // in the order asked
};

// A target's likers stay in one set (small mode) while there are at most this many:
// like_set.lua splits the set into buckets past it (its SCARD > 257: these and the loaded
// mark), and a load from SQL installs a target's likers whole only up to it.
inline constexpr int64_t kSmallModeLikers = 256;

// SQL's likers to load: every liker of the target (`all`, at most kSmallModeLikers: small
// mode) or those of the user's bucket (big mode).
struct LikerLoad {
  bool all = false;
  std::vector<int64_t> user_ids;
};

// One user's change in a claimed bucket: the state it sets, and the seq it carries itself
// (only in hashes written before the seq moved to the claim; nullopt: the bucket's).
struct ClaimedChange {
  int64_t user_id = 0;
  bool liked = false;
  std::optional<int64_t> seq;
};

struct ClaimedBucket {
  std::string member;  // the store's name for the bucket (Done takes it back)
  char type = 'a';     // the target: 'a' article, 'c' comment
  int64_t target_id = 0;
  bool small = false;          // the target's small-mode set (else one user-id bucket)
  std::optional<int64_t> seq;  // the seq like_claim.lua stamped the hash with
  std::vector<ClaimedChange> changes;
};

struct LikeShardStat {
  int shard = 0;
  int64_t dirty = 0;
  int64_t in_flight = 0;
  std::optional<int64_t> oldest_ms;  // first change time of the oldest dirty bucket
};

// Which targets were in big mode (split into buckets) when last liked here: like_set.lua then
// reads the user's bucket before the small set, one Redis call less (of 3 to 8 a like; a call
// costs ~1.5 µs of Redis's time under likes). Direct-mapped and lossy: a collision or a stale
// slot only costs that call back, never a wrong answer. Used by the I/O thread only.
class LikeModeHints {
 public:
  bool Big(const model::Target& t) const;
  void Record(const model::Target& t, bool big);

 private:
  static constexpr int kSlotBits = 12;  // 4096 targets, 32 KiB
  static uint64_t Tag(const model::Target& t);
  std::array<uint64_t, size_t{1} << kSlotBits> slots_{};
};

class LikeStore {
 public:
  explicit LikeStore(Client& client) : client_(client) {}

  // --redis-wait-replicas: Set answers a like only once `replicas` replicas of the primary
  // that ran it acknowledged it (Client::WaitReplicas on that connection, after the script),
  // and kUnavailable when fewer did within `timeout` or the connection changed in between
  // (the like is in the primary and may or may not survive a failover; a retry is safe).
  // 0 (the default): answered as soon as the primary has it.
  void SetReplicaWait(int replicas, std::chrono::milliseconds timeout) {
    wait_replicas_ = replicas;
    wait_timeout_ = timeout;
  }

  // The atomic like/unlike. With `hot` (a comment target), also sets the comment's score in
  // that hot order to the new count and raises its thread's version, in the same step. With
  // `require_published`, changes nothing and answers kNotPublished unless the article's
  // cache hash says it is published (and, for a comment, its cache hash says it is not
  // deleted): a like then needs no separate visibility check.
  // While a call for the same target is in flight, likes of it wait and then go together in
  // one like_set.lua call, each answered as if alone (like_set.cpp).
  Awaitable<Result<LikeReading>> Set(const model::Target& t, int64_t user_id, bool like,
                                     const HotOrder* hot = nullptr, bool require_published = false);
  Awaitable<Result<LikeReading>> Get(const model::Target& t, int64_t user_id);
  // Many targets in one round trip, in target order: one script call when they share a
  // shard (a comment page), else a pipeline. Without `counts`, the user's states alone (a
  // signed-in page's liked flags; anonymous: nothing to read), every count nullopt.
  Awaitable<Result<std::vector<LikeReading>>> GetMany(const std::vector<model::Target>& targets,
                                                      int64_t user_id, bool counts = true);
  // IdFrontier of `shards`: one pipelined round trip, one command per key (cluster-safe).
  Awaitable<Result<IdFrontier>> ReadIdFrontier(IdKind kind, const std::vector<int>& shards);
  // What a load from SQL must read first: the shard's epoch and, with `changes`, every
  // user's newest change of the target not yet confirmed in SQL (uid, liked).
  struct Unflushed {
    std::string epoch;
    std::vector<std::pair<int64_t, bool>> changes;
  };
  Awaitable<Result<Unflushed>> ReadUnflushed(const model::Target& t, bool changes);
  // Installs SQL's likers (when given) and/or the count unless already there, replaying the
  // changes not yet in SQL on top. kRetry (nothing changed): the epoch moved since `epoch`
  // was read, so SQL must be read again. kUnchecked (nothing changed): no check has seen
  // this dataset since it was emptied; check (flush::RedisCheck), then load again.
  enum class LoadOutcome { kInstalled, kRetry, kUnchecked };
  Awaitable<Result<LoadOutcome>> Load(const model::Target& t, int64_t user_id,
                                      const std::optional<LikerLoad>& likers,
                                      std::optional<int64_t> count, const std::string& epoch);
  // Forgets the cached count (after reconciliation fixed SQL's); moves the epoch.
  Awaitable<Status> DropCount(const model::Target& t);
  // For reconcile (issue 41, item 9): the cached count (nullopt: none) and what
  // ReadUnflushed(t, true) reads, in one atomic step, so that each change is either in the
  // count and listed, or in neither.
  struct CachedCount {
    std::optional<int64_t> count;
    Unflushed unflushed;
  };
  Awaitable<Result<CachedCount>> ReadCachedCount(const model::Target& t);
  // Calls `each` with every batch of targets whose count Redis caches (SCAN on every primary;
  // a target may come twice).
  Awaitable<Status> ScanCachedCounts(
      std::function<Awaitable<Status>(std::vector<model::Target>)> each);

  // Flusher side.
  // The backlog of each of `shards` (3 commands a shard, one round trip).
  Awaitable<Result<std::vector<LikeShardStat>>> Stats(ShardSet shards = ShardSet::All());
  // The shards a like call was answered on since the last call (the pass that reads them
  // flushes what those likes left dirty; a like answered after that is in the next set).
  ShardSet TakeTouched() { return touched_.Take(); }
  // Up to `max` in-flight buckets of the shard (left by an earlier pass) and up to `max`
  // dirty ones, oldest first: one round trip.
  struct ShardMembers {
    std::vector<std::string> in_flight;
    std::vector<std::string> dirty;
  };
  Awaitable<Result<ShardMembers>> Members(int shard, int64_t max);
  Awaitable<Result<std::vector<ClaimedBucket>>> Claim(int shard,
                                                      const std::vector<std::string>& members);
  // One claimed hash as like_claim.lua returns it (member "a42:s", its field/value pairs: a
  // '#' stamp, then uid → "1"/"0", or "1:<seq>" in hashes from before the stamp) as a bucket.
  static Result<ClaimedBucket> DecodeClaim(
      std::string member, const std::vector<std::pair<std::string, std::string>>& fields);
  // Deletes the in-flight hashes of these claimed buckets that still carry the stamp their
  // claim read (another flusher may have finished them and a newer claim taken the name).
  Awaitable<Status> Done(int shard, const std::vector<ClaimedBucket>& claimed);

  // After Redis came back older than SQL (docs/architecture.md). The connection's
  // generation: it changes whenever the client reconnects, when such a Redis can appear.
  uint64_t Generation() const { return client_.stats().reconnects; }
  // Checks every shard's seq against SQL's highest committed seqs (one per shard) and starts
  // the recovery of those behind (like_recover.lua); returns the shards to recover, which
  // includes those another process began to recover and has not finished.
  Awaitable<Result<std::vector<int>>> CheckShards(const std::vector<int64_t>& sql_seqs,
                                                  ShardSet shards = ShardSet::All());
  // Ends the recovery of these shards once their in-flight changes are in SQL: drops every
  // key that caches SQL's state in them (SCAN, once over the keyspace) and the published
  // lists, then clears their marks.
  Awaitable<Status> FinishRecovery(const std::vector<int>& shards);

  Client& client() { return client_; }

 private:
  // What the likes of one like_set.lua call share: the target and the script's kind.
  struct SetCall {
    model::Target target;
    std::string small;  // the target's small-mode set key (KEYS[1])
    // KEYS[2…]: the hot index and thread meta (+ the article's and comment's cache hashes),
    // or the article's cache hash, or none
    std::vector<std::string> extra_keys;
    std::string kind;  // "", "hot", "hotpub", "hotpubr" or "pub" (like_set.lua)
    std::string hot_member;
  };
  struct QueuedLike {
    int64_t user_id = 0;
    bool like = false;
    net::any_completion_handler<void(Result<LikeReading>)> done;
  };
  using Likes = std::vector<std::pair<int64_t, bool>>;  // (user id, like) in order
  using LikeSpan = std::span<const std::pair<int64_t, bool>>;

  // Which likes may share a like_set.lua call: one target, one kind of call. Numbers, not
  // the key's text: an idle target's like makes and drops its entry, and a string key cost
  // an allocation, a hash over ~20 bytes and a copy for it.
  struct QueueKey {
    int64_t id = 0;
    model::TargetKind type = model::TargetKind::kArticle;
    char kind = 0;  // 0, 'h' (hot), 'q' (hotpub), 'p' (pub)
    bool operator==(const QueueKey&) const = default;
  };
  struct QueueKeyHash {
    size_t operator()(const QueueKey& k) const noexcept {
      return std::hash<int64_t>{}(k.id) ^ (static_cast<size_t>(k.type) << 56) ^
             (static_cast<size_t>(k.kind) << 48);
    }
  };
  // A target with like_set.lua calls in flight.
  struct Queue {
    int in_flight = 0;                // calls sent, not yet answered
    bool flush_posted = false;        // `waiting` goes at the end of this loop turn
    std::vector<QueuedLike> waiting;  // arrived while a call was in flight, in order
  };

  // like_set.lua's arguments for these likes of `call`'s target, and its answer read back
  // (plain functions: a single like awaits the call itself, one coroutine frame fewer).
  void SetArguments(const SetCall& call, LikeSpan likes, std::vector<std::string>& keys,
                    std::vector<std::string>& args);
  Result<std::vector<LikeReading>> ReadSet(const SetCall& call, size_t likes,
                                           const Result<Reply>& r);
  Awaitable<Result<std::vector<LikeReading>>> SendSet(const SetCall& call, LikeSpan likes);
  // At the end of the loop turn in which likes queued: sends them as one call.
  void SendQueued(const QueueKey& queue, SetCall call, const net::any_io_executor& ex);
  Awaitable<void> SendBatch(QueueKey queue, SetCall call, std::vector<QueuedLike> batch,
                            net::any_io_executor ex);
  // A call for `queue` was answered: forgets the queue once nothing is in flight or waiting.
  void Answered(const QueueKey& queue);
  // With SetReplicaWait: `reading` once enough replicas have the writes of the connection
  // `key` lives on, which has been the same since `generation` (stats().reconnects).
  Awaitable<Result<LikeReading>> Replicated(std::string key, uint64_t generation,
                                            LikeReading reading);

  Client& client_;
  int wait_replicas_ = 0;
  std::chrono::milliseconds wait_timeout_{250};
  LikeModeHints hints_;
  // Targets with a call in flight, and the likes that arrived meanwhile. I/O thread only.
  std::unordered_map<QueueKey, Queue, QueueKeyHash> queued_;
  ShardSet touched_;  // TakeTouched; I/O thread only
};

}  // namespace plaudit::redis
