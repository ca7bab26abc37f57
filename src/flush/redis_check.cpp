#include "flush/redis_check.hpp"

#include <spdlog/spdlog.h>

#include <map>

#include "common/random_id.hpp"
#include "common/time.hpp"

namespace plaudit::flush {
namespace {

// How long a views recovery may hold its mark before another process may take it over (a
// recoverer that died). It flushes the views and drops the article hashes (one SCAN).
constexpr int64_t kViewLeaseMs = 10'000;
// How long a view waits for another process's views recovery.
constexpr auto kViewWait = std::chrono::seconds(5);
constexpr auto kViewPoll = std::chrono::milliseconds(20);
// SingleFlight keys: a full check, and the periodic pass's (CheckSome).
constexpr int kFullCheck = 0;
constexpr int kSomeCheck = 1;

}  // namespace

RedisCheck::RedisCheck(net::any_io_executor ex, redis::LikeStore& like_store,
                       sql::LikeTable& like_table, redis::ArticleCache& article_cache,
                       sql::ArticleTable& article_table, redis::CacheMarks& marks, LikeFlush& likes,
                       ViewFlush& views, domain::ArticleService& articles,
                       domain::CommentService& comments)
    : ex_(std::move(ex)),
      like_store_(like_store),
      like_table_(like_table),
      article_cache_(article_cache),
      article_table_(article_table),
      marks_(marks),
      likes_(likes),
      views_(views),
      articles_(articles),
      comments_(comments),
      owner_(RandomHexId()) {}

Awaitable<Result<bool>> RedisCheck::Check() {
  if (check_failed_ms_ != 0 && NowMs() - check_failed_ms_ < 1000) {
    co_return false;
  }
  std::function<Awaitable<Result<bool>>()> once = [this]() {
    return CheckOnce(Scope{redis::ShardSet::All(), redis::ShardSet::All(), true});
  };
  co_return co_await checks_.Do(kFullCheck, std::move(once));
}

Awaitable<Result<bool>> RedisCheck::SameDataset() {
  const uint64_t generation = Generation();
  PL_CO_TRY(const int64_t pulse, co_await article_cache_.Pulse());
  // A connection's first beat has nothing to compare with (its own check covers it).
  const bool same = generation != pulse_generation_ || pulse > last_pulse_;
  last_pulse_ = pulse;
  pulse_generation_ = generation;
  if (!same && LikesChecked()) {
    spdlog::warn(
        "redis: the dataset went back under an open connection (FLUSHALL, an older file "
        "reloaded?): checking every shard against SQL again");
    likes_checked_ = views_checked_ = UINT64_MAX;  // likes, views and writes wait for it
  }
  co_return same;
}

Awaitable<Result<bool>> RedisCheck::CheckSome(redis::ShardSet likes, redis::ShardSet sweep) {
  if (!LikesChecked() || checks_.InFlight(kFullCheck)) {
    co_return co_await Check();  // a full one covers these
  }
  if (check_failed_ms_ != 0 && NowMs() - check_failed_ms_ < 1000) {
    co_return false;
  }
  Scope scope{likes, marks_.TakeTouched(), false};
  scope.marks |= marked_;
  scope.marks |= sweep;
  marked_ |= scope.marks;  // until looked at
  std::function<Awaitable<Result<bool>>()> once = [this, scope]() { return CheckOnce(scope); };
  co_return co_await checks_.Do(kSomeCheck, std::move(once));
}

Awaitable<Result<bool>> RedisCheck::Recheck() {
  likes_checked_ = views_checked_ = UINT64_MAX;
  check_failed_ms_ = 0;
  co_return co_await Check();
}

Awaitable<Result<bool>> RedisCheck::CheckOnce(Scope scope) {
  const uint64_t generation = Generation();
  // SQL first: Redis's seqs only grow, so read after SQL's they are at least as high unless
  // Redis lost writes (another flusher committing meanwhile cannot make a false alarm).
  Result<std::vector<int64_t>> seqs = std::vector<int64_t>{};
  if (!scope.likes.Empty()) {
    seqs = co_await like_table_.ShardSeqs();
  }
  // if/else, not ?: with a co_await in it: GCC 12 destroys such a temporary twice, and an
  // error's message then was freed twice while SQL was down (heap corruption, then crashes
  // far from here: the sql-restart fault, issue 50).
  Result<int64_t> view_seq = 0;
  if (seqs) {
    view_seq = co_await article_table_.ViewSeq();
  }
  if (!seqs || !view_seq) {
    const auto& e = !seqs ? seqs.error() : view_seq.error();
    spdlog::warn("cannot read SQL to check Redis against it: {}", e.message);
    check_failed_ms_ = NowMs();
    co_return false;
  }
  check_failed_ms_ = 0;
  PL_CO_TRY(auto stale, co_await like_store_.CheckShards(*seqs, scope.likes));
  // An older like shard means an older dataset: its article hashes are older too, even if
  // no views flush ran since (their other fields, and the like shards' status checks).
  auto views = co_await article_cache_.CheckViews(*view_seq, !stale.empty(), owner_, kViewLeaseMs);
  PL_CO_CHECK(views);
  using ViewCheck = redis::ArticleCache::ViewCheck;
  if (*views != ViewCheck::kConsistent) {
    views_checked_ = UINT64_MAX;  // no view meanwhile
  }
  if (!scope.full && (!stale.empty() || *views == ViewCheck::kRecover)) {
    // An older dataset under this connection (an older file reloaded): the shards this check
    // left out are older too. Likes, views and writes wait for a full check, as on a new
    // connection; the pass runs one after this.
    likes_checked_ = views_checked_ = UINT64_MAX;
  }
  if (!stale.empty()) {
    spdlog::warn(
        "likes: {} shard(s) of Redis are older than SQL (a restore from an older snapshot, a "
        "failover to a lagging replica?): recovering them",
        stale.size());
  }
  if (*views == ViewCheck::kRecover) {
    spdlog::warn(
        "views: Redis is older than SQL: flushing its view counts, then dropping the "
        "article caches (they refill from SQL)");
    // The older hashes' unflushed views go to SQL first (it keeps the higher count).
    PL_CO_CHECK(co_await views_.Flush(generation));
  }
  // The stale shards' in-flight changes (those the older Redis had pending are in flight
  // now) go to SQL, where each stays only if nothing newer is there; then their sets,
  // counts and caches go, and reload from SQL.
  for (int shard : stale) {
    PL_CO_CHECK(co_await likes_.FlushShard(shard, generation));
  }
  if (*views == ViewCheck::kRecover) {
    PL_CO_CHECK(co_await article_cache_.DropArticles());
  }
  if (!stale.empty()) {
    PL_CO_CHECK(co_await like_store_.FinishRecovery(stale));
    spdlog::info("likes: recovered {} shard(s) from SQL", stale.size());
  }
  // Before this connection counts as checked: reads and writes wait for the check on a new
  // one, and an older Redis's sequences would hand out ids SQL already used.
  if (!stale.empty() || *views == ViewCheck::kRecover) {
    PL_CO_CHECK(co_await ReseedIds());
    spdlog::info("resumed the article and comment id sequences above SQL's");
  }
  co_await RepairMarks(scope.marks);
  // A partial check vouches for no more than the full one did: it only ever clears these.
  if (scope.full) {
    likes_checked_ = generation;
  }
  const bool vouch = scope.full || likes_checked_ == generation;
  if (*views == ViewCheck::kRecover) {
    PL_CO_TRY(auto finished, co_await article_cache_.FinishViewRecovery(owner_));
    if (finished) {
      spdlog::info("views: recovered from SQL");
      if (vouch) {
        views_checked_ = generation;
      }
    }
  } else if (*views == ViewCheck::kConsistent && vouch) {
    views_checked_ = generation;
  }
  co_return true;
}

Awaitable<void> RedisCheck::RepairMarks(redis::ShardSet shards) {
  // Failures are logged and left for the next check: a mark stays until its repair worked.
  auto marks = co_await marks_.In(shards);
  if (!marks) {
    spdlog::warn("cannot read the cache marks: {}", marks.error().message);
    co_return;
  }
  size_t repaired = 0;
  std::map<std::string, int> settled;
  redis::ShardSet left;
  std::map<int, size_t> per_shard;
  for (const auto& mark : *marks) {
    if (++per_shard[mark.shard] == redis::CacheMarks::kReadPerShard) {
      left.Add(mark.shard);  // there may be more than one read takes: look again
    }
  }
  for (const auto& mark : *marks) {
    auto done = co_await RepairMark(mark, settled);
    if (!done) {
      spdlog::warn("cannot repair the cache of {} from SQL: {}", mark.member, done.error().message);
      left.Add(mark.shard);
      continue;
    }
    if (!*done) {
      left.Add(mark.shard);
      continue;  // its write is still in progress
    }
    ++repaired;
    if (auto st = co_await marks_.Unmark(mark); !st) {
      spdlog::warn("cannot clear cache mark {}: {}", mark.member, st.error().message);
      left.Add(mark.shard);
    }
  }
  // What the last check of these shards found settled is replaced; other shards' stays.
  std::erase_if(settled_, [&shards](const auto& kv) { return shards.Has(kv.second); });
  settled_.merge(settled);
  marked_ -= shards;
  marked_ |= left;
  if (repaired > 0) {
    spdlog::info("repaired {} article or comment cache(s) whose write's Redis step never landed",
                 repaired);
  }
}

Awaitable<Status> RedisCheck::ReloadArticles() {
  // Checked first, like any flush: what an older Redis holds is recovered, not dropped.
  PL_CO_TRY(auto checked, co_await Check());
  if (!checked) {
    co_return Fail(ErrorCode::kUnavailable, "cannot read SQL to check Redis");
  }
  // Other processes go on counting views meanwhile, so no hash is dropped while it holds a
  // view SQL lacks: the views are flushed, then each hash goes only if SQL has all of its
  // views (article_drop.lua); one counted since is kept for another round.
  PL_CO_TRY(auto ids, co_await article_cache_.CachedIds());
  std::vector<int64_t> left = std::move(ids);
  size_t dropped = 0;
  for (int round = 0; round < 5 && !left.empty(); ++round) {
    PL_CO_CHECK(co_await views_.Flush(Generation()));
    std::vector<int64_t> kept;
    constexpr size_t kBatch = 500;
    for (size_t at = 0; at < left.size(); at += kBatch) {
      std::vector<int64_t> batch(
          left.begin() + static_cast<std::ptrdiff_t>(at),
          left.begin() + static_cast<std::ptrdiff_t>(std::min(left.size(), at + kBatch)));
      PL_CO_TRY(auto rows, co_await article_table_.FindMany(batch));
      std::map<int64_t, int64_t> sql_views;
      for (const auto& row : rows) {
        sql_views[row.id] = row.view_count;
      }
      for (int64_t id : batch) {
        auto it = sql_views.find(id);
        if (it == sql_views.end()) {  // deleted in SQL: gone for good
          const std::vector<int64_t> no_comments;
          if (auto st = co_await article_cache_.Remove(id, no_comments); !st) {
            co_return st;
          }
          ++dropped;
          continue;
        }
        PL_CO_TRY(auto gone, co_await article_cache_.DropIfFlushed(id, it->second));
        if (gone) {
          ++dropped;
        } else {
          kept.push_back(id);
        }
      }
    }
    left = std::move(kept);
  }
  spdlog::info(
      "reloaded {} cached article(s) from SQL{}", dropped,
      left.empty() ? std::string() : fmt::format("; {} kept (views kept arriving)", left.size()));
  co_return Status{};
}

Awaitable<Status> RedisCheck::EnsureViews() {
  const auto deadline = std::chrono::steady_clock::now() + kViewWait;
  while (!ViewsChecked()) {
    PL_CO_TRY(auto checked, co_await Check());
    if (!checked || ViewsChecked()) {
      co_return Status{};
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      co_return Fail(ErrorCode::kUnavailable, "view counts are being recovered; retry");
    }
    net::steady_timer wait(ex_, kViewPoll);
    co_await wait.async_wait(net::as_tuple(net::use_awaitable));
  }
  co_return Status{};
}

Awaitable<Result<bool>> RedisCheck::RepairMark(const redis::CacheMark& mark,
                                               std::map<std::string, int>& settled_now) {
  auto settled = co_await articles_.MarkSettled(mark);
  if (!settled || !*settled) {
    co_return settled;
  }
  if (mark.age_us < kSettleUs && settled_.count(mark.member) == 0) {
    settled_now.emplace(mark.member, mark.shard);  // its writer may be on its Redis step
    co_return false;
  }
  Status st = Status{};
  if (mark.target.IsArticle()) {
    st = co_await articles_.Repair(mark.target.id);
  } else {
    st = co_await comments_.Repair(mark.target.id);
  }
  PL_CO_CHECK(st);
  co_return true;
}

Awaitable<Status> RedisCheck::ReseedIds() {
  PL_CO_CHECK(co_await articles_.ReseedIds());
  co_return co_await comments_.ReseedIds();
}

}  // namespace plaudit::flush
