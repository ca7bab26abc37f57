#include "model/comment.hpp"

#include <array>

namespace plaudit::model {
namespace {

constexpr std::array<std::string_view, 3> kStatusNames = {"approved", "pending", "spam"};

}  // namespace

std::string_view CommentStatusName(CommentStatus s) {
  return kStatusNames.at(static_cast<size_t>(s));
}

std::optional<CommentStatus> ParseCommentStatus(std::string_view name) {
  if (name.empty()) {
    return CommentStatus::kApproved;
  }
  for (size_t i = 0; i < kStatusNames.size(); ++i) {
    if (kStatusNames[i] == name) {
      return static_cast<CommentStatus>(i);
    }
  }
  return std::nullopt;
}

}  // namespace plaudit::model
