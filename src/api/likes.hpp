#pragma once
// API.md "Likes": /api/v1/articles/{id}/like, /api/v1/comments/{id}/like, /api/v1/likes.
#include "api/context.hpp"
#include "http/router.hpp"

namespace plaudit::api {
void RegisterLikes(http::Router& router, ApiContext ctx);
}  // namespace plaudit::api
