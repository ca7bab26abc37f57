#pragma once
// API.md "Articles and posts": /api/v1/articles, /api/v1/changes.
#include "api/context.hpp"
#include "domain/article.hpp"
#include "http/router.hpp"

namespace plaudit::api {

void RegisterArticles(http_api::Router& router, ApiContext ctx);
boost::json::object ArticleJson(const domain::Article& a);

}  // namespace plaudit::api
