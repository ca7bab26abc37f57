#pragma once
// Private to the CommentService files (comment_reads.cpp, comment_page_versions.cpp): who
// stands above a comment's visibility rules. Nothing else includes this.
#include <optional>

#include "domain/comment.hpp"
#include "domain/user.hpp"

namespace plaudit::domain::detail {

inline bool Moderates(const std::optional<Principal>& viewer) {
  return viewer && HasRole(viewer->role, Role::kModerator);
}

inline bool Wrote(const std::optional<Principal>& viewer, const Comment& c) {
  return viewer && viewer->id == c.author.id;
}

}  // namespace plaudit::domain::detail
