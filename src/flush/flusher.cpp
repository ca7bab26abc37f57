#include "flush/flusher.hpp"

#include <spdlog/spdlog.h>

#include "common/timed_pass.hpp"

namespace plaudit::flush {
namespace {

// FlushAll's bound: a pass ends a shard after 100 claims of 200 buckets, so a backlog
// beyond that takes more than one pass; the last one starts with none left.
constexpr int kMaxFinalPasses = 5;
// SingleFlight keys of the passes.
constexpr int kFullPass = 0;
constexpr int kTickPass = 1;

}  // namespace

Flusher::Flusher(const net::any_io_executor& ex, RedisCheck& check, ViewFlush& views,
                 LikeFlush& likes, domain::ArticleService& articles,
                 domain::CommentService& comments, std::chrono::milliseconds interval)
    : check_(check),
      views_(views),
      likes_(likes),
      articles_(articles),
      comments_(comments),
      interval_(interval),
      timer_(ex) {}

Awaitable<Result<int64_t>> Flusher::RepairPending() {
  // Both, even when the first fails: one's outage is no reason to leave the other's repairs.
  auto comments = co_await comments_.RepairPending();
  auto articles = co_await articles_.RepairPending();
  if (!comments) {
    co_return comments;
  }
  if (!articles) {
    co_return articles;
  }
  co_return *comments + *articles;
}

Awaitable<Result<FlushReport>> Flusher::FlushNow() {
  std::function<Awaitable<Result<FlushReport>>()> pass =
      [this]() -> Awaitable<Result<FlushReport>> {
    FlushReport report;
    // Never claim on an unchecked Redis: a claim raises a seq above SQL's, which would hide
    // that this Redis came back older. Likes and views do not wait for the check: the
    // connection stays the checked one meanwhile.
    const uint64_t generation = check_.Generation();
    // The pulse's baseline for the ticks after this pass (a dataset gone back is checked
    // here anyway).
    PL_CO_CHECK(co_await check_.SameDataset());
    PL_CO_TRY(auto checked, co_await check_.Check());
    if (!checked || !check_.LikesChecked() || check_.Generation() != generation) {
      co_return Fail(ErrorCode::kUnavailable, "cannot check Redis against SQL");
    }
    next_full_ = std::chrono::steady_clock::now() + kFullEvery;
    PL_CO_TRY(report.views, co_await FlushViews(generation));
    PL_CO_TRY(auto likes, co_await likes_.Flush(generation));
    co_return co_await Finish(report, likes);
  };
  co_return co_await pass_.Do(kFullPass, std::move(pass));
}

Awaitable<Result<FlushReport>> Flusher::Tick() {
  if (pass_.InFlight(kFullPass) || !check_.LikesChecked() ||
      std::chrono::steady_clock::now() >= next_full_) {
    co_return co_await FlushNow();
  }
  std::function<Awaitable<Result<FlushReport>>()> pass =
      [this]() -> Awaitable<Result<FlushReport>> {
    FlushReport report;
    const uint64_t generation = check_.Generation();
    // A FLUSHALL or an older file reloaded keeps the connection: the pulse tells, and every
    // shard is checked again (which also sets an emptied dataset's birth marks back).
    PL_CO_TRY(const bool same, co_await check_.SameDataset());
    if (!same) {
      co_return co_await FlushNow();
    }
    const redis::ShardSet sweep = redis::ShardSet::Range(sweep_at_, kSweepShards);
    // Read first (nothing claimed), then the shards to claim in are checked.
    PL_CO_TRY(auto backlogged, co_await likes_.Backlogged(sweep));
    PL_CO_TRY(auto checked, co_await check_.CheckSome(backlogged, sweep));
    if (!checked || check_.Generation() != generation) {
      co_return Fail(ErrorCode::kUnavailable, "cannot check Redis against SQL");
    }
    if (!check_.LikesChecked()) {
      // It found this dataset older than SQL: every shard is checked, as on a new connection.
      co_return co_await FlushNow();
    }
    PL_CO_TRY(report.views, co_await FlushViews(generation));
    PL_CO_TRY(auto likes, co_await likes_.FlushShards(generation, backlogged));
    // The slice moves on once this one was read and its marks looked at.
    sweep_at_ = (sweep_at_ + kSweepShards) % redis::ShardSet::kShards;
    co_return co_await Finish(report, likes);
  };
  co_return co_await pass_.Do(kTickPass, std::move(pass));
}

Awaitable<Result<int64_t>> Flusher::FlushViews(uint64_t generation) {
  // Views another process is recovering wait for it (it flushes them itself).
  if (!check_.ViewsChecked()) {
    co_return 0;
  }
  co_return co_await views_.Flush(generation);
}

Awaitable<Result<FlushReport>> Flusher::Finish(FlushReport report, const LikeFlushReport& likes) {
  report.like_changes = likes.changes;
  report.like_backlog = likes.backlog;
  report.oldest_unflushed_seconds = likes.oldest_age_seconds;
  PL_CO_TRY(report.repairs_pending, co_await RepairPending());
  if (on_report) {
    on_report(report);
  }
  co_return report;
}

Awaitable<Result<FlushReport>> Flusher::FlushAll() {
  if (pass_.InFlight(kTickPass)) {
    // Joined (the loader never runs: the pass is in flight), so that it ends before Redis
    // is let go; its claims are taken again below if it fails.
    std::function<Awaitable<Result<FlushReport>>()> none = []() -> Awaitable<Result<FlushReport>> {
      co_return Fail(ErrorCode::kInternal, "no periodic pass to join");
    };
    (void)co_await pass_.Do(kTickPass, std::move(none));
  }
  if (pass_.InFlight(kFullPass)) {
    auto joined = co_await FlushNow();
    if (!joined) {
      co_return joined;
    }
  }
  Result<FlushReport> last = co_await FlushNow();
  for (int pass = 1; pass < kMaxFinalPasses && last && last->like_backlog > 0; ++pass) {
    last = co_await FlushNow();
  }
  co_return last;
}

void Flusher::Start() {
  stopped_ = false;
  Arm();
}

void Flusher::Stop() {
  stopped_ = true;
  timer_.cancel();
}

void Flusher::Arm() {
  SpawnAfter(timer_, stopped_, interval_, [this]() -> Awaitable<void> {
    auto r = co_await Tick();
    if (!r) {
      spdlog::warn("flush pass failed: {}", r.error().message);
    }
    Arm();
  });
}

}  // namespace plaudit::flush
