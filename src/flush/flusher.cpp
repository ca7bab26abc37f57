#include "flush/flusher.hpp"

#include <spdlog/spdlog.h>

#include "common/timed_pass.hpp"

namespace plaudit::flush {
namespace {

// FlushAll's bound: a pass ends a shard after 100 claims of 200 buckets, so a backlog
// beyond that takes more than one pass; the last one starts with none left.
constexpr int kMaxFinalPasses = 5;

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
    // that this Redis came back older. And check on every pass, not only on a new
    // connection: a FLUSHALL keeps the connection, and the check is what sets the emptied
    // dataset's birth marks and seqs again, without which a snapshot taken after the
    // FLUSHALL would later pass for an emptied Redis (fault test, seed 211). Likes and
    // views do not wait for it: the connection stays the checked one meanwhile.
    const uint64_t generation = check_.Generation();
    PL_CO_TRY(auto checked, co_await check_.Check());
    if (!checked || !check_.LikesChecked() || check_.Generation() != generation) {
      co_return Fail(ErrorCode::kUnavailable, "cannot check Redis against SQL");
    }
    // Views another process is recovering wait for it (it flushes them itself).
    if (check_.ViewsChecked()) {
      auto views = co_await views_.Flush(generation);
      PL_CO_CHECK(views);
      report.views = *views;
    }
    PL_CO_TRY(auto likes, co_await likes_.Flush(generation));
    report.like_changes = likes.changes;
    report.like_backlog = likes.backlog;
    report.oldest_unflushed_seconds = likes.oldest_age_seconds;
    PL_CO_TRY(report.repairs_pending, co_await RepairPending());
    if (on_report) {
      on_report(report);
    }
    co_return report;
  };
  co_return co_await pass_.Do(0, std::move(pass));
}

Awaitable<Result<FlushReport>> Flusher::FlushAll() {
  if (pass_.InFlight(0)) {
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
    auto r = co_await FlushNow();
    if (!r) {
      spdlog::warn("flush pass failed: {}", r.error().message);
    }
    Arm();
  });
}

}  // namespace plaudit::flush
