// CommentService's page versions (PageVersion, RepliesVersion), which the page cache keys on,
// and the single-flight read of an article and its thread's version behind them (ReadPage).
#include <boost/asio/experimental/awaitable_operators.hpp>

#include "common/random_id.hpp"
#include "domain/comment_pages_detail.hpp"
#include "domain/comments.hpp"

namespace plaudit::domain {

using namespace boost::asio::experimental::awaitable_operators;
using detail::Moderates;
using detail::Wrote;

Awaitable<Result<CommentService::PageRead>> CommentService::ReadPage(int64_t article_id) {
  // Who may see the article and the thread's version: two HMGETs, one round trip. The
  // generation is read first: a reconnect between it and the reads makes the version one
  // that no page was cached under (a Redis that came back older may repeat a version).
  std::function<Awaitable<Result<PageRead>>()> load =
      [this, article_id]() -> Awaitable<Result<PageRead>> {
    PageRead read;
    read.generation = cache_.Generation();
    auto article_op = articles_.Peek(article_id);
    auto version_op = cache_.ThreadVersion(article_id);
    auto both = co_await (std::move(article_op) && std::move(version_op));
    auto& article = std::get<0>(both);
    PL_CO_CHECK(article);
    auto& version = std::get<1>(both);
    PL_CO_CHECK(version);
    read.article = std::move(*article);
    read.version = std::move(version->version);
    read.unborn = version->unborn;
    co_return read;
  };
  co_return co_await page_reads_.Do(article_id, std::move(load));
}

Awaitable<Result<std::optional<CommentService::ThreadVersion>>> CommentService::PageVersion(
    const std::optional<Principal>& viewer, int64_t article_id) {
  using Version = std::optional<ThreadVersion>;
  if (!articles_.Checked()) {
    PL_CO_CHECK(co_await articles_.EnsureChecked());
  }
  // Read after this request arrived (page_reads_ never hands it an earlier read), so it
  // names every change acknowledged before.
  PL_CO_TRY(PageRead read, co_await ReadPage(article_id));
  if (!CanSee(read.article, viewer)) {
    co_return Fail(ErrorCode::kNotFound, "no such article");
  }
  if (read.unborn) {
    // A cache an earlier release built: its version starts now, and pages are kept from the
    // next read on (this one is rendered uncached).
    PL_CO_CHECK(co_await cache_.BearVersion(article_id, RandomHexId()));
  }
  if (read.article.status != ArticleStatus::kPublished || !read.version ||
      read.generation != cache_.Generation()) {
    co_return Version{};
  }
  PL_CO_TRY(auto run, co_await articles_.ServerRun(read.generation));
  if (!run) {
    co_return Version{};  // another connection's run
  }
  co_return Version(ThreadVersion{read.generation, *run + "." + *read.version});
}

Awaitable<Result<CommentService::RepliesVersionRead>> CommentService::RepliesVersion(
    const std::optional<Principal>& viewer, int64_t comment_id) {
  PL_CO_TRY(const Comment c, co_await Peek(comment_id));
  // A held comment's replies page is its writer's and moderators' (empty until it is
  // approved: its replies are in no index while it hides them).
  const bool privileged = (Moderates(viewer) || Wrote(viewer, c)) && !c.deleted;
  if (!c.Listed() && !privileged) {
    co_return Fail(ErrorCode::kNotFound, "no such comment");
  }
  auto version = co_await PageVersion(viewer, c.article_id);
  if (!version) {
    if (version.error().code == ErrorCode::kNotFound) {
      co_return Fail(ErrorCode::kNotFound, "no such comment");  // as Replies says it
    }
    co_return tl::unexpected(version.error());
  }
  co_return RepliesVersionRead{c.article_id, std::move(*version)};
}

}  // namespace plaudit::domain
