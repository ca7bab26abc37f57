#pragma once
// The rendered pages' one door: a handler hands over the request, the reader and what names
// the page, and gets the finished answer (bytes, ETag, caching headers, or a 304). Behind it,
// the page cache (page_cache.hpp): comment pages and replies (comment_pages.cpp), published
// article lists (article_lists.cpp), and the HTTP side both share (page_responses.cpp):
// caching headers, the 304, the public bytes (gzip when accepted) and a signed-in reader's
// copy with its own likes.
//
// Between domain and api: it calls the services, never the stores; it knows requests and
// responses, never routes or sessions (the handler admits the caller first).
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "domain/article.hpp"
#include "domain/articles.hpp"
#include "domain/comment.hpp"
#include "domain/comments.hpp"
#include "domain/likes.hpp"
#include "domain/user.hpp"
#include "http/request.hpp"
#include "render/page_cache.hpp"

namespace plaudit::render {

// A comment page's query: sort (default new), paging, replies (default 3).
struct CommentPageQuery {
  domain::PageRequest paging;
  domain::CommentSort sort = domain::CommentSort::kNew;
  int64_t replies = 3;
};

struct RendererOptions {
  // Cache-Control of public pages (anonymous comment pages): a CDN in front may keep them
  // briefly (--shared-max-age-s); browsers revalidate. CDN-Cache-Control adds
  // stale-while-revalidate for CDNs alone (--stale-while-revalidate-s; empty: none).
  std::string public_cache_control = "public, no-cache";
  std::string cdn_cache_control;
  // How old a kept article list page's view counts may be when it is served again.
  int64_t list_views_max_age_ms = 1000;
};

class Renderer {
 public:
  // Holds references: `cache` and the services outlive it.
  Renderer(PageCache& cache, domain::CommentService& comments, domain::ArticleService& articles,
           domain::LikeService& likes, RendererOptions options)
      : cache_(cache),
        comments_(comments),
        articles_(articles),
        likes_(likes),
        options_(std::move(options)) {}

  // GET /articles/{id}/comments's answer for `article_id`: an anonymous reader's page comes
  // from the page cache (rendered on a miss) with an ETag and CDN-friendly Cache-Control, and
  // 304 when If-None-Match names it; a signed-in reader gets the same page with their "liked"
  // flags written in, never stored by a shared cache. A draft's page (its author's or an
  // admin's view) is rendered for that reader alone.
  Awaitable<Result<http::Response>> CommentPage(const http::Request& req,
                                                const std::optional<domain::Principal>& viewer,
                                                int64_t article_id, const CommentPageQuery& q);
  // GET /comments/{id}/replies's answer, the same way (the thread's version is the comment's
  // article's).
  Awaitable<Result<http::Response>> RepliesPage(const http::Request& req,
                                                const std::optional<domain::Principal>& viewer,
                                                int64_t comment_id, domain::CommentSort sort,
                                                const domain::PageRequest& paging);
  // The comment page of a thread that does not exist yet (a page URL nobody commented on):
  // no items, no caching headers.
  static http::Response EmptyCommentPage(const domain::PageRequest& paging);

  // GET /articles (the published list) through the page cache; rendered afresh when it keeps
  // nothing (--page-cache-mb 0), with the same headers.
  Awaitable<Result<http::Response>> ArticleList(const http::Request& req,
                                                const std::optional<domain::Principal>& viewer,
                                                std::optional<domain::ArticleKind> kind,
                                                const domain::PageRequest& paging);
  // A list of articles as its caller alone may see it (drafts, or all statuses): rendered,
  // kept by no one, private to the caller.
  http::Response PrivateArticleList(const http::Request& req,
                                    const domain::PageResult<domain::Article>& page,
                                    const domain::PageRequest& paging) const;

  // Its counters (hits, misses, bytes, pages) are the metrics' and the tests'.
  PageCache& cache() { return cache_; }
  const PageCache& cache() const { return cache_; }

 private:
  // The text of a page as an anonymous reader sees it, recording its "liked" places.
  using RenderText = std::function<Awaitable<Result<std::string>>(LikedSlots*)>;

  // A page of a thread at `version` (read at `started`): a 304, the kept page, or one
  // rendered by `render` (shared by the readers that miss at that version) and kept.
  Awaitable<Result<http::Response>> ThreadPage(const http::Request& req,
                                               const std::optional<domain::Principal>& viewer,
                                               const domain::CommentService::ThreadVersion& version,
                                               int64_t started, std::string key, RenderText render);
  // The published list rendered now, kept by no one (an anonymous reader's with its ETag).
  Awaitable<Result<http::Response>> FreshList(const http::Request& req,
                                              const std::optional<domain::Principal>& viewer,
                                              std::optional<domain::ArticleKind> kind,
                                              const domain::PageRequest& paging);

  // Shared caches may keep a public page (`shared`); nothing else (a signed-in reader's
  // flags) is theirs. Vary: the page differs by encoding, and a request with credentials must
  // not be answered with the public copy (the CORS headers differ by Origin: http/cors adds it
  // when present).
  void AddCacheHeaders(http::Response& r, const http::Request& req, bool shared) const;

  // A 304 when the request's If-None-Match names `etag` or its gzip copy's tag, echoing the tag
  // it named (its copy's: a 304 confirms that representation); else nullopt.
  std::optional<http::Response> NotModified(const http::Request& req,
                                            const std::string& etag) const;

  // An anonymous reader's answer: the page's own bytes (or its gzip copy when accepted), kept
  // alive by the response even if the cache drops the page meanwhile. `key`: the page's in
  // the cache (its gzip copy is counted there).
  http::Response PublicPage(const http::Request& req, const std::string& key,
                            const std::shared_ptr<RenderedPage>& page);

  // A signed-in reader's answer: the public page with the reader's own `liked` flags written
  // in, read in one batch for the slots someone had liked at the page's version (LikedSlot).
  // `comments`: the slots are comments' (else articles'). `key` (comment pages): the page's in
  // the cache, where the flags read are kept for the reader's next request at this version
  // (RenderedPage::readers).
  Awaitable<Result<http::Response>> ReaderPage(const http::Request& req, int64_t user_id,
                                               const std::shared_ptr<RenderedPage>& page,
                                               bool comments, const std::string* key = nullptr);
  // The reader's copy of `page` with the `liked` ids' flags true (sorted).
  http::Response ReaderResponse(const http::Request& req, const std::shared_ptr<RenderedPage>& page,
                                const std::vector<int64_t>& liked) const;

  PageCache& cache_;
  domain::CommentService& comments_;
  domain::ArticleService& articles_;
  domain::LikeService& likes_;
  RendererOptions options_;
};

}  // namespace plaudit::render
