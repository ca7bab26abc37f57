#pragma once
// Comment pages as JSON text (json_text.hpp says why text): the bytes api::CommentJson's
// boost::json objects serialise to, written straight into the page, with the place of each
// "liked" value recorded for a signed-in reader's copy (page_cache.hpp, LikedSlots).
#include <string>

#include "domain/article.hpp"
#include "domain/comment.hpp"
#include "render/page_cache.hpp"

namespace plaudit::render {

// api::CommentJson's JSON as text appended to `out`; with `with_replies`, followed by
// "replies": [the inline replies] (a list page's top-level comments).
// With `liked_slots`, each comment's (and reply's) "liked" value is recorded there.
void AppendCommentJson(std::string& out, const domain::Comment& c, bool with_replies = false,
                       LikedSlots* liked_slots = nullptr);
// A page of GET /articles/{id}/comments: top-level comments with their inline replies.
std::string CommentListText(const domain::PageResult<domain::Comment>& page,
                            const domain::PageRequest& paging, LikedSlots* liked_slots);
// A page of GET /comments/{id}/replies.
std::string RepliesText(const domain::PageResult<domain::Comment>& page,
                        const domain::PageRequest& paging, LikedSlots* liked_slots);

}  // namespace plaudit::render
