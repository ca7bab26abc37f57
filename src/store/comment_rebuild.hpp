#pragma once
// Rebuilding an article's comment cache from SQL, when it is missing (FLUSHALL, restart, or
// invalidated after a write whose Redis step failed). One rebuilder across instances, under a
// Redis lease it renews after each chunk (comment_meta.lua), and single-flight within this
// process; a reader of a thread another instance rebuilds waits for it. The rows are copied
// in chunks, yielding between them, so a 100k comment rebuild interleaves with other
// requests instead of blocking them.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/result.hpp"
#include "common/single_flight.hpp"
#include "model/comment.hpp"
#include "redis/comment_cache.hpp"
#include "sql/comments.hpp"

namespace plaudit::store {

using model::Comment;

class CommentRebuilder {
 public:
  CommentRebuilder(sql::CommentTable& table, redis::CommentCache& cache);

  // Returns once the article's comment cache is ready, rebuilt by this call or by whoever
  // held the lease; kUnavailable when it did not get ready in time (~10 s).
  Awaitable<Status> EnsureLoaded(int64_t article_id);

  // For tests: how many rebuilds ran in this process.
  int rebuilds() const { return flights_.loads(); }

 private:
  // Takes the lease or waits for its holder, then copies; true once ready.
  Awaitable<Result<bool>> Rebuild(int64_t article_id);
  // Copies every comment of the article under our lease: how many, or nullopt when the lease
  // was lost midway (the copied puts were versioned: harmless).
  Awaitable<Result<std::optional<size_t>>> CopyFromSql(int64_t article_id);
  // One chunk of rows (those after id `after`) into the cache.
  Awaitable<Status> PutChunk(int64_t article_id, const std::vector<Comment>& chunk, int64_t after);

  sql::CommentTable& table_;
  redis::CommentCache& cache_;
  std::string owner_;  // the lease's name for this process
  SingleFlight<int64_t, bool> flights_;
};

}  // namespace plaudit::store
