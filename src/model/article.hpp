#pragma once
// An article or post as data (API.md "Articles and posts"), below every layer that stores or
// serves it: the Redis store encodes it (redis/article_codec.hpp), SQL rows map to it, the
// domain decides what may be done with it (domain/article.hpp).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace plaudit::model {

// kPage: the thread of a page on an embedding site (API.md "Embedding on other sites"); never
// listed, never created or converted to through the articles routes.
enum class ArticleKind { kArticle, kPost, kPage };
enum class ArticleStatus { kDraft, kPublished };

struct Article {
  int64_t id = 0;
  ArticleKind kind = ArticleKind::kPost;
  int64_t author_id = 0;
  std::string author_username;
  std::string author_display_name;
  std::string title;
  std::string summary;
  std::optional<std::string> content;  // absent in list items
  ArticleStatus status = ArticleStatus::kDraft;
  bool pinned = false;
  bool allow_comments = true;
  // Its own comment policy (API.md "Moderation"): "off", "first", "all", or empty for the
  // server's --moderation.
  std::string moderation;
  int64_t created_at_ms = 0;
  int64_t updated_at_ms = 0;
  std::optional<int64_t> published_at_ms;
  int64_t view_count = 0;
  int64_t like_count = 0;
  int64_t comment_count = 0;
  int64_t comment_ver = 0;  // version of comment_count: the cache keeps only the newest
  int64_t ver = 0;          // the row's version (articles.ver): the cache keeps only the newest
  bool liked = false;
};

std::string_view KindName(ArticleKind k);
std::optional<ArticleKind> ParseKind(std::string_view s);
std::string_view StatusName(ArticleStatus s);
std::optional<ArticleStatus> ParseStatus(std::string_view s);

}  // namespace plaudit::model
