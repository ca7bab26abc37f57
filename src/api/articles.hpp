#pragma once
// API.md "Articles and posts": /api/v1/articles, /api/v1/changes.
#include "api/context.hpp"
#include "domain/article.hpp"
#include "http/router.hpp"

namespace plaudit::api {

boost::json::object ArticleJson(const domain::Article& a);
// The same JSON as ArticleJson, as text appended to `out` (the list's hot path).
// `liked_slots`: where each article's "liked" went (api/page_cache.hpp).
void AppendArticleJson(std::string& out, const domain::Article& a,
                       LikedSlots* liked_slots = nullptr);
// PageJson(page, req, ArticleJson) as text.
std::string ArticlePageText(const domain::PageResult<domain::Article>& page,
                            const domain::PageRequest& req, LikedSlots* liked_slots = nullptr);

namespace articles {

// GET /articles (the published list) through the page cache (cached_lists.cpp); rendered
// afresh when it keeps nothing (--page-cache-mb 0), with the same headers.
Awaitable<Result<http::Response>> CachedList(ApiContext ctx, const http::Request& req,
                                             const std::optional<domain::Principal>& viewer,
                                             std::optional<domain::ArticleKind> kind,
                                             const domain::PageRequest& paging);

}  // namespace articles

}  // namespace plaudit::api
