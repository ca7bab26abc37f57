// An SQL row as the article.
#include "domain/articles.hpp"

namespace plaudit::domain {

Article FromRow(const sql::ArticleRow& r) {
  Article a;
  a.id = r.id;
  a.kind = ParseKind(r.kind).value_or(ArticleKind::kPost);
  a.author_id = r.author_id;
  a.author_username = r.author_username;
  a.author_display_name = r.author_display_name;
  a.title = r.title;
  a.summary = r.summary;
  a.status = ParseStatus(r.status).value_or(ArticleStatus::kDraft);
  a.pinned = r.pinned;
  a.allow_comments = r.allow_comments;
  a.created_at_ms = r.created_at_ms;
  a.updated_at_ms = r.updated_at_ms;
  a.published_at_ms = r.published_at_ms;
  a.view_count = r.view_count;
  a.like_count = r.like_count;
  a.comment_count = r.comment_count;
  a.comment_ver = r.comment_ver;
  a.ver = r.ver;
  return a;
}

}  // namespace plaudit::domain
