#pragma once
// Articles and posts (API.md "Articles and posts"): one resource with a `kind`.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "domain/user.hpp"
#include "model/article.hpp"

namespace plaudit::domain {

// The data types are the model layer's (below the stores, which encode them); the rules
// about them are here.
using model::Article;
using model::ArticleKind;
using model::ArticleStatus;
using model::KindName;
using model::ParseKind;
using model::ParseStatus;
using model::StatusName;

// What a create or update may set (absent: unchanged / default).
struct ArticleInput {
  std::optional<std::string> title;
  std::optional<std::string> content;
  std::optional<ArticleKind> kind;
  std::optional<ArticleStatus> status;
  std::optional<bool> pinned;
  std::optional<bool> allow_comments;
  // "off", "first", "all"; "" (JSON null) returns the article to the server's policy.
  std::optional<std::string> moderation;
};

// Title: 1–200 code points after trimming; returns the trimmed title.
Result<std::string> NormalizeTitle(std::string_view title);

inline constexpr size_t kMaxContentBytes = size_t{512} * 1024;

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

// Whether the article belongs in the published lists: a page thread never does.
inline bool Listed(const Article& a) {
  return a.status == ArticleStatus::kPublished && a.kind != ArticleKind::kPage;
}

// Whether `viewer` may see `a` (drafts: author and admins only).
bool CanSee(const Article& a, const std::optional<Principal>& viewer);
// Whether `viewer` may edit or delete `a`.
bool CanEdit(const Article& a, const Principal& viewer);

}  // namespace plaudit::domain
