#pragma once
// Comments (API.md "Comments"): two levels, a top-level comment and replies under it.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/result.hpp"

namespace plaudit::domain {

struct CommentUser {
  int64_t id = 0;
  std::string username;
  std::string display_name;
};

struct Comment {
  int64_t id = 0;
  int64_t article_id = 0;
  std::optional<int64_t> parent_id;  // its top-level comment; nullopt at the top level
  CommentUser author;
  std::optional<CommentUser> reply_to;
  std::string body;  // plain text, as given (trimmed); empty once deleted
  int64_t created_at_ms = 0;
  int64_t updated_at_ms = 0;
  bool deleted = false;
  int64_t reply_count = 0;  // live replies (top level only)
  int64_t like_count = 0;
  bool liked = false;
  int64_t ver = 0;
  std::vector<Comment> replies;  // the first few, in list pages

  // Listed: live, or a deleted top-level comment that still has live replies (placeholder).
  bool Listed() const { return !deleted || (!parent_id && reply_count > 0); }
};

enum class CommentSort { kNew, kOld, kHot };
std::optional<CommentSort> ParseCommentSort(std::string_view s);

struct CommentInput {
  std::string body;
  std::optional<int64_t> parent_id;
  std::optional<int64_t> reply_to_user_id;
};

inline constexpr size_t kMaxCommentCodePoints = 10000;
inline constexpr int64_t kMaxInlineReplies = 20;

// 1–10,000 code points after trimming surrounding white space, valid UTF-8, no control
// characters other than tab and newlines. Returns the trimmed body.
Result<std::string> NormalizeCommentBody(std::string_view body);

}  // namespace plaudit::domain
