// GET /articles/{id}/comments through the page cache (api/page_cache.hpp): one round trip to
// Redis (who may see the article, the thread's version) for a page already rendered at that
// version, none more for a 304.
#include "api/comments.hpp"
#include "api/web_files.hpp"  // EtagMatches, AcceptsGzip
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

// Shared caches may keep a public page; nothing else (a signed-in reader's flags) is theirs.
// Vary: the page differs by encoding, and a request with credentials must not be answered
// with the public copy (the CORS headers differ by Origin: http/cors adds it when present).
void AddCacheHeaders(Response& r, const ApiContext& ctx, const Request& req, bool shared) {
  r.headers.emplace_back("Cache-Control",
                         shared ? std::string(ctx.public_cache_control) : "private, no-store");
  if (shared && !ctx.cdn_cache_control.empty()) {
    r.headers.emplace_back("CDN-Cache-Control", std::string(ctx.cdn_cache_control));
  }
  r.headers.emplace_back("Vary", req.Header(beast::http::field::origin).empty()
                                     ? "Origin, Accept-Encoding, Authorization, Cookie"
                                     : "Accept-Encoding, Authorization, Cookie");
}

}  // namespace

Awaitable<Result<Response>> CachedList(ApiContext ctx, const Request& req,
                                       const std::optional<domain::Principal>& viewer,
                                       int64_t article_id, const CommentListQuery& q) {
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
  const std::string etag = "\"" + std::string(kRenderFormat) + "." + version->id + "\"";
  if (!viewer) {
    std::string_view inm = req.Header(beast::http::field::if_none_match);
    if (!inm.empty()) {
      const std::string gz_etag = GzipEtagOf(etag);
      const bool plain = EtagMatches(inm, etag);
      if (plain || EtagMatches(inm, gz_etag)) {
        // The tag the client named (its copy's): a 304 confirms that representation.
        Response r;
        r.status = beast::http::status::not_modified;
        r.headers.emplace_back("ETag", plain ? etag : gz_etag);
        AddCacheHeaders(r, ctx, req, true);
        co_return r;
      }
    }
  }
  const std::string key = PageKey(article_id, q);
  const std::string cache_version = std::to_string(version->generation) + ":" + version->id;
  std::shared_ptr<RenderedPage> page = ctx.page_cache->Find(key, cache_version);
  if (!page) {
    // Rendered as an anonymous reader sees it, after the version was read: it shows at least
    // what the version names (and maybe more, which is only fresher).
    std::function<Awaitable<Result<std::shared_ptr<RenderedPage>>>()> render =
        [ctx, article_id, q, key, cache_version,
         etag]() -> Awaitable<Result<std::shared_ptr<RenderedPage>>> {
      PL_CO_TRY(auto list,
                co_await ctx.comments->PublicPage(article_id, q.sort, q.paging, q.replies));
      RenderedPage p;
      p.version = cache_version;
      p.etag = etag;
      p.body = CommentListText(list, q.paging, &p.liked);
      co_return ctx.page_cache->Put(key, std::move(p));
    };
    PL_CO_TRY(page,
              co_await ctx.page_cache->renders.Do(key + "@" + cache_version, std::move(render)));
  }
  Response r;
  if (!viewer) {
    const bool gzip = AcceptsGzip(req.Header(beast::http::field::accept_encoding)) &&
                      !ctx.page_cache->Gzipped(key, *page).empty();
    // The page's own bytes, kept alive by the response (the aliasing shared_ptr) even if the
    // cache drops the page meanwhile.
    r.shared_body = std::shared_ptr<const std::string>(page, gzip ? &page->gzip : &page->body);
    r.headers.emplace_back("ETag", gzip ? page->GzipEtag() : page->etag);
    if (gzip) r.headers.emplace_back("Content-Encoding", "gzip");
    AddCacheHeaders(r, ctx, req, true);
    co_return r;
  }
  // Signed in: the public page with this reader's own flags written in (one batch read, of
  // the comments someone had liked at this version: see LikedSlot).
  std::vector<redis::LikeTarget> targets;
  std::vector<int64_t> asked;
  for (const LikedSlot& slot : page->liked) {
    if (!slot.liked_by_anyone) continue;
    targets.push_back(redis::LikeTarget::OfComment(slot.id));
    asked.push_back(slot.id);
  }
  std::vector<int64_t> liked;
  if (!targets.empty()) {
    PL_CO_TRY(auto states, co_await ctx.likes->GetMany(viewer->id, std::move(targets)));
    for (size_t i = 0; i < states.size(); ++i) {
      if (states[i].liked) liked.push_back(asked[i]);
    }
  }
  std::sort(liked.begin(), liked.end());
  if (liked.empty()) {
    r.shared_body = std::shared_ptr<const std::string>(page, &page->body);
  } else {
    r.body = page->WithLiked(liked);
  }
  AddCacheHeaders(r, ctx, req, false);
  co_return r;
}

}  // namespace plaudit::api::comments
