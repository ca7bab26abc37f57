#pragma once
// The write-behind flusher: moves what is counted in Redis (view counts, like states) to
// SQL every --flush-interval-ms, on demand (`plauditd flush`, tests), and once more at
// shutdown. Each pass checks Redis against SQL first (RedisCheck), then runs the views and
// the likes protocols (ViewFlush, LikeFlush): claim → commit → done, so a pass that is
// repeated or interrupted changes nothing, and several instances may run it at once.
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

  // One pass now. Concurrent calls share the pass in progress.
  Awaitable<Result<FlushReport>> FlushNow();
  // The shutdown flush: waits for a pass in progress (it may have claimed its shards before
  // the last likes arrived), then runs passes until one starts with nothing left (at most
  // a few), so everything acknowledged before the call is in SQL when it returns.
  Awaitable<Result<FlushReport>> FlushAll();
  void Start();  // the periodic timer
  void Stop();

 private:
  void Arm();
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
  SingleFlight<int, FlushReport> pass_;
};

}  // namespace plaudit::flush
