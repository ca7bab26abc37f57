#include "domain/comment_text_backfill.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>
#include <functional>
#include <vector>

#include "common/net.hpp"
#include "sql/comments.hpp"

namespace plaudit::domain {
namespace {

constexpr int64_t kBatch = 500;

// One batch after `after`: renders and stores it; the last id read (0: none left).
Result<int64_t> RenderBatch(sql::Connection& c, int64_t after, const text::MarkdownOptions& options,
                            int64_t& rendered) {
  PL_TRY(auto rows, sql::CommentTable::FindUnrendered(c, after, kBatch));
  if (rows.empty()) {
    return int64_t{0};
  }
  for (auto& row : rows) {
    // A body the current rules refuse (a limit lowered since) keeps its html empty: readers
    // are shown its text.
    auto html = text::RenderCommentMarkdown(row.body, options);
    if (!html || html->html.empty()) {
      continue;
    }
    PL_CHECK(sql::CommentTable::SetHtml(c, row.id, sql::CommentText{row.body, html->html}));
    ++rendered;
  }
  return rows.back().id;
}

}  // namespace

Result<int64_t> RenderUnrenderedComments(sql::Store& store, const text::MarkdownOptions& options) {
  int64_t rendered = 0;
  int64_t after = 0;
  while (true) {
    net::io_context ioc;
    std::function<Result<int64_t>(sql::Connection&)> job =
        [&](sql::Connection& c) -> Result<int64_t> {
      return RenderBatch(c, after, options, rendered);
    };
    auto fut = net::co_spawn(
        ioc, [&]() -> Awaitable<Result<int64_t>> { co_return co_await store.Run<int64_t>(job); },
        net::use_future);
    ioc.run();
    PL_TRY(const int64_t last, fut.get());
    if (last == 0) {
      return rendered;
    }
    after = last;
  }
}

}  // namespace plaudit::domain
