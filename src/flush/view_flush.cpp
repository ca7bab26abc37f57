#include "flush/view_flush.hpp"

namespace plaudit::flush {

ViewFlush::ViewFlush(redis::ArticleCache& cache, sql::ArticleTable& table,
                     const FaultPoints& faults)
    : cache_(cache), table_(table), faults_(faults) {}

Awaitable<Result<int64_t>> ViewFlush::Flush(uint64_t generation) {
  // Each round: claim a batch (what is in flight first), commit its counts, confirm it. A
  // round that found less than a full batch took everything dirty at that moment; views
  // that arrive while it writes wait for the next pass.
  constexpr int64_t kBatch = 1000;
  constexpr int kMaxRounds = 100;
  int64_t total = 0;
  for (int round = 0; round < kMaxRounds; ++round) {
    if (cache_.Generation() != generation) {
      co_return Fail(ErrorCode::kUnavailable, "redis reconnected during the flush pass");
    }
    PL_CO_TRY(auto claimed, co_await cache_.ClaimViews(kBatch));
    if (claimed.views.empty()) {
      break;
    }
    std::vector<std::pair<int64_t, int64_t>> counts;
    counts.reserve(claimed.views.size());
    for (const auto& v : claimed.views) {
      if (v.views) {
        counts.emplace_back(v.id, *v.views);
      }
    }
    if (faults_.view_after_claim && faults_.view_after_claim()) {
      co_return Fail(ErrorCode::kInternal, "views flush aborted after claim (test hook)");
    }
    const auto written = static_cast<int64_t>(counts.size());
    if (!counts.empty()) {
      // On failure the batch stays in flight; the next pass writes it.
      PL_CO_CHECK(co_await table_.SetViewCounts(std::move(counts), claimed.stamp));
    }
    PL_CO_CHECK(co_await cache_.ViewsDone(claimed.views));
    total += written;
    if (static_cast<int64_t>(claimed.views.size()) < kBatch) {
      break;
    }
  }
  co_return total;
}

}  // namespace plaudit::flush
