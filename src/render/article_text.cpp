#include "render/article_text.hpp"

#include "common/time.hpp"
#include "render/json_text.hpp"
#include "render/page_text.hpp"

namespace plaudit::render {

void AppendArticleJson(std::string& out, const domain::Article& a, LikedSlots* liked_slots) {
  namespace j = json_text;
  out.push_back('{');
  j::Key(out, "id"), j::Int(out, a.id);
  out.push_back(','), j::Key(out, "kind"), j::String(out, domain::KindName(a.kind));
  out.push_back(','), j::Key(out, "title"), j::String(out, a.title);
  out.push_back(','), j::Key(out, "summary"), j::String(out, a.summary);
  if (a.content) {
    out.push_back(','), j::Key(out, "content"), j::String(out, *a.content);
  }
  out.push_back(','), j::Key(out, "status"), j::String(out, domain::StatusName(a.status));
  out.push_back(','), j::Key(out, "pinned"), j::Bool(out, a.pinned);
  out.push_back(','), j::Key(out, "allowComments"), j::Bool(out, a.allow_comments);
  out.push_back(','), j::Key(out, "moderation");
  if (a.moderation.empty()) {
    j::Null(out);
  } else {
    j::String(out, a.moderation);
  }
  out.push_back(','), j::Key(out, "author");
  out.push_back('{');
  j::Key(out, "id"), j::Int(out, a.author_id);
  out.push_back(','), j::Key(out, "username"), j::String(out, a.author_username);
  out.push_back(','), j::Key(out, "displayName"), j::String(out, a.author_display_name);
  out.push_back('}');
  out.push_back(','), j::Key(out, "createdAt"), j::String(out, FormatTimeMs(a.created_at_ms));
  out.push_back(','), j::Key(out, "updatedAt"), j::String(out, FormatTimeMs(a.updated_at_ms));
  out.push_back(','), j::Key(out, "publishedAt");
  if (a.published_at_ms) {
    j::String(out, FormatTimeMs(*a.published_at_ms));
  } else {
    j::Null(out);
  }
  out.push_back(','), j::Key(out, "viewCount"), j::Int(out, a.view_count);
  out.push_back(','), j::Key(out, "likeCount"), j::Int(out, a.like_count);
  out.push_back(','), j::Key(out, "commentCount"), j::Int(out, a.comment_count);
  out.push_back(','), j::Key(out, "liked");
  if (liked_slots) {
    liked_slots->push_back(LikedSlot{out.size(), a.id, a.like_count > 0});
  }
  j::Bool(out, a.liked);
  out.push_back('}');
}

std::string ArticlePageText(const domain::PageResult<domain::Article>& page,
                            const domain::PageRequest& req, LikedSlots* liked_slots) {
  return PageText(
      page, req,
      [liked_slots](std::string& out, const domain::Article& a) {
        AppendArticleJson(out, a, liked_slots);
      },
      640);
}

}  // namespace plaudit::render
