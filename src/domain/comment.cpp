#include "domain/comment.hpp"

#include "common/enum_names.hpp"
#include "text/unicode.hpp"
#include "text/utf8.hpp"

namespace plaudit::domain {
namespace {

constexpr NameTable<CommentSort, 3> kSortNames = {{
    {CommentSort::kNew, "new"},
    {CommentSort::kOld, "old"},
    {CommentSort::kHot, "hot"},
}};

}  // namespace

std::optional<CommentSort> ParseCommentSort(std::string_view s) {
  return ValueNamed(kSortNames, s);
}

Result<std::string> NormalizeCommentBody(std::string_view body) {
  auto n = text::CodePoints(body);
  if (!n) {
    return Fail(ErrorCode::kInvalidArgument, "body must be valid UTF-8");
  }
  for (unsigned char ch : body) {
    if ((ch < 0x20 && ch != '\t' && ch != '\n' && ch != '\r') || ch == 0x7f) {
      return Fail(ErrorCode::kInvalidArgument, "body must not contain control characters");
    }
  }
  // Embeddings, overrides and isolates go (an unbalanced one reorders the rest of the body
  // for its reader); the marks stay (text/unicode.hpp). Invisible-only text is blank.
  const std::string stripped = text::StripBidiEmbeddings(body);
  std::string_view trimmed = text::Trim(stripped);
  auto len = text::CodePoints(trimmed);
  if (!len || *len == 0 || text::IsBlank(trimmed)) {
    return Fail(ErrorCode::kInvalidArgument, "body must not be blank");
  }
  if (*len > kMaxCommentCodePoints) {
    return Fail(ErrorCode::kInvalidArgument, "body must be at most 10000 characters");
  }
  return std::string(trimmed);
}

}  // namespace plaudit::domain
