// What the author's writes and moderation share (comment_standing.hpp): a comment's standing
// and how changing it moves the counts, under the article's lock.
#include "sql/comment_standing.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sql/moderation_log.hpp"
#include "sql/outbox.hpp"

namespace plaudit::sql::detail {
namespace {

using model::CommentStatus;

// A comment as a write decides on it: placement, author, and what it adds to the counts.
constexpr std::string_view kState =
    "SELECT article_id, parent_id, author_id, deleted, status, reply_count, "
    "removed_body IS NOT NULL, guest_name IS NOT NULL FROM comments WHERE id = $1";
constexpr std::string_view kArticleOf = "SELECT article_id FROM comments WHERE id = $1";
constexpr std::string_view kArticleCount =
    "SELECT comment_count, comment_ver FROM articles WHERE id = $1";
// Holds an approved comment for a moderator, with why (a reader's reports, an edit's text).
constexpr std::string_view kHold =
    "UPDATE comments SET status = 'pending', held_reasons = $2, ver = ver + 1 WHERE id = $1";

// What moving a comment from `before` to `after` changes in the counts: its top-level
// comment's reply_count (a reply) and the article's comment_count. `top_hides`: the reply's
// top-level comment hides its replies.
struct CountChange {
  int64_t replies = 0;
  int64_t article = 0;
};

CountChange Change(const State& before, const State& after, bool top_hides) {
  CountChange c;
  const int64_t self = int64_t{after.Counted()} - int64_t{before.Counted()};
  if (before.parent_id) {
    c.replies = self;
    c.article = top_hides ? 0 : self;
  } else {
    // Its replies come into (or go out of) the count with it when it stops (starts) hiding.
    const int64_t shown_before = before.HidesReplies() ? 0 : before.reply_count;
    const int64_t shown_after = after.HidesReplies() ? 0 : after.reply_count;
    c.article = self + shown_after - shown_before;
  }
  return c;
}

// kState's row.
State StateFromRow(const Row& row) {
  State s;
  s.article_id = Int(row[0]);
  s.parent_id = OptionalInt(row[1]);
  s.author_id = Int(row[2]);
  s.deleted = Int(row[3]) != 0;
  s.status = model::ParseCommentStatus(Text(row[4])).value_or(CommentStatus::kPending);
  s.reply_count = Int(row[5]);
  s.kept_text = Int(row[6]) != 0;
  s.guest = Int(row[7]) != 0;
  return s;
}

}  // namespace

Result<std::optional<State>> ReadState(Connection& tx, int64_t id) {
  return tx.QueryRow(kState, {id}, StateFromRow);
}

Result<bool> TopHides(Connection& tx, int64_t top) {
  PL_TRY(auto t, ReadState(tx, top));
  return t && (t)->HidesReplies();
}

Status ReadBack(Connection& tx, const std::vector<int64_t>& ids, int64_t article_id,
                CommentWrite& out) {
  for (int64_t id : ids) {
    PL_TRY(auto row, tx.QueryRow(std::string(kSelect) + "WHERE c.id = $1", {id}, FromRow));
    if (!row) {
      return Fail(ErrorCode::kInternal, "comment vanished in its transaction");
    }
    out.rows.push_back(std::move(*row));
  }
  PL_TRY(auto a, tx.Query(kArticleCount, {article_id}));
  if (a.rows.empty()) {
    return Fail(ErrorCode::kNotFound, "no such article");
  }
  out.article_comment_count = Int(a.rows[0][0]);
  out.article_comment_ver = Int(a.rows[0][1]);
  return {};
}

Result<int64_t> LockArticleOf(Connection& tx, int64_t id, const CacheStamp& stamp) {
  PL_TRY(auto article_id, tx.QueryInt(kArticleOf, {id}));
  if (!article_id) {
    return Fail(ErrorCode::kNotFound, "no such comment");
  }
  PL_CHECK(tx.Query(kThreadSeq, {*article_id, stamp.seq}));
  return *article_id;
}

Result<State> ChangeStanding(Connection& tx, int64_t id, const CacheStamp& stamp,
                             const Apply& apply, CommentWrite& out) {
  PL_TRY(auto article_id, LockArticleOf(tx, id, stamp));
  PL_TRY(auto before, ReadState(tx, id));
  if (!before) {
    return Fail(ErrorCode::kNotFound, "no such comment");
  }
  PL_TRY(auto after, apply(tx, *before));
  bool top_hides = false;
  if ((before)->parent_id) {
    PL_TRY(auto hides, TopHides(tx, *(before)->parent_id));
    top_hides = hides;
  }
  const CountChange change = Change(*before, after, top_hides);
  PL_CHECK(tx.Query(kAddToArticle, {article_id, change.article, stamp.seq}));
  std::vector<int64_t> ids{id};
  if (change.replies != 0) {
    PL_CHECK(tx.Query(kAddReplies, {*(before)->parent_id, change.replies}));
    ids.push_back(*(before)->parent_id);
  }
  PL_CHECK(ReadBack(tx, ids, article_id, out));
  return *before;
}

Result<State> Hold(Connection& c, int64_t id, std::string_view reasons, const State& before) {
  if (before.deleted || before.status != CommentStatus::kApproved) {
    return Fail(ErrorCode::kAlreadyExists, "only an approved comment can be held");
  }
  PL_CHECK(c.Query(kHold, {id, std::string(reasons)}));
  State after = before;
  after.status = CommentStatus::kPending;
  return after;
}

Status HoldAndLog(Connection& tx, int64_t id, std::string_view reasons, int64_t now_ms,
                  const CacheStamp& stamp, CommentWrite& out, bool notices) {
  const Apply hold = [&](Connection& c, const State& before) -> Result<State> {
    return Hold(c, id, reasons, before);
  };
  PL_TRY(auto before, ChangeStanding(tx, id, stamp, hold, out));
  ModerationLogEntry entry;
  entry.at_ms = now_ms;
  entry.action = std::string(ActionName(ModerationAction::kHold));
  entry.comment_id = id;
  entry.user_id = before.author_id;
  entry.reason = std::string(reasons);
  if (auto logged = AppendModerationLog(tx, entry); !logged) {
    return logged;
  }
  if (!notices) {
    return {};
  }
  return OutboxTable::EnqueueComment(tx, {CommentEventType::kHeld, id, std::nullopt, ""}, now_ms);
}

}  // namespace plaudit::sql::detail
