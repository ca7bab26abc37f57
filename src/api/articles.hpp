#pragma once
// API.md "Articles and posts": /api/v1/articles, /api/v1/changes.
#include "api/context.hpp"
#include "domain/article.hpp"
#include "http/router.hpp"

namespace plaudit::api {

boost::json::object ArticleJson(const domain::Article& a);
// The same JSON as ArticleJson, as text appended to `out` (the list's hot path).
void AppendArticleJson(std::string& out, const domain::Article& a);
// PageJson(page, req, ArticleJson) as text.
std::string ArticlePageText(const domain::PageResult<domain::Article>& page,
                            const domain::PageRequest& req);

}  // namespace plaudit::api
