#pragma once
// The views write-behind: claim → commit → done, as for likes (view_claim.lua). A view
// increments the article's hash and marks its id dirty; a pass moves dirty ids in flight
// with a seq, reads their counts, takes a stamp (view_stamp.lua), and commits the counts
// (raising, never lowering, SQL's) with the stamp in one transaction; view_done.lua then
// drops each id that still holds its claim's seq. A pass that dies anywhere leaves its ids
// in flight for the next, and passes may run at once in several processes.
#include <functional>

#include "common/net.hpp"
#include "common/result.hpp"
#include "flush/fault_points.hpp"
#include "redis/article_cache.hpp"
#include "sql/articles.hpp"

namespace plaudit::flush {

class ViewFlush {
 public:
  ViewFlush(redis::ArticleCache& cache, sql::ArticleTable& table, const FaultPoints& faults);

  // Returns how many articles' counts it wrote. The caller checked Redis against SQL on the
  // connection of `generation` (RedisCheck): a claim elsewhere is refused (it would raise
  // the views seq above SQL's and hide that a new Redis came back older).
  Awaitable<Result<int64_t>> Flush(uint64_t generation);

 private:
  redis::ArticleCache& cache_;
  sql::ArticleTable& table_;
  const FaultPoints& faults_;
};

}  // namespace plaudit::flush
