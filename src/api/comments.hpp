#pragma once
// API.md "Comments": /api/v1/articles/{id}/comments, /api/v1/comments/{id}[/replies].
#include "api/context.hpp"
#include "domain/comment.hpp"
#include "http/request.hpp"
#include "http/router.hpp"

namespace plaudit::api {

boost::json::object CommentJson(const domain::Comment& c);
// The same JSON as CommentJson, as text appended to `out`; with `with_replies`, followed by
// "replies": [the inline replies] (a list page's top-level comments).
void AppendCommentJson(std::string& out, const domain::Comment& c, bool with_replies = false);

namespace comments {
// A comment list's query: sort (default new), paging, replies (default 3).
struct CommentListQuery {
  domain::PageRequest paging;
  domain::CommentSort sort = domain::CommentSort::kNew;
  int64_t replies = 3;
};
Result<CommentListQuery> ParseListQuery(const http::Request& req);
// The list page as GET /articles/{id}/comments answers it.
http::Response CommentListResponse(const domain::PageResult<domain::Comment>& page,
                                   const domain::PageRequest& paging);
// A comment create's body: body, parentId?, replyToUserId? and nothing else.
Result<domain::CommentInput> ParseCreate(const boost::json::object& body);
}  // namespace comments

}  // namespace plaudit::api
