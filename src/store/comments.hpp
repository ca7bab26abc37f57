#pragma once
// The comments Redis holds, filled from SQL where it lacks them: the protocol that joins the
// comment cache and the comment table. One comment, or a page's misses in one query, is read
// from SQL and put back into the cache (versioned puts: a stale one never overwrites a newer
// comment); a whole thread is rebuilt under the rebuild lease (comment_rebuild.hpp). The
// rules of who may read what stay with domain::CommentService, which calls this.
#include <cstdint>
#include <optional>
#include <vector>

#include "common/result.hpp"
#include "model/comment.hpp"
#include "redis/comment_cache.hpp"
#include "sql/comments.hpp"
#include "store/comment_rebuild.hpp"

namespace plaudit::store {

class CommentRepository {
 public:
  CommentRepository(sql::CommentTable& table, redis::CommentCache& cache);

  // One comment: the cache's, else SQL's (then cached); nullopt when there is none.
  Awaitable<Result<std::optional<Comment>>> Find(int64_t id);
  // `cached` (the cache's answer for `ids`, in their order) with each miss read from SQL, all
  // in one query, and put back into the cache; still nullopt where SQL has none either.
  Awaitable<Result<std::vector<std::optional<Comment>>>> FillMisses(
      const std::vector<int64_t>& ids, std::vector<std::optional<Comment>> cached);
  // Returns once the article's thread is in the cache (CommentRebuilder::EnsureLoaded).
  Awaitable<Status> EnsureLoaded(int64_t article_id) { return rebuilder_.EnsureLoaded(article_id); }
  // For tests: how many thread rebuilds ran in this process.
  int rebuilds() const { return rebuilder_.rebuilds(); }

 private:
  sql::CommentTable& table_;
  redis::CommentCache& cache_;
  CommentRebuilder rebuilder_;
};

}  // namespace plaudit::store
