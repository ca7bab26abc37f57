#include "render/comment_text.hpp"

#include "render/json_text.hpp"
#include "render/page_text.hpp"

namespace plaudit::render {

namespace {

// Keys are written with their punctuation as one literal each (`,"key":`): a page writes
// ~1,400 of them, and a push_back and two appends per key were ~5% of a render's
// instructions (callgrind, 2026-12-02). The bytes are boost::json::serialize's of CommentJson
// (CommentJsonText.WritesTheBytesBoostJsonWrites).
void AppendUserJson(std::string& out, const domain::CommentUser& u) {
  namespace j = json_text;
  using namespace std::string_view_literals;
  if (u.Guest()) {
    out.append(R"({"id":null,"displayName":)"sv);
    j::String(out, u.display_name);
    out.append(R"(,"guest":true})"sv);
    return;
  }
  out.append(R"({"id":)"sv);
  j::Int(out, u.id);
  out.append(R"(,"username":)"sv);
  j::String(out, u.username);
  out.append(R"(,"displayName":)"sv);
  j::String(out, u.display_name);
  out.push_back('}');
}

}  // namespace

void AppendCommentJson(std::string& out, const domain::Comment& c, bool with_replies,
                       LikedSlots* liked_slots) {
  namespace j = json_text;
  using namespace std::string_view_literals;
  out.append(R"({"id":)"sv);
  j::Int(out, c.id);
  out.append(R"(,"articleId":)"sv);
  j::Int(out, c.article_id);
  out.append(R"(,"parentId":)"sv);
  if (c.parent_id) {
    j::Int(out, *c.parent_id);
  } else {
    j::Null(out);
  }
  out.append(R"(,"author":)"sv);
  AppendUserJson(out, c.author);
  out.append(R"(,"replyTo":)"sv);
  if (c.reply_to) {
    AppendUserJson(out, *c.reply_to);
  } else {
    j::Null(out);
  }
  out.append(R"(,"body":)"sv);
  j::String(out, c.body);
  out.append(R"(,"html":)"sv);
  j::String(out, c.html);
  out.append(R"(,"createdAt":)"sv);
  j::TimeMs(out, c.created_at_ms);
  out.append(R"(,"updatedAt":)"sv);
  j::TimeMs(out, c.updated_at_ms);
  out.append(R"(,"likeCount":)"sv);
  j::Int(out, c.like_count);
  out.append(R"(,"replyCount":)"sv);
  j::Int(out, c.reply_count);
  out.append(R"(,"liked":)"sv);
  if (liked_slots) {
    liked_slots->push_back(LikedSlot{out.size(), c.id, c.like_count > 0});
  }
  j::Bool(out, c.liked);
  out.append(R"(,"deleted":)"sv);
  j::Bool(out, c.deleted);
  out.append(R"(,"status":")"sv);
  out.append(domain::CommentStatusName(c.status));
  out.push_back('"');
  if (with_replies) {
    out.append(R"(,"replies":)"sv);
    j::Array(out, c.replies, [liked_slots](std::string& o, const domain::Comment& r) {
      AppendCommentJson(o, r, false, liked_slots);
    });
  }
  out.push_back('}');
}

std::string CommentListText(const domain::PageResult<domain::Comment>& page,
                            const domain::PageRequest& paging, LikedSlots* liked_slots) {
  // Written as text, as the article list is (json_text.hpp): ~80 comment objects a page,
  // ~330 bytes each with short bodies; reserved for all of them at once (a reserve per
  // top-level comment alone grew the string once more, copying most of the page).
  size_t comments = 0;
  for (const auto& c : page.items) {
    comments += 1 + c.replies.size();
  }
  const size_t per_item = page.items.empty() ? 0 : 448 * comments / page.items.size();
  return PageText(
      page, paging,
      [liked_slots](std::string& out, const domain::Comment& c) {
        AppendCommentJson(out, c, true, liked_slots);
      },
      per_item);
}

std::string RepliesText(const domain::PageResult<domain::Comment>& page,
                        const domain::PageRequest& paging, LikedSlots* liked_slots) {
  return PageText(page, paging, [liked_slots](std::string& out, const domain::Comment& c) {
    AppendCommentJson(out, c, false, liked_slots);
  });
}

}  // namespace plaudit::render
