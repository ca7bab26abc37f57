#pragma once
// The write-behind flusher: moves counters that are taken in Redis (view counts now; like
// states and counts with the likes feature) to SQL, every --flush-interval-ms, on demand
// (`plauditd flush`, tests), and once more at shutdown. Passes write absolute values, so a
// pass that is repeated or interrupted changes nothing. Several instances may run it.
#include <chrono>
#include <functional>
#include <optional>

#include "common/net.hpp"
#include "common/result.hpp"
#include "domain/articles.hpp"
#include "domain/likes.hpp"

namespace plaudit::flush {

struct FlushReport {
  int64_t views = 0;         // articles whose view count was written
  int64_t like_changes = 0;  // like states written
  int64_t like_backlog = 0;  // dirty like buckets when the pass began
  double oldest_unflushed_seconds = 0;
  int64_t repairs_pending = 0;  // cache invalidations still failing (see `repair`)
};

class Flusher {
 public:
  Flusher(net::any_io_executor ex, domain::ArticleService& articles, domain::LikeService& likes,
          std::chrono::milliseconds interval);

  // Called in each pass to retry cache repairs that failed after committed writes (the
  // comment service's); returns how many are still pending. May be empty.
  std::function<Awaitable<Result<int64_t>>()> repair;
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

  domain::ArticleService& articles_;
  domain::LikeService& likes_;
  std::chrono::milliseconds interval_;
  net::steady_timer timer_;
  bool stopped_ = true;
  domain::SingleFlight<int, FlushReport> pass_;
};

}  // namespace plaudit::flush
