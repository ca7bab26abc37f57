#pragma once
// API.md "Articles and posts": /api/v1/articles, /api/v1/changes.
#include "api/context.hpp"
#include "domain/article.hpp"
#include "http/router.hpp"

namespace plaudit::api {

// An article's JSON (the rendered lists write the same as text: render/article_text.hpp).
boost::json::object ArticleJson(const domain::Article& a);

}  // namespace plaudit::api
