// CommentService's pages of threads and replies (List, Replies), each checked for its viewer,
// and their anonymous forms the page cache renders unchecked (PublicPage, PublicReplies).
#include <boost/asio/experimental/awaitable_operators.hpp>

#include "domain/comments.hpp"

namespace plaudit::domain {

using namespace boost::asio::experimental::awaitable_operators;

Awaitable<Result<PageResult<Comment>>> CommentService::List(const std::optional<Principal>& viewer,
                                                            int64_t article_id, CommentSort sort,
                                                            PageRequest page, int64_t replies) {
  PL_CO_TRY(const auto after, ParseCursor(sort, page));
  if (!articles_.Checked()) {
    PL_CO_CHECK(co_await articles_.EnsureChecked());
  }
  // The article check and the index page leave together: one round trip.
  auto article_op = articles_.Get(viewer, article_id, false, false);
  auto page_op = FetchPage(article_id, std::nullopt, sort, page, after);
  auto both = co_await (std::move(article_op) && std::move(page_op));
  auto& article = std::get<0>(both);
  PL_CO_CHECK(article);
  co_return co_await PageOf(viewer, article_id, std::nullopt, sort, std::move(page), replies,
                            std::move(std::get<1>(both)));
}

Awaitable<Result<PageResult<Comment>>> CommentService::PublicPage(int64_t article_id,
                                                                  CommentSort sort,
                                                                  PageRequest page,
                                                                  int64_t replies) {
  PL_CO_TRY(const auto after, ParseCursor(sort, page));
  auto first = co_await FetchPage(article_id, std::nullopt, sort, page, after);
  co_return co_await PageOf(std::nullopt, article_id, std::nullopt, sort, std::move(page), replies,
                            std::move(first));
}

Awaitable<Result<PageResult<Comment>>> CommentService::PublicReplies(int64_t article_id,
                                                                     int64_t comment_id,
                                                                     CommentSort sort,
                                                                     PageRequest page) {
  PL_CO_TRY(const auto after, ParseCursor(sort, page));
  auto first = co_await FetchPage(article_id, comment_id, sort, page, after);
  co_return co_await PageOf(std::nullopt, article_id, comment_id, sort, std::move(page), 0,
                            std::move(first));
}

Awaitable<Result<PageResult<Comment>>> CommentService::Replies(
    const std::optional<Principal>& viewer, int64_t comment_id, CommentSort sort,
    PageRequest page) {
  PL_CO_TRY(const auto after, ParseCursor(sort, page));
  PL_CO_TRY(const Comment c, co_await Visible(viewer, comment_id));
  // A reply has no replies of its own (they sit under its top-level comment): an empty page.
  auto first = co_await FetchPage(c.article_id, c.id, sort, page, after);
  co_return co_await PageOf(viewer, c.article_id, c.id, sort, std::move(page), 0, std::move(first));
}

}  // namespace plaudit::domain
