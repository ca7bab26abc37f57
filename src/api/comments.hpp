#pragma once
// API.md "Comments": /api/v1/articles/{id}/comments, /api/v1/comments/{id}[/replies].
#include "api/context.hpp"
#include "domain/comment.hpp"
#include "http/router.hpp"

namespace plaudit::api {

boost::json::object CommentJson(const domain::Comment& c);
// The same JSON as CommentJson, as text appended to `out`; with `with_replies`, followed by
// "replies": [the inline replies] (a list page's top-level comments).
void AppendCommentJson(std::string& out, const domain::Comment& c, bool with_replies = false);

}  // namespace plaudit::api
