#include "domain/likes.hpp"

#include <map>
#include <set>
#include <tuple>

#include "common/time.hpp"
#include <spdlog/spdlog.h>

#include "common/when_all.hpp"
#include "redis/keys.hpp"

namespace plaudit::domain {
namespace {

constexpr int64_t kClaimBatch = 200;      // buckets per claim
constexpr int kMaxClaimsPerShard = 100;  // bounds one pass's work per shard
constexpr int64_t kSmallLikers = 256;    // like_set.lua splits a target's set beyond this
constexpr int kLoadRounds = 8;           // reads of SQL per load while flushes move the epoch

using redis::LikerLoad;

// A target's count as Redis must hold it: SQL's (which equals SQL's valid rows) with every
// change not yet in SQL applied, each user's newest one counted against that user's row.
// SQL's count and rows come from one snapshot; `changes` were listed before SQL was read and
// cannot change while the count is missing (like_set.lua misses without it), and the epoch
// check in like_load.lua rejects the result if any of them left Redis meanwhile.
int64_t CountWithUnflushed(const sql::LikeCountState& sql,
                           const std::vector<std::pair<int64_t, bool>>& changes) {
  const std::set<int64_t> liked(sql.liked.begin(), sql.liked.end());
  int64_t count = *sql.count;
  for (const auto& [uid, now] : changes) {
    count += (now ? 1 : 0) - (liked.count(uid) != 0 ? 1 : 0);
  }
  return count;
}

std::pair<char, int64_t> ParseTarget(const std::string& name) {
  return {name.empty() ? 'a' : name[0], name.size() > 1 ? std::stoll(name.substr(1)) : 0};
}

// The SQL rows of one claim: each change as an absolute state with its hash's seq (a value
// written before the seq moved to the claim carries its own, "state:seq"). A user can show
// up twice for one target, in its small-mode hash and in a bucket's (a split came between
// the changes): one statement must not upsert a row twice (PostgreSQL refuses it), so only
// the newer, higher-seq change is kept.
std::vector<sql::LikeChange> ClaimedChanges(const std::vector<redis::ClaimedBucket>& buckets) {
  std::vector<sql::LikeChange> out;
  std::set<std::string> small_targets;
  bool twice = false;
  for (const auto& b : buckets) {
    if (b.bucket == "s") small_targets.insert(b.target);
  }
  for (const auto& b : buckets) {
    if (b.bucket != "s" && small_targets.count(b.target) != 0) twice = true;
    auto [type, id] = ParseTarget(b.target);
    for (const auto& [uid, value] : b.changes) {
      const auto colon = value.find(':');
      sql::LikeChange ch;
      ch.type = type;
      ch.target_id = id;
      ch.user_id = uid;
      ch.valid = value.compare(0, colon, "1") == 0;
      // A hash without a stamp was written before the seq moved to the claim: each value
      // carries its own.
      ch.seq = b.seq                           ? *b.seq
               : colon != std::string::npos ? std::stoll(value.substr(colon + 1))
                                            : 0;
      out.push_back(ch);
    }
  }
  if (!twice) return out;
  std::map<std::tuple<char, int64_t, int64_t>, size_t> newest;
  std::vector<sql::LikeChange> kept;
  for (const auto& ch : out) {
    auto [it, fresh] = newest.try_emplace({ch.type, ch.target_id, ch.user_id}, kept.size());
    if (fresh) {
      kept.push_back(ch);
    } else if (kept[it->second].seq < ch.seq) {
      kept[it->second] = ch;
    }
  }
  return kept;
}

}  // namespace

LikeService::LikeService(redis::LikeStore& store, sql::LikeTable& table)
    : store_(store), table_(table) {}

Awaitable<Status> LikeService::LoadMissing(const redis::LikeTarget& t, int64_t user_id,
                                           const redis::LikeReading& seen, bool* exists) {
  const bool need_bucket = seen.state == -1 && user_id > 0;
  const bool need_count = seen.count == -2;
  const int64_t bucket = redis::LikeBucketOf(user_id);
  std::string key = t.Name() + ":" + std::to_string(bucket) + (need_bucket ? "b" : "") +
                    (need_count ? "c" : "");
  std::function<Awaitable<Result<bool>>()> load = [this, t, user_id, need_bucket, need_count,
                                                   bucket]() -> Awaitable<Result<bool>> {
    // Redis first (the epoch, and for a count the changes not yet in SQL), then SQL, then
    // Redis again, which installs nothing if the epoch moved meanwhile: then SQL's answer
    // may lack changes whose last copy in Redis is gone (a flush committed and cleaned up in
    // between), so read both again. A few rounds at most: the epoch moves once per flush of
    // the shard.
    for (int round = 0; round < kLoadRounds; ++round) {
      auto unflushed = co_await store_.ReadUnflushed(t, need_count);
      if (!unflushed) co_return tl::unexpected(unflushed.error());
      std::vector<int64_t> users;
      for (const auto& [uid, liked] : unflushed->changes) users.push_back(uid);
      // The count decides existence: an unknown target is never cached.
      auto sql = co_await table_.CountState(t.type, t.id, std::move(users));
      if (!sql) co_return tl::unexpected(sql.error());
      if (!sql->count) co_return false;
      std::optional<LikerLoad> likers;
      if (need_bucket) {
        // Up to 256 likers: all of them, one set (small mode). More: the user's bucket only.
        auto all = co_await table_.Likers(t.type, t.id, 0, INT64_MAX, kSmallLikers + 1);
        if (!all) co_return tl::unexpected(all.error());
        if (static_cast<int64_t>(all->size()) <= kSmallLikers) {
          likers = LikerLoad{true, std::move(*all)};
        } else {
          const int64_t lo = bucket << redis::keys::kLikeBucketShift;
          const int64_t hi = ((bucket + 1) << redis::keys::kLikeBucketShift) - 1;
          auto rows = co_await table_.Likers(t.type, t.id, lo, hi, kSmallLikers + 1);
          if (!rows) co_return tl::unexpected(rows.error());
          likers = LikerLoad{false, std::move(*rows)};
        }
      }
      std::optional<int64_t> count;
      if (need_count) count = CountWithUnflushed(*sql, unflushed->changes);
      auto loaded = co_await store_.Load(t, user_id, likers, count, unflushed->epoch);
      if (!loaded) co_return tl::unexpected(loaded.error());
      if (*loaded) co_return true;
    }
    co_return Fail(ErrorCode::kUnavailable, "like state kept changing while loading; retry");
  };
  auto r = co_await loads_.Do(key, std::move(load));
  if (!r) co_return tl::unexpected(r.error());
  *exists = *r;
  co_return Status{};
}

Awaitable<Result<LikeState>> LikeService::Set(const Principal& who, const redis::LikeTarget& t,
                                              bool like, const std::string* hot_index,
                                              const std::string* hot_member) {
  auto r = co_await SetImpl(who, t, like, hot_index, hot_member, false);
  if (!r) co_return tl::unexpected(r.error());
  if (!*r) co_return Fail(ErrorCode::kInternal, "like refused without a condition");
  co_return **r;
}

// Not a coroutine: SetImpl's own awaitable, without a frame around it (the caller awaits it
// at once, while `who` and `article` are alive).
Awaitable<Result<std::optional<LikeState>>> LikeService::SetIfPublished(
    const Principal& who, const redis::LikeTarget& article, bool like) {
  return SetImpl(who, article, like, nullptr, nullptr, true);
}

Awaitable<Result<std::optional<LikeState>>> LikeService::SetImpl(
    const Principal& who, const redis::LikeTarget& t, bool like, const std::string* hot_index,
    const std::string* hot_member, bool require_published) {
  if (!Checked()) {
    if (auto st = co_await CheckRedis(); !st) co_return tl::unexpected(st.error());
  }
  for (int attempt = 0; attempt < 4; ++attempt) {
    auto r = co_await store_.Set(t, who.id, like, hot_index, hot_member, require_published);
    if (!r) co_return tl::unexpected(r.error());
    if (r->state == -3) co_return std::optional<LikeState>{};
    if (r->state >= 0) co_return std::optional<LikeState>(LikeState{r->state == 1, r->count});
    // A miss: learn what is missing, load it from SQL, and try again. Never count blind.
    auto seen = co_await store_.Get(t, who.id);
    if (!seen) co_return tl::unexpected(seen.error());
    bool exists = true;
    if (auto st = co_await LoadMissing(t, who.id, *seen, &exists); !st) {
      co_return tl::unexpected(st.error());
    }
    if (!exists) co_return Fail(ErrorCode::kNotFound, "no such target");
  }
  co_return Fail(ErrorCode::kUnavailable, "like state kept disappearing; retry");
}

Awaitable<Result<LikeState>> LikeService::Get(int64_t user_id, const redis::LikeTarget& t) {
  if (!Checked()) {
    if (auto st = co_await CheckRedis(); !st) co_return tl::unexpected(st.error());
  }
  for (int attempt = 0; attempt < 3; ++attempt) {
    auto r = co_await store_.Get(t, user_id);
    if (!r) co_return tl::unexpected(r.error());
    if (r->state >= 0 && r->count >= 0) co_return LikeState{r->state == 1, r->count};
    bool exists = true;
    if (auto st = co_await LoadMissing(t, user_id, *r, &exists); !st) {
      co_return tl::unexpected(st.error());
    }
    if (!exists) co_return LikeState{false, 0};
  }
  co_return Fail(ErrorCode::kUnavailable, "like state kept disappearing; retry");
}

Awaitable<Result<std::vector<LikeState>>> LikeService::GetMany(
    int64_t user_id, std::vector<redis::LikeTarget> targets) {
  if (!Checked()) {
    if (auto st = co_await CheckRedis(); !st) co_return tl::unexpected(st.error());
  }
  auto readings = co_await store_.GetMany(targets, user_id);
  if (!readings) co_return tl::unexpected(readings.error());
  std::vector<LikeState> out(targets.size());
  // Whatever is not loaded goes through Get (which loads it from SQL), all at once.
  std::vector<size_t> misses;
  std::vector<Awaitable<Result<LikeState>>> loads;
  for (size_t i = 0; i < targets.size(); ++i) {
    const auto& r = (*readings)[i];
    if (r.state >= 0 && r.count >= 0) {
      out[i] = LikeState{r.state == 1, r.count};
    } else {
      misses.push_back(i);
      loads.push_back(Get(user_id, targets[i]));
    }
  }
  auto loaded = co_await WhenAll(std::move(loads));
  for (size_t j = 0; j < misses.size(); ++j) {
    if (!loaded[j]) co_return tl::unexpected(loaded[j].error());
    out[misses[j]] = *loaded[j];
  }
  co_return out;
}

Awaitable<Result<int64_t>> LikeService::FlushShard(int shard) {
  int64_t written = 0;
  for (int round = 0; round < kMaxClaimsPerShard; ++round) {
    // Batches left in flight by an earlier pass first, then new ones.
    auto both = co_await store_.Members(shard, kClaimBatch);
    if (!both) co_return tl::unexpected(both.error());
    const bool resuming = !both->in_flight.empty();
    const std::vector<std::string>& members = resuming ? both->in_flight : both->dirty;
    if (members.empty()) break;
    // The last round: it takes every bucket dirty now. Changes that arrive while it writes
    // wait for the next pass (they are safe in Redis, and marked dirty): chasing them here,
    // under a steady like load, made a shard's pass a string of rounds of a few changes
    // each, every one a claim, a transaction and a done call.
    const bool last = !resuming && static_cast<int64_t>(members.size()) < kClaimBatch;
    auto claimed = co_await store_.Claim(shard, members);
    if (!claimed) co_return tl::unexpected(claimed.error());
    if (after_claim) co_await after_claim();
    std::vector<sql::LikeChange> changes = ClaimedChanges(*claimed);
    if (!changes.empty()) {
      auto applied = co_await table_.Apply(std::move(changes));
      if (!applied) co_return tl::unexpected(applied.error());
      written += *applied;
    }
    if (fail_after_commit && fail_after_commit()) {
      co_return Fail(ErrorCode::kInternal, "flush aborted after commit (test hook)");
    }
    if (!claimed->empty()) {
      if (auto st = co_await store_.Done(shard, *claimed); !st) co_return tl::unexpected(st.error());
    }
    if (last) break;
  }
  co_return written;
}

Awaitable<Result<bool>> LikeService::CheckRedis() {
  std::function<Awaitable<Result<bool>>()> check = [this]() -> Awaitable<Result<bool>> {
    const uint64_t generation = store_.Generation();
    // SQL first: Redis's shard seqs only grow, so read after SQL's they are at least as high
    // unless Redis lost writes (another flusher committing meanwhile cannot make a false
    // alarm).
    auto seqs = co_await table_.ShardSeqs();
    if (!seqs) {
      // Likes are write-behind so that they go on while SQL is away; so do they here, and
      // the check is tried again at most once a second.
      spdlog::warn("likes: cannot read SQL to check Redis against it: {}", seqs.error().message);
      check_failed_ms_ = NowMs();
      co_return false;
    }
    auto stale = co_await store_.CheckShards(*seqs);
    if (!stale) co_return tl::unexpected(stale.error());
    if (!stale->empty()) {
      spdlog::warn(
          "likes: {} shard(s) of Redis are older than SQL (a restore from an older snapshot, a "
          "failover to a lagging replica?): recovering them",
          stale->size());
      // Their in-flight changes (those the older Redis had pending are in flight now) go to
      // SQL first, where each stays only if nothing newer is there; then the stale sets,
      // counts and caches go, and reload from SQL.
      for (int shard : *stale) {
        auto n = co_await FlushShard(shard);
        if (!n) co_return tl::unexpected(n.error());
      }
      if (auto st = co_await store_.FinishRecovery(*stale); !st) co_return tl::unexpected(st.error());
      spdlog::info("likes: recovered {} shard(s) from SQL", stale->size());
    }
    checked_ = generation;
    co_return true;
  };
  if (check_failed_ms_ != 0 && NowMs() - check_failed_ms_ < 1000) co_return false;
  co_return co_await checks_.Do(0, std::move(check));
}

Awaitable<Result<LikeFlushReport>> LikeService::Flush() {
  // Never claim on an unchecked Redis: a claim raises the shard seq above SQL's, which would
  // hide that this Redis came back older. And check on every pass, not only on a new
  // connection: a FLUSHALL keeps the connection, and the check is what sets the emptied
  // shards' birth marks and seqs again, without which a snapshot taken after the FLUSHALL
  // would later pass for an emptied Redis (fault test, seed 211). Likes do not wait for it:
  // the connection stays the checked one meanwhile.
  auto checked = co_await CheckRedis();
  if (!checked) co_return tl::unexpected(checked.error());
  if (!*checked) co_return Fail(ErrorCode::kUnavailable, "cannot check Redis against SQL");
  LikeFlushReport report;
  auto stats = co_await store_.Stats();
  if (!stats) co_return tl::unexpected(stats.error());
  int64_t oldest = 0;
  for (const auto& s : *stats) {
    report.backlog += s.dirty + s.in_flight;
    if (s.oldest_ms && (oldest == 0 || *s.oldest_ms < oldest)) oldest = *s.oldest_ms;
  }
  if (oldest > 0) report.oldest_age_seconds = std::max<double>(0, (NowMs() - oldest) / 1000.0);
  for (const auto& s : *stats) {
    if (s.dirty == 0 && s.in_flight == 0) continue;
    auto n = co_await FlushShard(s.shard);
    if (!n) co_return tl::unexpected(n.error());
    report.changes += *n;
    report.buckets += s.dirty + s.in_flight;
  }
  co_return report;
}

Awaitable<Result<int64_t>> LikeService::Reconcile() {
  auto fixed = co_await table_.Reconcile();
  if (!fixed) co_return tl::unexpected(fixed.error());
  for (const auto& [type, id] : *fixed) {
    // The cached count came from the wrong value: let it reload from the repaired row.
    // A comment's id carries its article's shard, so it stands in for the article id.
    const redis::LikeTarget target{type, id, id};  // named: no braced list inside co_await
    if (auto st = co_await store_.DropCount(target); !st) co_return tl::unexpected(st.error());
  }
  co_return static_cast<int64_t>(fixed->size());
}

}  // namespace plaudit::domain
