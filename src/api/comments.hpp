#pragma once
// API.md "Comments": /api/v1/articles/{id}/comments, /api/v1/comments/{id}[/replies].
#include "api/context.hpp"
#include "api/page_cache.hpp"
#include "domain/comment.hpp"
#include "domain/comments.hpp"
#include "domain/page_threads.hpp"
#include "http/request.hpp"
#include "http/router.hpp"

namespace plaudit::api {

boost::json::object CommentJson(const domain::Comment& c);
// The same JSON as CommentJson, as text appended to `out`; with `with_replies`, followed by
// "replies": [the inline replies] (a list page's top-level comments).
// With `liked_slots`, each comment's (and reply's) "liked" value is recorded there.
void AppendCommentJson(std::string& out, const domain::Comment& c, bool with_replies = false,
                       LikedSlots* liked_slots = nullptr);

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
// Its body, recording each "liked" value's place in `liked_slots` when given.
std::string CommentListText(const domain::PageResult<domain::Comment>& page,
                            const domain::PageRequest& paging, LikedSlots* liked_slots);
// GET /articles/{id}/comments's answer for `article_id`: an anonymous reader's page comes
// from the page cache (rendered on a miss) with an ETag and CDN-friendly Cache-Control, and
// 304 when If-None-Match names it; a signed-in reader gets the same page with their "liked"
// flags written in, never stored by a shared cache (api/cached_pages.cpp).
Awaitable<Result<http::Response>> CachedList(ApiContext ctx, const http::Request& req,
                                             const std::optional<domain::Principal>& viewer,
                                             int64_t article_id, const CommentListQuery& q);
// GET /comments/{id}/replies's answer, the same way (the thread's version is the comment's
// article's).
Awaitable<Result<http::Response>> CachedReplies(ApiContext ctx, const http::Request& req,
                                                const std::optional<domain::Principal>& viewer,
                                                int64_t comment_id, domain::CommentSort sort,
                                                const domain::PageRequest& paging);
// A comment create's body: body, parentId?, replyToUserId? and nothing else.
Result<domain::CommentInput> ParseCreate(const boost::json::object& body);
// A guest's post: `guest` {name, email?} taken out of `body`; nullopt when there is none.
Result<std::optional<domain::GuestName>> ParseGuest(boost::json::object& body);
// The 201 of a new comment; a guest's carries its edit token once, never to be cached.
http::Response PostedResponse(const domain::PostedComment& posted);
}  // namespace comments

}  // namespace plaudit::api
