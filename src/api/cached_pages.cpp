// GET /articles/{id}/comments and /comments/{id}/replies through the page cache
// (api/page_cache.hpp): one round trip to Redis (who may see the article, the thread's
// version; for replies one more before it, the comment) for a page already rendered at that
// version, none more for a 304.
#include "api/comments.hpp"
#include "api/page_responses.hpp"
#include "api/paging.hpp"
#include "domain/cursor.hpp"

namespace plaudit::api::comments {
namespace {

using http::Request;
using http::Response;

// Names the JSON shape in the ETag: a release that writes pages differently must not have
// a browser's older copy confirmed by a 304.
constexpr std::string_view kRenderFormat = "c1";

// What names a page of a thread, beside its version.
std::string PageKey(int64_t article_id, const CommentListQuery& q) {
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

// The text of a page as an anonymous reader sees it, recording its "liked" places.
using RenderText = std::function<Awaitable<Result<std::string>>(LikedSlots*)>;

// A page of a thread at `version` (read at `started`): a 304, the kept page, or one
// rendered by `render` (shared by the readers that miss at that version) and kept.
Awaitable<Result<Response>> ThreadPage(ApiContext ctx, const Request& req,
                                       const std::optional<domain::Principal>& viewer,
                                       const domain::CommentService::ThreadVersion& version,
                                       int64_t started, std::string key, RenderText render) {
  const std::string etag = "\"" + std::string(kRenderFormat) + "." + version.id + "\"";
  if (!viewer) {
    if (auto not_modified = NotModified(ctx, req, etag)) {
      co_return std::move(*not_modified);
    }
  }
  const std::string cache_version = std::to_string(version.generation) + ":" + version.id;
  std::shared_ptr<RenderedPage> page = ctx.page_cache->Find(key, cache_version);
  if (page && started - page->rendered_ms >= kKeptAtMostMs) {
    page = nullptr;
  }
  if (!page) {
    // Rendered as an anonymous reader sees it, after the version was read: it shows at least
    // what the version names (and maybe more, which is only fresher).
    std::function<Awaitable<Result<std::shared_ptr<RenderedPage>>>()> once =
        [ctx, key, cache_version, etag, started,
         render = std::move(render)]() -> Awaitable<Result<std::shared_ptr<RenderedPage>>> {
      RenderedPage p;
      PL_CO_TRY(p.body, co_await render(&p.liked));
      p.version = cache_version;
      p.rendered_ms = started;
      p.etag = etag;
      co_return ctx.page_cache->Put(key, std::move(p));
    };
    PL_CO_TRY(page,
              co_await ctx.page_cache->renders.Do(key + "@" + cache_version, std::move(once)));
  }
  if (!viewer) {
    co_return PublicPage(ctx, req, key, page);
  }
  co_return co_await ReaderPage(ctx, req, viewer->id, page, /*comments=*/true);
}

std::string RepliesText(const domain::PageResult<domain::Comment>& page,
                        const domain::PageRequest& paging, LikedSlots* liked_slots) {
  return PageText(page, paging, [liked_slots](std::string& out, const domain::Comment& c) {
    AppendCommentJson(out, c, false, liked_slots);
  });
}

}  // namespace

Awaitable<Result<Response>> CachedList(ApiContext ctx, const Request& req,
                                       const std::optional<domain::Principal>& viewer,
                                       int64_t article_id, const CommentListQuery& q) {
  const int64_t started = SteadyMs();  // before the version is read
  PL_CO_TRY(auto version, co_await ctx.comments->PageVersion(viewer, article_id));
  if (!version || !ctx.page_cache) {
    // A draft (its author's or an admin's view) or a thread being rebuilt: rendered for this
    // reader, kept by no one.
    PL_CO_TRY(auto page,
              co_await ctx.comments->List(viewer, article_id, q.sort, q.paging, q.replies));
    Response r = CommentListResponse(page, q.paging);
    AddCacheHeaders(r, ctx, req, false);
    co_return r;
  }
  RenderText render = [ctx, article_id, q](LikedSlots* slots) -> Awaitable<Result<std::string>> {
    PL_CO_TRY(auto list,
              co_await ctx.comments->PublicPage(article_id, q.sort, q.paging, q.replies));
    co_return CommentListText(list, q.paging, slots);
  };
  co_return co_await ThreadPage(ctx, req, viewer, *version, started, PageKey(article_id, q),
                                std::move(render));
}

Awaitable<Result<Response>> CachedReplies(ApiContext ctx, const Request& req,
                                          const std::optional<domain::Principal>& viewer,
                                          int64_t comment_id, domain::CommentSort sort,
                                          const domain::PageRequest& paging) {
  const int64_t started = SteadyMs();  // before the version is read
  PL_CO_TRY(auto replies, co_await ctx.comments->RepliesVersion(viewer, comment_id));
  const int64_t article_id = replies.article_id;
  const auto& version = replies.version;
  if (!version || !ctx.page_cache) {
    PL_CO_TRY(auto page, co_await ctx.comments->Replies(viewer, comment_id, sort, paging));
    Response r;
    r.body = RepliesText(page, paging, nullptr);
    AddCacheHeaders(r, ctx, req, false);
    co_return r;
  }
  RenderText render = [ctx, article_id, comment_id, sort,
                       paging](LikedSlots* slots) -> Awaitable<Result<std::string>> {
    PL_CO_TRY(auto list,
              co_await ctx.comments->PublicReplies(article_id, comment_id, sort, paging));
    co_return RepliesText(list, paging, slots);
  };
  // Keyed in the thread's cache by the comment ("r<id>" never reads as an article id).
  CommentListQuery q{paging, sort, 0};
  co_return co_await ThreadPage(ctx, req, viewer, *version, started, "r" + PageKey(comment_id, q),
                                std::move(render));
}

}  // namespace plaudit::api::comments
