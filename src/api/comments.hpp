#pragma once
// API.md "Comments": /api/v1/articles/{id}/comments, /api/v1/comments/{id}[/replies].
#include "api/context.hpp"
#include "domain/comment.hpp"
#include "domain/comments.hpp"
#include "domain/page_threads.hpp"
#include "http/request.hpp"
#include "http/router.hpp"
#include "render/renderer.hpp"

namespace plaudit::api {

// A comment's JSON (the rendered pages write the same as text: render/comment_text.hpp).
boost::json::object CommentJson(const domain::Comment& c);

namespace comments {
// A comment list's query: sort (default new), paging, replies (default 3).
using CommentListQuery = render::CommentPageQuery;
Result<CommentListQuery> ParseListQuery(const http::Request& req);
// The 201 of a new comment; a guest's carries its edit token once, never to be cached.
http::Response PostedResponse(const domain::PostedComment& posted);
}  // namespace comments

}  // namespace plaudit::api
