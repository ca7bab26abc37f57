// GET /articles/{id}/comments and /comments/{id}/replies through the page cache
// (render/page_cache.hpp): one round trip to Redis (who may see the article, the thread's
// version; for replies one more before it, the comment) for a page already rendered at that
// version, none more for a 304.
#include "domain/cursor.hpp"
#include "render/comment_text.hpp"
#include "render/renderer.hpp"

namespace plaudit::render {
namespace {

using http::Request;
using http::Response;

// Names the JSON shape in the ETag: a release that writes pages differently must not have
// a browser's older copy confirmed by a 304.
constexpr std::string_view kRenderFormat = "c1";

// What names a page of a thread, beside its version.
std::string PageKey(int64_t article_id, const CommentPageQuery& q) {
  std::string key = std::to_string(article_id);
  key += '/';
  key += std::to_string(static_cast<int>(q.sort));
  key += '/';
  if (q.paging.cursor) {
    key += 'k';
    key += *q.paging.cursor;
  } else {
    key += std::to_string(q.paging.page);
  }
  key += '/';
  key += std::to_string(q.paging.size);
  key += '/';
  key += std::to_string(q.replies);
  return key;
}

}  // namespace

Awaitable<Result<Response>> Renderer::ThreadPage(
    const Request& req, const std::optional<domain::Principal>& viewer,
    const domain::CommentService::ThreadVersion& version, int64_t started, std::string key,
    RenderText render) {
  const std::string etag = "\"" + std::string(kRenderFormat) + "." + version.id + "\"";
  if (!viewer) {
    if (auto not_modified = NotModified(req, etag)) {
      co_return std::move(*not_modified);
    }
  }
  const std::string cache_version = std::to_string(version.generation) + ":" + version.id;
  std::shared_ptr<RenderedPage> page = cache_.Find(key, cache_version);
  if (page && started - page->rendered_ms >= kKeptAtMostMs) {
    page = nullptr;
  }
  if (!page) {
    // Rendered as an anonymous reader sees it, after the version was read: it shows at least
    // what the version names (and maybe more, which is only fresher).
    std::function<Awaitable<Result<std::shared_ptr<RenderedPage>>>()> once =
        [this, key, cache_version, etag, started,
         render = std::move(render)]() -> Awaitable<Result<std::shared_ptr<RenderedPage>>> {
      RenderedPage p;
      PL_CO_TRY(p.body, co_await render(&p.liked));
      p.version = cache_version;
      p.rendered_ms = started;
      p.etag = etag;
      co_return cache_.Put(key, std::move(p));
    };
    PL_CO_TRY(page, co_await cache_.renders.Do(key + "@" + cache_version, std::move(once)));
  }
  if (!viewer) {
    co_return PublicPage(req, key, page);
  }
  co_return co_await ReaderPage(req, viewer->id, page, /*comments=*/true, &key);
}

Awaitable<Result<Response>> Renderer::CommentPage(const Request& req,
                                                  const std::optional<domain::Principal>& viewer,
                                                  int64_t article_id, const CommentPageQuery& q) {
  const int64_t started = SteadyMs();  // before the version is read
  PL_CO_TRY(auto version, co_await comments_.PageVersion(viewer, article_id));
  if (!version) {
    // A draft (its author's or an admin's view) or a thread being rebuilt: rendered for this
    // reader, kept by no one.
    PL_CO_TRY(auto page, co_await comments_.List(viewer, article_id, q.sort, q.paging, q.replies));
    Response r;
    r.body = CommentListText(page, q.paging, nullptr);
    AddCacheHeaders(r, req, false);
    co_return r;
  }
  RenderText render = [this, article_id, q](LikedSlots* slots) -> Awaitable<Result<std::string>> {
    PL_CO_TRY(auto list, co_await comments_.PublicPage(article_id, q.sort, q.paging, q.replies));
    co_return CommentListText(list, q.paging, slots);
  };
  co_return co_await ThreadPage(req, viewer, *version, started, PageKey(article_id, q),
                                std::move(render));
}

Awaitable<Result<Response>> Renderer::RepliesPage(const Request& req,
                                                  const std::optional<domain::Principal>& viewer,
                                                  int64_t comment_id, domain::CommentSort sort,
                                                  const domain::PageRequest& paging) {
  const int64_t started = SteadyMs();  // before the version is read
  PL_CO_TRY(auto replies, co_await comments_.RepliesVersion(viewer, comment_id));
  const int64_t article_id = replies.article_id;
  const auto& version = replies.version;
  if (!version) {
    PL_CO_TRY(auto page, co_await comments_.Replies(viewer, comment_id, sort, paging));
    Response r;
    r.body = RepliesText(page, paging, nullptr);
    AddCacheHeaders(r, req, false);
    co_return r;
  }
  RenderText render = [this, article_id, comment_id, sort,
                       paging](LikedSlots* slots) -> Awaitable<Result<std::string>> {
    PL_CO_TRY(auto list, co_await comments_.PublicReplies(article_id, comment_id, sort, paging));
    co_return RepliesText(list, paging, slots);
  };
  // Keyed in the thread's cache by the comment ("r<id>" never reads as an article id).
  CommentPageQuery q{paging, sort, 0};
  co_return co_await ThreadPage(req, viewer, *version, started, "r" + PageKey(comment_id, q),
                                std::move(render));
}

Response Renderer::EmptyCommentPage(const domain::PageRequest& paging) {
  Response r;
  r.body = CommentListText(domain::PageResult<domain::Comment>{}, paging, nullptr);
  return r;
}

}  // namespace plaudit::render
