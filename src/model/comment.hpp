#pragma once
// A comment as data (API.md "Comments"): two levels, a top-level comment and replies under
// it. Below every layer that stores or serves it (redis/comment_codec.hpp encodes it; the
// domain's rules are domain/comment.hpp's).
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace plaudit::model {

// Where moderation has put a comment (API.md "Moderation"). A deletion is apart (`deleted`):
// a deleted comment keeps the status it had.
enum class CommentStatus { kApproved = 0, kPending = 1, kSpam = 2 };
// The status's name in the API, SQL and Redis ("approved", "pending", "spam").
std::string_view CommentStatusName(CommentStatus s);
// nullopt for anything else; an empty name is approved (a cached row from before statuses).
std::optional<CommentStatus> ParseCommentStatus(std::string_view name);

// The reserved account every guest's comment is written by (migration 021): a guest's own
// name is the comment's, in display_name. Outside the username alphabet, so no one holds it.
inline constexpr std::string_view kGuestUsername = "@guest";

struct CommentUser {
  int64_t id = 0;
  std::string username;
  std::string display_name;
  // A guest (no account): shown by the name they gave, without an id (API.md "Guests").
  bool Guest() const { return username == kGuestUsername; }
};

struct Comment {
  int64_t id = 0;
  int64_t article_id = 0;
  std::optional<int64_t> parent_id;  // its top-level comment; nullopt at the top level
  CommentUser author;
  std::optional<CommentUser> reply_to;
  std::string body;  // Markdown, as given (trimmed); empty once deleted
  // body rendered once when written (text/markdown.hpp; migration 024); empty once deleted,
  // and for a comment written before html existed that start-up has not rendered yet.
  std::string html;
  int64_t created_at_ms = 0;
  int64_t updated_at_ms = 0;
  bool deleted = false;
  CommentStatus status = CommentStatus::kApproved;
  int64_t reply_count = 0;  // live approved replies (top level only)
  int64_t like_count = 0;
  bool liked = false;
  int64_t ver = 0;
  std::vector<Comment> replies;  // the first few, in list pages
  bool Approved() const { return status == CommentStatus::kApproved; }
  // Listed (in lists, counts and the hot order, for everyone): live and approved; or a
  // top-level comment deleted or marked spam that still has listed replies, as a placeholder.
  // A live pending top-level comment is not listed, nor are its replies.
  bool Listed() const {
    if (!deleted && Approved()) {
      return true;
    }
    return !parent_id && reply_count > 0 && (deleted || status == CommentStatus::kSpam);
  }
  // Its text, gone from this copy (a placeholder's, read by one who may not see it): every
  // form of it, so that no field is forgotten.
  void ClearText() {
    body.clear();
    html.clear();
  }
  // What its text weighs in a page (kPageTextBudget): every form of it.
  size_t TextBytes() const { return body.size() + html.size(); }
  // A placeholder: listed for its replies, its own text not shown.
  bool Placeholder() const { return deleted || !Approved(); }
};

}  // namespace plaudit::model
