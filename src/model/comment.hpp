#pragma once
// A comment as data (API.md "Comments"): two levels, a top-level comment and replies under
// it. Below every layer that stores or serves it (redis/comment_codec.hpp encodes it; the
// domain's rules are domain/comment.hpp's).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace plaudit::model {

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

}  // namespace plaudit::model
