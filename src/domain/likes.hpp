#pragma once
// Likes with exactly-once counts (invariant 1) and a crash-safe write-behind to SQL.
//
// A like or unlike is one Redis script (like_set.lua): it checks and sets the user's state,
// changes the count and records the change for the flusher, atomically, in one round trip.
// When the user's bucket or the count is not in Redis (never loaded, flushed away with
// FLUSHALL, a restart without data) the script refuses to guess: the service loads SQL's
// state (plus any changes not yet in SQL) and retries, so a repeat like never counts twice.
//
// The write-behind to SQL (claim → commit → done) is src/flush/like_flush.hpp's; a Redis
// that came back older than SQL is recovered by src/flush/redis_check.hpp before a like is
// served on it.
#include <functional>
#include <optional>
#include <vector>

#include "domain/user.hpp"
#include "redis/like_store.hpp"
#include "sql/likes.hpp"
#include "store/like_fill.hpp"
#include "store/redis_freshness.hpp"

namespace plaudit::domain {

struct LikeState {
  bool liked = false;
  int64_t count = 0;
};

class LikeService {
 public:
  LikeService(redis::LikeStore& store, sql::LikeTable& table);

  redis::LikeStore& store() { return store_; }

  // With `hot` (a comment), the comment's hot order moves in the same step.
  Awaitable<Result<LikeState>> Set(const Principal& who, const model::Target& target, bool like,
                                   const redis::HotOrder* hot = nullptr);
  // A like in one script call when the article's cache says it is published (so anyone may
  // see it) and, for a comment (with its `hot` order), the comment's cache says it is not
  // deleted. nullopt, with nothing changed, when the cache does not say so (a draft, or not
  // cached): the caller checks visibility itself and calls Set.
  Awaitable<Result<std::optional<LikeState>>> SetIfPublished(const Principal& who,
                                                             const model::Target& target, bool like,
                                                             const redis::HotOrder* hot = nullptr);
  // `user_id` 0: anonymous. A target unknown to SQL answers {false, 0}.
  Awaitable<Result<LikeState>> Get(int64_t user_id, const model::Target& target);
  // Many targets in one pipelined round trip (plus loads for misses).
  Awaitable<Result<std::vector<LikeState>>> GetMany(int64_t user_id,
                                                    std::vector<model::Target> targets);
  // What Redis holds of each target, in one round trip and without loading anything: nullopt
  // where the state or count is not cached. For callers that first learn which targets may be
  // seen (LikesOfPage), then GetMany only those they miss, so an unknown id costs no SQL.
  Awaitable<Result<std::vector<std::optional<LikeState>>>> ReadCached(
      int64_t user_id, std::vector<model::Target> targets);
  // Whether the user likes each target, without their counts (a signed-in page, whose
  // counts are the anonymous page's): one round trip, plus loads for states not in Redis.
  Awaitable<Result<std::vector<bool>>> Liked(int64_t user_id, std::vector<model::Target> targets);

 private:
  // GetMany's and Liked's read: `counts` false leaves each count 0 (not read).
  Awaitable<Result<std::vector<LikeState>>> Read(int64_t user_id,
                                                 std::vector<model::Target> targets, bool counts);

 public:
  // Before the first like on each connection to Redis, the check that recovers a Redis that
  // came back older than SQL (flush::RedisCheck), set once by the wiring; none: no check.
  // Likes go on while SQL is away on a connection checked before; on one not yet checked
  // (a reconnect, a start, a dataset that went back) they answer 503 until SQL can be read:
  // a Redis restored from an older snapshot during a database outage would otherwise take
  // likes that lose to SQL's newer rows when the check at last runs (the soak's double
  // fault, issue 50).
  void SetRedisFreshness(store::RedisFreshness* freshness) {
    freshness_ = freshness;
    fill_.SetRedisFreshness(freshness);
  }

 private:
  // kUnavailable unless the connection is checked, or a check runs now and reads SQL.
  Awaitable<Status> EnsureChecked();
  Awaitable<Result<std::optional<LikeState>>> SetImpl(const Principal& who,
                                                      const model::Target& target, bool like,
                                                      const redis::HotOrder* hot,
                                                      bool require_published);
  redis::LikeStore& store_;
  // Fills what Redis lacks from SQL (the user's bucket, the count); false when the target does
  // not exist (nothing is cached then).
  store::LikeFill fill_;
  store::RedisFreshness* freshness_ = nullptr;
};

}  // namespace plaudit::domain
