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

// One batch in (after, up_to]: renders and stores it; the last id read (0: none left).
Result<int64_t> RenderBatch(sql::Connection& c, int64_t after, int64_t up_to,
                            const text::MarkdownOptions& options, int64_t& rendered) {
  PL_TRY(auto rows, sql::CommentTable::FindUnrendered(c, after, up_to, kBatch));
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

// Runs `job` on the store's pool and waits for it (start-up: nothing else runs yet).
template <class T>
Result<T> RunNow(sql::Store& store, std::function<Result<T>(sql::Connection&)> job) {
  net::io_context ioc;
  auto fut = net::co_spawn(
      ioc, [&]() -> Awaitable<Result<T>> { co_return co_await store.Run<T>(job); },
      net::use_future);
  ioc.run();
  return fut.get();
}

}  // namespace

Result<int64_t> RenderUnrenderedComments(sql::Store& store, const text::MarkdownOptions& options) {
  // Only the comments after the last pass's end: a start does not read the whole table again.
  PL_TRY(const sql::CommentTable::RenderState state,
         RunNow<sql::CommentTable::RenderState>(
             store, [](sql::Connection& c) { return sql::CommentTable::ReadRenderState(c); }));
  if (state.last_id <= state.through) {
    return int64_t{0};
  }
  int64_t rendered = 0;
  int64_t after = state.through;
  while (true) {
    PL_TRY(const int64_t last, RunNow<int64_t>(store, [&](sql::Connection& c) {
             return RenderBatch(c, after, state.last_id, options, rendered);
           }));
    if (last == 0) {
      break;
    }
    after = last;
  }
  PL_CHECK(RunNow<bool>(store, [&](sql::Connection& c) -> Result<bool> {
    PL_CHECK(sql::CommentTable::SetRenderedThrough(c, state.last_id));
    return true;
  }));
  return rendered;
}

}  // namespace plaudit::domain
