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
  std::function<Awaitable<Result<bool>>()> once = [this]() { return CheckOnce(); };
  co_return co_await checks_.Do(0, std::move(once));
}

Awaitable<Result<bool>> RedisCheck::Recheck() {
  likes_checked_ = views_checked_ = UINT64_MAX;
  check_failed_ms_ = 0;
  co_return co_await Check();
}

Awaitable<Result<bool>> RedisCheck::CheckOnce() {
  const uint64_t generation = Generation();
  // SQL first: Redis's seqs only grow, so read after SQL's they are at least as high unless
  // Redis lost writes (another flusher committing meanwhile cannot make a false alarm).
  auto seqs = co_await like_table_.ShardSeqs();
  Result<int64_t> view_seq = seqs ? co_await article_table_.ViewSeq() : Result<int64_t>(0);
  if (!seqs || !view_seq) {
    const auto& e = !seqs ? seqs.error() : view_seq.error();
    spdlog::warn("cannot read SQL to check Redis against it: {}", e.message);
    check_failed_ms_ = NowMs();
    co_return false;
  }
  check_failed_ms_ = 0;
  PL_CO_TRY(auto stale, co_await like_store_.CheckShards(*seqs));
  // An older like shard means an older dataset: its article hashes are older too, even if
  // no views flush ran since (their other fields, and the like shards' status checks).
  auto views = co_await article_cache_.CheckViews(*view_seq, !stale.empty(), owner_, kViewLeaseMs);
  PL_CO_CHECK(views);
  using ViewCheck = redis::ArticleCache::ViewCheck;
  if (*views != ViewCheck::kConsistent) {
    views_checked_ = UINT64_MAX;  // no view meanwhile
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
  co_await RepairMarks();
  likes_checked_ = generation;
  if (*views == ViewCheck::kRecover) {
    PL_CO_TRY(auto finished, co_await article_cache_.FinishViewRecovery(owner_));
    if (finished) {
      spdlog::info("views: recovered from SQL");
      views_checked_ = generation;
    }
  } else if (*views == ViewCheck::kConsistent) {
    views_checked_ = generation;
  }
  co_return true;
}

Awaitable<void> RedisCheck::RepairMarks() {
  // Failures are logged and left for the next check: a mark stays until its repair worked.
  auto marks = co_await marks_.All();
  if (!marks) {
    spdlog::warn("cannot read the cache marks: {}", marks.error().message);
    co_return;
  }
  size_t repaired = 0;
  std::set<std::string> settled;
  for (const auto& mark : *marks) {
    auto done = co_await RepairMark(mark, settled);
    if (!done) {
      spdlog::warn("cannot repair the cache of {} from SQL: {}", mark.member, done.error().message);
      continue;
    }
    if (!*done) {
      continue;  // its write is still in progress
    }
    ++repaired;
    if (auto st = co_await marks_.Unmark(mark); !st) {
      spdlog::warn("cannot clear cache mark {}: {}", mark.member, st.error().message);
    }
  }
  settled_ = std::move(settled);
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
                                               std::set<std::string>& settled_now) {
  auto settled = co_await articles_.MarkSettled(mark);
  if (!settled || !*settled) {
    co_return settled;
  }
  if (mark.age_us < kSettleUs && settled_.count(mark.member) == 0) {
    settled_now.insert(mark.member);  // its writer may be on its Redis step: next check
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
