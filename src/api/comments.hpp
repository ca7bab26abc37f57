#pragma once
// API.md "Comments": /api/v1/articles/{id}/comments, /api/v1/comments/{id}[/replies].
#include "api/context.hpp"
#include "domain/comment.hpp"
#include "http/router.hpp"

namespace plaudit::api {

void RegisterComments(http_api::Router& router, ApiContext ctx);
boost::json::object CommentJson(const domain::Comment& c);

}  // namespace plaudit::api
