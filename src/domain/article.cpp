#include "domain/article.hpp"

#include "text/unicode.hpp"
#include "text/utf8.hpp"

namespace plaudit::domain {

Result<std::string> NormalizeTitle(std::string_view title) {
  std::string_view t = text::Trim(title);
  auto n = text::CodePoints(t);
  if (!n) {
    return Fail(ErrorCode::kInvalidArgument, "title must be valid UTF-8");
  }
  if (*n == 0 || *n > 200 || text::IsBlank(t)) {
    return Fail(ErrorCode::kInvalidArgument, "title must be 1 to 200 characters");
  }
  if (text::HasBidiControl(t)) {  // issue 41: it would reorder the text shown after it
    return Fail(ErrorCode::kInvalidArgument, "title must not contain bidi control characters");
  }
  for (unsigned char c : t) {
    if (c < 0x20 || c == 0x7F) {
      return Fail(ErrorCode::kInvalidArgument, "title must not contain control characters");
    }
  }
  return std::string(t);
}

bool CanSee(const Article& a, const std::optional<Principal>& viewer) {
  if (a.status == ArticleStatus::kPublished) {
    return true;
  }
  return viewer && (viewer->id == a.author_id || HasRole(viewer->role, Role::kAdmin));
}

bool CanEdit(const Article& a, const Principal& viewer) {
  return viewer.id == a.author_id || HasRole(viewer.role, Role::kAdmin);
}

}  // namespace plaudit::domain
