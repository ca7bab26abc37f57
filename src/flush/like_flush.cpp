#include "flush/like_flush.hpp"

#include <spdlog/spdlog.h>

#include <map>
#include <set>
#include <tuple>

#include "common/time.hpp"

namespace plaudit::flush {
namespace {

constexpr int64_t kClaimBatch = 200;     // buckets per claim
constexpr int kMaxClaimsPerShard = 100;  // bounds one pass's work per shard
constexpr int64_t kDriftsLogged = 10;    // wrong Redis counts named one by one per reconcile

}  // namespace

// Each change as an absolute state with its seq: the change's own when it has one, else its
// hash's stamp. A value carries its own seq when it was written before the
// seq moved to the claim, or when a recovery merged a pending change into an in-flight hash
// (like_recover.lua): that change is newer than the hash's claim, and written with the
// claim's seq it would lose to the row that claim committed (seen: an unlike pending in an
// older snapshot, refused by the like its in-flight hash had already written).
//
// A user can show up twice for one target, in its small-mode hash and in a bucket's (a split
// came between the changes): one statement must not upsert a row twice (PostgreSQL refuses
// it), so only the newer change is kept: the higher seq, and on a tie (one claim stamps
// both) the bucket's, since a target only ever moves from small mode to buckets.
std::vector<sql::LikeChange> ClaimedChanges(const std::vector<redis::ClaimedBucket>& buckets) {
  std::vector<sql::LikeChange> out;
  std::vector<bool> from_small;
  std::set<std::pair<char, int64_t>> small_targets;
  bool twice = false;
  for (const auto& b : buckets) {
    if (b.small) {
      small_targets.insert({b.type, b.target_id});
    }
  }
  for (const auto& b : buckets) {
    if (!b.small && small_targets.count({b.type, b.target_id}) != 0) {
      twice = true;
    }
    for (const auto& change : b.changes) {
      sql::LikeChange ch;
      ch.type = b.type;
      ch.target_id = b.target_id;
      ch.user_id = change.user_id;
      ch.valid = change.liked;
      ch.seq = change.seq ? *change.seq : b.seq.value_or(0);
      out.push_back(ch);
      from_small.push_back(b.small);
    }
  }
  if (!twice) {
    return out;
  }
  std::map<std::tuple<char, int64_t, int64_t>, size_t> newest;
  std::vector<sql::LikeChange> kept;
  std::vector<bool> kept_small;
  for (size_t i = 0; i < out.size(); ++i) {
    const auto& ch = out[i];
    auto [it, fresh] = newest.try_emplace({ch.type, ch.target_id, ch.user_id}, kept.size());
    if (fresh) {
      kept.push_back(ch);
      kept_small.push_back(from_small[i]);
      continue;
    }
    const auto& old = kept[it->second];
    if (old.seq < ch.seq || (old.seq == ch.seq && kept_small[it->second] && !from_small[i])) {
      kept[it->second] = ch;
      kept_small[it->second] = from_small[i];
    }
  }
  return kept;
}

LikeFlush::LikeFlush(redis::LikeStore& store, sql::LikeTable& table, const FaultPoints& faults)
    : store_(store), table_(table), faults_(faults) {}

Awaitable<Result<LikeFlushReport>> LikeFlush::Flush(uint64_t generation) {
  carry_ |= store_.TakeTouched();  // every shard is read now; kept should the read fail
  PL_CO_TRY(auto backlogged, co_await ReadBacklog(redis::ShardSet::All()));
  co_return co_await FlushShards(generation, backlogged);
}

Awaitable<Result<redis::ShardSet>> LikeFlush::Backlogged(redis::ShardSet sweep) {
  carry_ |= store_.TakeTouched();  // kept until a read finds them empty
  redis::ShardSet shards = carry_;
  shards |= sweep;
  co_return co_await ReadBacklog(shards);
}

Awaitable<Result<redis::ShardSet>> LikeFlush::ReadBacklog(redis::ShardSet shards) {
  PL_CO_TRY(auto stats, co_await store_.Stats(shards));
  redis::ShardSet backlogged;
  for (const auto& s : stats) {
    last_[static_cast<size_t>(s.shard)] = s;
    if (s.dirty != 0 || s.in_flight != 0) {
      backlogged.Add(s.shard);
    }
  }
  // A shard with a backlog is read by every pass until one finds it empty (its flush may
  // fail, or stop at one pass's bound); only a read drops it, so a pass running beside
  // another cannot drop what the other added.
  for (int s : shards.List()) {
    if (backlogged.Has(s)) {
      carry_.Add(s);
    } else {
      carry_.Remove(s);
    }
  }
  co_return backlogged;
}

Awaitable<Result<LikeFlushReport>> LikeFlush::FlushShards(uint64_t generation,
                                                          redis::ShardSet shards) {
  LikeFlushReport report;
  int64_t oldest = 0;
  for (const auto& s : last_) {
    report.backlog += s.dirty + s.in_flight;
    if (s.oldest_ms && (oldest == 0 || *s.oldest_ms < oldest)) {
      oldest = *s.oldest_ms;
    }
  }
  if (oldest > 0) {
    report.oldest_age_seconds = std::max<double>(0, static_cast<double>(NowMs() - oldest) / 1000.0);
  }
  for (int shard : shards.List()) {
    const auto& s = last_[static_cast<size_t>(shard)];
    PL_CO_TRY(auto n, co_await FlushShard(shard, generation));
    report.changes += n;
    report.buckets += s.dirty + s.in_flight;
  }
  co_return report;
}

Awaitable<Result<int64_t>> LikeFlush::FlushShard(int shard, uint64_t generation) {
  int64_t written = 0;
  for (int round = 0; round < kMaxClaimsPerShard; ++round) {
    // Batches left in flight by an earlier pass first, then new ones.
    PL_CO_TRY(auto both, co_await store_.Members(shard, kClaimBatch));
    const bool resuming = !both.in_flight.empty();
    const std::vector<std::string>& members = resuming ? both.in_flight : both.dirty;
    if (members.empty()) {
      break;
    }
    // The last round: it takes every bucket dirty now. Changes that arrive while it writes
    // wait for the next pass (they are safe in Redis, and marked dirty): chasing them here,
    // under a steady like load, made a shard's pass a string of rounds of a few changes
    // each, every one a claim, a transaction and a done call.
    const bool last = !resuming && static_cast<int64_t>(members.size()) < kClaimBatch;
    // Redis reconnected since the check: this may be another dataset (the narrow window
    // between this compare and the claim's send is left; the next check catches an older
    // Redis whose seq the claim did not raise past SQL's).
    if (store_.Generation() != generation) {
      co_return Fail(ErrorCode::kUnavailable, "redis reconnected during the flush pass");
    }
    PL_CO_TRY(auto claimed, co_await store_.Claim(shard, members));
    if (faults_.like_after_claim) {
      co_await faults_.like_after_claim();
    }
    std::vector<sql::LikeChange> changes = ClaimedChanges(claimed);
    if (!changes.empty()) {
      PL_CO_TRY(auto applied, co_await table_.Apply(std::move(changes)));
      written += applied;
    }
    if (faults_.like_after_commit && faults_.like_after_commit()) {
      co_return Fail(ErrorCode::kInternal, "flush aborted after commit (test hook)");
    }
    if (!claimed.empty()) {
      PL_CO_CHECK(co_await store_.Done(shard, claimed));
    }
    if (last) {
      break;
    }
  }
  co_return written;
}

Awaitable<Result<int64_t>> LikeFlush::Reconcile() {
  PL_CO_TRY(auto fixed, co_await table_.Reconcile());
  for (const auto& [type, id] : fixed) {
    // The cached count came from the wrong value: let it reload from the repaired row.
    const model::Target target =  // named: no braced list inside co_await
        type == 'c' ? model::Target::Comment(id) : model::Target::Article(id);
    PL_CO_CHECK(co_await store_.DropCount(target));
  }
  PL_CO_TRY(auto dropped, co_await DropDriftedCounts());
  co_return static_cast<int64_t>(fixed.size()) + dropped;
}

// Each cached count against what a load would install now: SQL's count with every change
// not yet in SQL applied, each user's newest change against the user's row (as
// LikeService's load counts it; docs/architecture.md, "Likes"). The count and the changes
// are read in one step; SQL after them. A change made after that step, and flushed before
// SQL is read, makes a right count look wrong: dropping it costs a reload, nothing else
// (a drop moves the shard's epoch, so a load racing it reads SQL again). A wrong count
// survived every reconcile before (issue 41, item 9: 12 with 9 likers, after a hand edit).
Awaitable<Result<int64_t>> LikeFlush::DropDriftedCounts() {
  int64_t dropped = 0;
  std::function<Awaitable<Status>(std::vector<model::Target>)> check =
      [this, &dropped](std::vector<model::Target> targets) -> Awaitable<Status> {
    for (const model::Target& t : targets) {
      PL_CO_TRY(auto cached, co_await store_.ReadCachedCount(t));
      if (!cached.count) {
        continue;  // dropped meanwhile: it reloads when next used
      }
      std::vector<int64_t> users;
      users.reserve(cached.unflushed.changes.size());
      for (const auto& [uid, liked] : cached.unflushed.changes) {
        users.push_back(uid);
      }
      PL_CO_TRY(auto sql, co_await table_.CountState(t, std::move(users)));
      std::optional<int64_t> want;
      if (sql.count) {
        want = CountWithUnflushed(*sql.count, sql.liked, cached.unflushed.changes);
      }
      if (want == cached.count) {
        continue;
      }
      if (dropped < kDriftsLogged) {
        spdlog::warn(
            "reconcile: Redis counts {} likes of {} where SQL and the unflushed "
            "changes make {}; dropped, it reloads",
            *cached.count, redis::TargetName(t), want ? std::to_string(*want) : "no such target");
      }
      PL_CO_CHECK(co_await store_.DropCount(t));
      ++dropped;
    }
    co_return Status{};
  };
  PL_CO_CHECK(co_await store_.ScanCachedCounts(std::move(check)));
  if (dropped > 0) {
    spdlog::warn("reconcile: dropped {} Redis like counts that disagreed with SQL", dropped);
  }
  co_return dropped;
}

int64_t CountWithUnflushed(int64_t sql_count, const std::vector<int64_t>& sql_liked,
                           const std::vector<std::pair<int64_t, bool>>& changes) {
  const std::set<int64_t> liked(sql_liked.begin(), sql_liked.end());
  int64_t count = sql_count;
  for (const auto& [uid, now] : changes) {
    count += (now ? 1 : 0) - (liked.count(uid) != 0 ? 1 : 0);
  }
  return count;
}

}  // namespace plaudit::flush
