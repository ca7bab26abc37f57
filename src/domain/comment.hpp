#pragma once
// Comments (API.md "Comments"): two levels, a top-level comment and replies under it.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/result.hpp"
#include "model/comment.hpp"

namespace plaudit::domain {

// The data types are the model layer's (below the stores, which encode them).
using model::Comment;
using model::CommentStatus;
using model::CommentStatusName;
using model::CommentUser;
using model::ParseCommentStatus;

enum class CommentSort { kNew, kOld, kHot };
std::optional<CommentSort> ParseCommentSort(std::string_view s);

struct CommentInput {
  std::string body;
  std::optional<int64_t> parent_id;
  std::optional<int64_t> reply_to_user_id;
  // The widget's spam signals (API.md "Moderation"); empty / nullopt from other clients.
  std::string honeypot;                // "website"
  std::optional<int64_t> form_age_ms;  // "formAgeMs"
};

inline constexpr size_t kMaxCommentCodePoints = 10000;
inline constexpr int64_t kMaxInlineReplies = 20;

// 1–10,000 code points after trimming surrounding white space, valid UTF-8, no control
// characters other than tab and newlines. Returns the trimmed body.
Result<std::string> NormalizeCommentBody(std::string_view body);

}  // namespace plaudit::domain
