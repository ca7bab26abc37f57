#pragma once
// The like write-behind: claim → commit → done, per shard (docs/architecture.md, "Likes").
//
// A pass takes, per shard, a batch of dirty buckets: like_claim.lua moves their pending
// changes to an in-flight hash stamped with a new seq, atomically, so later changes go to a
// fresh one. The absolute states are written to SQL with that seq in one transaction (a row
// is only replaced by a newer seq; the counts follow the rows through triggers), then
// like_done.lua drops each in-flight hash that still carries its claim's stamp. A pass that
// dies anywhere leaves the in-flight hashes in place; the next pass, in this process or
// another, writes them again, which changes nothing already in SQL.
#include <functional>

#include "common/net.hpp"
#include "common/result.hpp"
#include "flush/fault_points.hpp"
#include "redis/like_store.hpp"
#include "sql/likes.hpp"

namespace plaudit::flush {

struct LikeFlushReport {
  int64_t changes = 0;  // like states written
  int64_t buckets = 0;  // buckets flushed
  int64_t backlog = 0;  // dirty + in-flight buckets seen at the start of the pass
  double oldest_age_seconds = 0;
};

class LikeFlush {
 public:
  LikeFlush(redis::LikeStore& store, sql::LikeTable& table, const FaultPoints& faults);

  // Every shard with a backlog (a full pass). The caller checked Redis against SQL on the
  // connection of `generation` (RedisCheck); a claim on any other connection is refused,
  // since a claim raises the shard seq above SQL's and would hide that a new Redis came back
  // older.
  Awaitable<Result<LikeFlushReport>> Flush(uint64_t generation);
  // The periodic pass's two halves (Flusher::Tick), with the check of the shards to claim
  // in between: which of the shards this process liked in, those a read found a backlog in
  // (until one finds none: a flush that failed, a backlog past one pass's bound) and
  // `sweep` have a backlog now (read only, 3 commands a shard); then those flushed. The
  // report counts every shard as last read, by a full pass or this one.
  Awaitable<Result<redis::ShardSet>> Backlogged(redis::ShardSet sweep);
  Awaitable<Result<LikeFlushReport>> FlushShards(uint64_t generation, redis::ShardSet shards);
  // One shard (also the first step of its recovery: its in-flight changes go to SQL first).
  Awaitable<Result<int64_t>> FlushShard(int shard, uint64_t generation);
  // Recomputes SQL counts from the rows, and drops their Redis counts to reload from the
  // repaired rows; then drops every Redis count that disagrees with SQL's rows plus the
  // changes not yet flushed (DropDriftedCounts). Returns how many counts it fixed in all.
  Awaitable<Result<int64_t>> Reconcile();
  // The second half of Reconcile: returns how many Redis counts it dropped.
  Awaitable<Result<int64_t>> DropDriftedCounts();

 private:
  // The backlog of `shards` read now, remembered for the report.
  Awaitable<Result<redis::ShardSet>> ReadBacklog(redis::ShardSet shards);

  redis::LikeStore& store_;
  sql::LikeTable& table_;
  const FaultPoints& faults_;
  // Each shard's backlog as last read (for the report's backlog and oldest change).
  std::vector<redis::LikeShardStat> last_ =
      std::vector<redis::LikeShardStat>(redis::ShardSet::kShards);
  // Shards the next periodic pass reads besides its sweep: those this process liked in, until
  // a read finds them without a backlog.
  redis::ShardSet carry_;
};

// A target's count as Redis must hold it: SQL's count (which equals its valid rows), with
// each user's newest change not yet in SQL counted against that user's row (`sql_liked`:
// those of the changes' users whose row is valid).
int64_t CountWithUnflushed(int64_t sql_count, const std::vector<int64_t>& sql_liked,
                           const std::vector<std::pair<int64_t, bool>>& changes);

// The SQL rows of one claim (exposed for its unit test).
std::vector<sql::LikeChange> ClaimedChanges(const std::vector<redis::ClaimedBucket>& buckets);

}  // namespace plaudit::flush
