#pragma once
// Articles and posts (API.md "Articles and posts"): one resource with a `kind`.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "domain/user.hpp"

namespace plaudit::domain {

enum class ArticleKind { kArticle, kPost };
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

// What a create or update may set (absent: unchanged / default).
struct ArticleInput {
  std::optional<std::string> title;
  std::optional<std::string> content;
  std::optional<ArticleKind> kind;
  std::optional<ArticleStatus> status;
  std::optional<bool> pinned;
  std::optional<bool> allow_comments;
};

// Title: 1–200 code points after trimming; returns the trimmed title.
Result<std::string> NormalizeTitle(std::string_view title);

inline constexpr size_t kMaxContentBytes = 512 * 1024;

// A page request: offset (page/size) or cursor.
struct PageRequest {
  int64_t page = 1;
  int64_t size = 20;
  std::optional<std::string> cursor;
};

template <class T>
struct PageResult {
  std::vector<T> items;
  int64_t total = 0;
  std::optional<std::string> next_cursor;
};

// Whether `viewer` may see `a` (drafts: author and admins only).
bool CanSee(const Article& a, const std::optional<Principal>& viewer);
// Whether `viewer` may edit or delete `a`.
bool CanEdit(const Article& a, const Principal& viewer);

}  // namespace plaudit::domain
