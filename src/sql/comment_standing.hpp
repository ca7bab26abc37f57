#pragma once
// The comment store's shared internals; its contract is sql/comments.hpp. Private to the
// comment store: only src/sql/comment*.cpp include this header.
//
// CommentTable in four files, one concern each:
//   comments.cpp            the row mapping, and the author's writes (Insert, Edit, Delete);
//   comment_standing.cpp    what those writes and moderation share: a comment's standing, the
//                           article's lock, moving the counts, a hold, reading a write back;
//   comment_moderation.cpp  Moderate, Report and the moderation queue;
//   comment_reads.cpp       the reads.
#include <cstdint>
#include <functional>
#include <optional>
#include <string_view>
#include <vector>

#include "model/comment.hpp"
#include "sql/cache_shards.hpp"
#include "sql/comments.hpp"
#include "sql/store.hpp"

namespace plaudit::sql::detail {

// The SQL more than one of the files runs.
inline constexpr std::string_view kSelect =
    "SELECT c.id, c.article_id, c.parent_id, c.author_id, u.username, "
    "COALESCE(c.guest_name, u.display_name), "
    "c.reply_to_user_id, r.username, r.display_name, c.body, c.created_at, c.updated_at, "
    "c.deleted, c.reply_count, c.like_count, c.ver, c.status, c.html FROM comments c "
    "JOIN users u ON u.id = c.author_id LEFT JOIN users r ON r.id = c.reply_to_user_id ";
// A guest's name may not be one a registered user's names hold (their keys, migration 018).
inline constexpr std::string_view kNameKeyHeld = "SELECT 1 FROM user_name_keys WHERE name_key = $1";
inline constexpr std::string_view kAddReplies =
    "UPDATE comments SET reply_count = reply_count + $2, ver = ver + 1 WHERE id = $1";
// Also raises the article's thread_seq to the write's cache stamp (migration 014).
inline constexpr std::string_view kAddToArticle =
    "UPDATE articles SET comment_count = comment_count + $2, comment_ver = comment_ver + 1, "
    "thread_seq = CASE WHEN thread_seq < $3 THEN $3 ELSE thread_seq END WHERE id = $1";
inline constexpr std::string_view kThreadSeq =
    "UPDATE articles SET thread_seq = CASE WHEN thread_seq < $2 THEN $2 ELSE thread_seq END "
    "WHERE id = $1";

// kSelect's row as the comment it is (comments.cpp).
CommentRow FromRow(const Row& r);

// A comment's standing (kState): what it adds to the counts readers see.
struct State {
  int64_t article_id = 0;
  std::optional<int64_t> parent_id;
  int64_t author_id = 0;
  bool deleted = false;
  model::CommentStatus status = model::CommentStatus::kApproved;
  int64_t reply_count = 0;
  bool kept_text = false;  // a moderator's delete kept its text (restorable)
  bool guest = false;      // a guest's: its author is the reserved '@guest', no one to answer

  // In its top-level comment's reply_count, and (unless that one hides it) in comment_count.
  bool Counted() const { return !deleted && status == model::CommentStatus::kApproved; }
  // A live pending top-level comment keeps its replies out of comment_count.
  bool HidesReplies() const { return !deleted && status == model::CommentStatus::kPending; }
};

Result<std::optional<State>> ReadState(Connection& tx, int64_t id);

// Whether the top-level comment `top` hides its replies (read under the article's lock).
Result<bool> TopHides(Connection& tx, int64_t top);

// Reads back what a write changed: `ids` in order, then the article's count.
Status ReadBack(Connection& tx, const std::vector<int64_t>& ids, int64_t article_id,
                CommentWrite& out);

// The article of comment `id`, its row taken first (the lock order of every comment write):
// the states read after this cannot change before the transaction ends.
Result<int64_t> LockArticleOf(Connection& tx, int64_t id, const CacheStamp& stamp);

// Updates comment `id`'s row and answers its new state, given the one it had.
using Apply = std::function<Result<State>(Connection&, const State&)>;

// One change of a comment's standing: the article's row locked, the comment's state read, the
// row changed by `apply`, then the counts moved by what changed (Change) and the changed rows
// read back into `out`. Returns the state before.
Result<State> ChangeStanding(Connection& tx, int64_t id, const CacheStamp& stamp,
                             const Apply& apply, CommentWrite& out);

// Holds approved comment `id` (its state `before`) with `reasons` (kHold); its new state.
Result<State> Hold(Connection& c, int64_t id, std::string_view reasons, const State& before);

// Holds approved comment `id` for a moderator (out of its indexes and counts, ChangeStanding)
// and logs the hold with `reasons`, actor none, in `tx`.
Status HoldAndLog(Connection& tx, int64_t id, std::string_view reasons, int64_t now_ms,
                  const CacheStamp& stamp, CommentWrite& out, bool notices);

}  // namespace plaudit::sql::detail
