#pragma once
// Likes with exactly-once counts (invariant 1) and a crash-safe write-behind to SQL.
//
// A like or unlike is one Redis script (like_set.lua): it checks and sets the user's state,
// changes the count and records the change for the flusher, atomically, in one round trip.
// When the user's bucket or the count is not in Redis (never loaded, flushed away with
// FLUSHALL, a restart without data) the script refuses to guess: the service loads SQL's
// state (plus any changes not yet in SQL) and retries, so a repeat like never counts twice.
//
// Flushing (FlushPass): per shard, claim a batch of dirty buckets (their pending changes
// move to an in-flight hash atomically, so later changes go to a fresh one), write the
// absolute states and the counts as of the claim to SQL in one transaction (rows and counts
// carry a seq and are only replaced by newer ones), then drop the in-flight hashes. A pass
// that dies anywhere leaves the in-flight hashes in place; the next pass writes them again,
// which changes nothing that is already in SQL.
#include <functional>
#include <optional>
#include <vector>

#include "domain/single_flight.hpp"
#include "domain/user.hpp"
#include "redis/like_store.hpp"
#include "sql/likes.hpp"

namespace plaudit::domain {

struct LikeState {
  bool liked = false;
  int64_t count = 0;
};

struct LikeFlushReport {
  int64_t changes = 0;  // like states written
  int64_t buckets = 0;  // buckets flushed
  int64_t backlog = 0;  // dirty + in-flight buckets seen at the start of the pass
  double oldest_age_seconds = 0;
};

class LikeService {
 public:
  LikeService(redis::LikeStore& store, sql::LikeTable& table);

  Awaitable<Result<LikeState>> Set(const Principal& who, const redis::LikeTarget& target,
                                   bool like, const std::string* hot_index = nullptr,
                                   const std::string* hot_member = nullptr);
  // An article like in one script call when the article's cache says it is published (so
  // anyone may see it). nullopt, with nothing changed, when the cache does not say so (a
  // draft, or not cached): the caller checks visibility itself and calls Set.
  Awaitable<Result<std::optional<LikeState>>> SetIfPublished(const Principal& who,
                                                             const redis::LikeTarget& article,
                                                             bool like);
  // `user_id` 0: anonymous. A target unknown to SQL answers {false, 0}.
  Awaitable<Result<LikeState>> Get(int64_t user_id, const redis::LikeTarget& target);
  // Many targets in one pipelined round trip (plus loads for misses).
  Awaitable<Result<std::vector<LikeState>>> GetMany(int64_t user_id,
                                                    std::vector<redis::LikeTarget> targets);

  Awaitable<Result<LikeFlushReport>> Flush();
  // Recomputes SQL counts from the rows; returns how many were fixed.
  Awaitable<Result<int64_t>> Reconcile();

  // Before the first like, view or flush on each connection to Redis: shards of a Redis that
  // came back older than SQL are recovered first (docs/architecture.md, "After Redis comes
  // back older"). Checked() is an integer compare while the connection is the one checked.
  // CheckRedis() false: SQL could not be read, so nothing was checked (likes go on; flushes
  // wait).
  bool Checked() const { return checked_ == store_.Generation(); }
  Awaitable<Result<bool>> CheckRedis();

  // Test hook: called after a batch's SQL commit, before its Redis cleanup; returning true
  // aborts the pass there, as a crash would.
  std::function<bool()> fail_after_commit;
  // Test hook: awaited after each claim, before its SQL write (what else happens meanwhile).
  std::function<Awaitable<void>()> after_claim;

 private:
  Awaitable<Result<std::optional<LikeState>>> SetImpl(const Principal& who,
                                                      const redis::LikeTarget& target, bool like,
                                                      const std::string* hot_index,
                                                      const std::string* hot_member,
                                                      bool require_published);
  Awaitable<Status> LoadMissing(const redis::LikeTarget& t, int64_t user_id,
                                const redis::LikeReading& seen, bool* target_exists);
  Awaitable<Result<int64_t>> FlushShard(int shard);

  redis::LikeStore& store_;
  sql::LikeTable& table_;
  SingleFlight<std::string, bool> loads_;
  SingleFlight<int, bool> checks_;
  uint64_t checked_ = UINT64_MAX;  // the connection generation last checked
  int64_t check_failed_ms_ = 0;    // when the last check could not read SQL
};

}  // namespace plaudit::domain
