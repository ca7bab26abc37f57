#pragma once
// The write-behind flusher: moves what is counted in Redis (view counts, like states) to
// SQL every --flush-interval-ms (Tick), on demand (`plauditd flush`, tests: FlushNow), and
// once more at shutdown. Each pass checks Redis against SQL first (RedisCheck: every shard,
// or in a tick those it claims in), then runs the views and the likes protocols (ViewFlush,
// LikeFlush): claim → commit → done, so a pass that is repeated or interrupted changes
// nothing, and several instances may run it at once.
#include <chrono>
#include <functional>
#include <optional>

#include "common/net.hpp"
#include "common/result.hpp"
#include "common/single_flight.hpp"
#include "flush/like_flush.hpp"
#include "flush/redis_check.hpp"
#include "flush/view_flush.hpp"

namespace plaudit::flush {

struct FlushReport {
  int64_t views = 0;         // articles whose view count was written
  int64_t like_changes = 0;  // like states written
  int64_t like_backlog = 0;  // dirty like buckets when the pass began
  double oldest_unflushed_seconds = 0;
  int64_t repairs_pending = 0;  // cache repairs still failing (RepairPending)
};

class Flusher {
 public:
  // Each pass also retries the services' cache repairs that failed after committed writes.
  Flusher(const net::any_io_executor& ex, RedisCheck& check, ViewFlush& views, LikeFlush& likes,
          domain::ArticleService& articles, domain::CommentService& comments,
          std::chrono::milliseconds interval);
  // Called after each pass with its report (for /metrics).
  std::function<void(const FlushReport&)> on_report;

  // One full pass now: every shard read, checked and flushed (`plauditd flush`, tests).
  // Concurrent calls share the pass in progress.
  Awaitable<Result<FlushReport>> FlushNow();
  // The periodic pass: what this process wrote since the last pass, what that one left, and
  // kSweepShards more shards in turn (likes and cache marks a stopped process left), not all
  // 256 — an idle plauditd sent ~2,300 Redis commands a second sweeping them all (issue 47).
  // A full pass instead on a connection not yet checked, every kFullEvery, when the dataset's
  // pulse went back (RedisCheck::SameDataset) and when a claimed shard was found older.
  Awaitable<Result<FlushReport>> Tick();
  static constexpr int kSweepShards = 4;  // every shard swept in 64 passes
  static constexpr std::chrono::minutes kFullEvery{10};
  // The shutdown flush: waits for a pass in progress (it may have claimed its shards before
  // the last likes arrived), then runs passes until one starts with nothing left (at most
  // a few), so everything acknowledged before the call is in SQL when it returns.
  Awaitable<Result<FlushReport>> FlushAll();
  void Start();  // the periodic timer
  void Stop();

 private:
  void Arm();
  // The views' part of a pass: 0 while another process recovers them (it flushes them).
  Awaitable<Result<int64_t>> FlushViews(uint64_t generation);
  // The report of a pass, after the services' pending cache repairs.
  Awaitable<Result<FlushReport>> Finish(FlushReport report, const LikeFlushReport& likes);
  // The services' pending cache repairs, retried; how many are still pending.
  Awaitable<Result<int64_t>> RepairPending();

  RedisCheck& check_;
  ViewFlush& views_;
  LikeFlush& likes_;
  domain::ArticleService& articles_;
  domain::CommentService& comments_;
  std::chrono::milliseconds interval_;
  net::steady_timer timer_;
  bool stopped_ = true;
  SingleFlight<int, FlushReport> pass_;  // keys: kFullPass, kTickPass (flusher.cpp)
  int sweep_at_ = 0;                     // the next shard Tick sweeps
  std::chrono::steady_clock::time_point next_full_{};
};

}  // namespace plaudit::flush
