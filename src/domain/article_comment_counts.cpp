// The article's cached comment count, which comment writes keep (CommentService): SQL keeps
// the count exact in each comment write's transaction, and its version orders the cache's
// updates.
#include "domain/articles.hpp"

namespace plaudit::domain {

Awaitable<Status> ArticleService::SetCommentCount(int64_t id, int64_t count, int64_t ver) {
  co_return co_await cache_.SetCommentCount(id, count, ver);
}

Awaitable<Status> ArticleService::RefreshCommentCount(int64_t id) {
  PL_CO_TRY(auto row, co_await table_.Find(id, /*with_content=*/false));
  if (!row) {
    co_return Status{};
  }
  co_return co_await cache_.SetCommentCount(id, row->comment_count, row->comment_ver);
}

}  // namespace plaudit::domain
