#include "model/article.hpp"

namespace plaudit::model {

std::string_view KindName(ArticleKind k) {
  switch (k) {
    case ArticleKind::kArticle:
      return "article";
    case ArticleKind::kPage:
      return "page";
    case ArticleKind::kPost:
      break;
  }
  return "post";
}

std::optional<ArticleKind> ParseKind(std::string_view s) {
  if (s == "article") {
    return ArticleKind::kArticle;
  }
  if (s == "post") {
    return ArticleKind::kPost;
  }
  if (s == "page") {
    return ArticleKind::kPage;
  }
  return std::nullopt;
}

std::string_view StatusName(ArticleStatus s) {
  return s == ArticleStatus::kPublished ? "published" : "draft";
}

std::optional<ArticleStatus> ParseStatus(std::string_view s) {
  if (s == "published") {
    return ArticleStatus::kPublished;
  }
  if (s == "draft") {
    return ArticleStatus::kDraft;
  }
  return std::nullopt;
}

}  // namespace plaudit::model
