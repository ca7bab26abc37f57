// A moderator's calls (Moderate and its queue) and a reader's Report, which may hold a comment.
#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sql/comment_standing.hpp"
#include "sql/comments.hpp"
#include "sql/dialect.hpp"
#include "sql/moderation_log.hpp"
#include "sql/outbox.hpp"

namespace plaudit::sql {
namespace {

// Jobs are named std::function variables, never lambda temporaries inside co_await (GCC 12).

using detail::Apply;
using detail::ChangeStanding;
using detail::FromRow;
using detail::Hold;
using detail::HoldAndLog;
using detail::LockArticleOf;
using detail::ReadState;
using detail::State;
using model::CommentStatus;

// A moderator's delete keeps the text aside for `restore`. A text removed before migration 024
// comes back without html: readers show its body until the next start renders it.
constexpr std::string_view kRemove =
    "UPDATE comments SET deleted = 1, removed_body = body, body = '', removed_html = html, "
    "html = '', updated_at = $2, ver = ver + 1 WHERE id = $1 AND deleted = 0";
constexpr std::string_view kRestore =
    "UPDATE comments SET deleted = 0, body = removed_body, removed_body = NULL, "
    "html = COALESCE(removed_html, ''), removed_html = NULL, "
    "status = 'approved', held_reasons = '', reports = 0, ver = ver + 1 "
    "WHERE id = $1 AND deleted = 1 AND removed_body IS NOT NULL";
constexpr std::string_view kHeldForReports = "reports";
constexpr std::string_view kSetStatus =
    "UPDATE comments SET status = $2, held_reasons = $3, reports = $4, ver = ver + 1 "
    "WHERE id = $1";
// A moderator's decision zeroes the count; the rows stay, so a reader who reported once never
// counts again (else the same few readers could hold a comment after every approval).
constexpr std::string_view kClearReports = "UPDATE comments SET reports = 0 WHERE id = $1";
constexpr std::string_view kAddReport =
    "INSERT INTO comment_reports (comment_id, user_id, reason, at) VALUES ($1, $2, $3, $4) "
    "ON CONFLICT DO NOTHING";
constexpr std::string_view kCountReport = "UPDATE comments SET reports = reports + 1 WHERE id = $1";
constexpr std::string_view kReports = "SELECT reports FROM comments WHERE id = $1";
// The queue: kSelect's columns, then why it was held, its reports, its article's title and a
// page thread's URL.
constexpr std::string_view kQueueSelect =
    "SELECT c.id, c.article_id, c.parent_id, c.author_id, u.username, "
    "COALESCE(c.guest_name, u.display_name), "
    "c.reply_to_user_id, r.username, r.display_name, c.body, c.created_at, c.updated_at, "
    "c.deleted, c.reply_count, c.like_count, c.ver, c.status, c.html, c.held_reasons, c.reports, "
    "a.title, p.url, c.guest_email FROM comments c JOIN users u ON u.id = c.author_id "
    "LEFT JOIN users r ON r.id = c.reply_to_user_id JOIN articles a ON a.id = c.article_id "
    "LEFT JOIN pages p ON p.article_id = c.article_id WHERE c.id > $1 AND c.deleted = 0 ";
constexpr std::string_view kQueuePending = "AND c.status <> 'approved' AND c.status = 'pending' ";
constexpr std::string_view kQueueSpam = "AND c.status <> 'approved' AND c.status = 'spam' ";
constexpr std::string_view kQueueReported = "AND c.reports > 0 ";
constexpr std::string_view kQueueOfArticle = "AND c.article_id = $3 ";
constexpr std::string_view kQueueOrder = "ORDER BY c.id LIMIT $2";

Status SetStatus(Connection& c, int64_t id, CommentStatus status, std::string_view reasons,
                 int64_t reports) {
  PL_CHECK(c.Query(kSetStatus, {id, std::string(model::CommentStatusName(status)),
                                std::string(reasons), reports}));
  return {};
}

// kQueueSelect's row.
QueuedComment QueuedFromRow(const Row& row) {
  QueuedComment q;
  q.row = FromRow(row);
  q.held_reasons = Text(row[18]);
  q.reports = Int(row[19]);
  q.article_title = Text(row[20]);
  if (!IsNull(row[21])) {
    q.page_url = Text(row[21]);
  }
  q.guest_email = Text(row[22]);
  return q;
}

// `action` on a comment in state `before` (ModerationAction's rules); its new state.
Result<State> ApplyAction(Connection& c, int64_t id, ModerationAction action, int64_t now_ms,
                          const State& before) {
  State after = before;
  switch (action) {
    case ModerationAction::kApprove:
    case ModerationAction::kSpam: {
      if (before.deleted) {
        return Fail(ErrorCode::kNotFound, "the comment was deleted");
      }
      after.status =
          action == ModerationAction::kApprove ? CommentStatus::kApproved : CommentStatus::kSpam;
      PL_CHECK(SetStatus(c, id, after.status, "", 0));
      PL_CHECK(c.Query(kClearReports, {id}));
      return after;
    }
    case ModerationAction::kHold:
      return Hold(c, id, kHeldForReports, before);
    case ModerationAction::kDelete: {
      if (before.deleted) {
        return Fail(ErrorCode::kNotFound, "the comment was deleted");
      }
      PL_CHECK(c.Query(kRemove, {id, now_ms}));
      after.deleted = true;
      after.kept_text = true;
      return after;
    }
    case ModerationAction::kRestore: {
      if (before.deleted) {
        if (!before.kept_text) {
          return Fail(ErrorCode::kAlreadyExists, "its author deleted it: nothing to restore");
        }
        PL_CHECK(c.Query(kRestore, {id}));
        after.deleted = false;
        after.kept_text = false;
        after.status = CommentStatus::kApproved;
        PL_CHECK(c.Query(kClearReports, {id}));
        return after;
      }
      if (before.status == CommentStatus::kApproved) {
        return Fail(ErrorCode::kAlreadyExists, "the comment is not removed: nothing to restore");
      }
      after.status = CommentStatus::kApproved;
      PL_CHECK(SetStatus(c, id, after.status, "", 0));
      PL_CHECK(c.Query(kClearReports, {id}));
      return after;
    }
  }
  return Fail(ErrorCode::kInvalidArgument, "unknown moderation action");
}

// The event a moderator's action causes, when it changes what readers see: approving or
// restoring a comment they did not see, holding or removing one they did.
std::optional<CommentEvent> EventOf(ModerationAction action, int64_t id, const State& before) {
  const bool seen = before.Counted();
  switch (action) {
    case ModerationAction::kApprove:
    case ModerationAction::kRestore:
      if (seen) {
        return std::nullopt;
      }
      return CommentEvent{CommentEventType::kApproved, id, std::nullopt, ""};
    case ModerationAction::kHold:
      if (!seen) {
        return std::nullopt;
      }
      return CommentEvent{CommentEventType::kHeld, id, std::nullopt, ""};
    case ModerationAction::kSpam:
    case ModerationAction::kDelete:
      if (before.deleted || before.status == CommentStatus::kSpam) {
        return std::nullopt;
      }
      return CommentEvent{CommentEventType::kDeleted, id, std::nullopt,
                          action == ModerationAction::kSpam ? "spam" : "moderator"};
  }
  return std::nullopt;
}

}  // namespace

std::string_view ActionName(ModerationAction a) {
  constexpr std::array<std::string_view, 5> kNames = {"approve", "spam", "delete", "restore",
                                                      "held"};
  return kNames.at(static_cast<size_t>(a));
}

Awaitable<Result<CommentWrite>> CommentTable::Moderate(int64_t id, ModerationAction action,
                                                       ModerationLogEntry log, CacheStamp stamp) {
  std::function<Result<CommentWrite>(Connection&)> job =
      [id, action, log = std::move(log), stamp,
       notices = notices_](Connection& conn) -> Result<CommentWrite> {
    CommentWrite out;
    auto st = conn.Transaction([&](Connection& tx) -> Status {
      const Apply apply = [&](Connection& c, const State& before) -> Result<State> {
        return ApplyAction(c, id, action, log.at_ms, before);
      };
      PL_TRY(auto before, ChangeStanding(tx, id, stamp, apply, out));
      ModerationLogEntry entry = log;
      entry.action = std::string(ActionName(action));
      entry.comment_id = id;
      entry.user_id = before.author_id;
      if (auto logged = AppendModerationLog(tx, entry); !logged) {
        return logged;
      }
      if (notices) {
        if (auto e = EventOf(action, id, before)) {
          if (auto st = OutboxTable::EnqueueComment(tx, *e, log.at_ms); !st) {
            return st;
          }
        }
      }
      return RaiseCacheShard(tx, stamp);
    });
    PL_CHECK(st);
    return out;
  };
  co_return co_await store_.RunGrouped<CommentWrite>(std::move(job), stamp.article_id);
}

Awaitable<Result<std::optional<CommentWrite>>> CommentTable::Report(int64_t id, int64_t user_id,
                                                                    std::string reason,
                                                                    int64_t now_ms,
                                                                    int64_t threshold,
                                                                    CacheStamp stamp) {
  using Out = std::optional<CommentWrite>;
  std::function<Result<Out>(Connection&)> job =
      [id, user_id, reason = std::move(reason), now_ms, threshold, stamp,
       notices = notices_](Connection& conn) -> Result<Out> {
    Out out;
    auto st = conn.Transaction([&](Connection& tx) -> Status {
      PL_CHECK(LockArticleOf(tx, id, stamp));
      PL_TRY(auto state, ReadState(tx, id));
      if (!state || (state)->deleted) {
        return Fail(ErrorCode::kNotFound, "no such comment");
      }
      PL_TRY(auto added, InsertOrNothing(tx, kAddReport, {id, user_id, reason, now_ms}));
      if (added.affected > 0) {
        PL_CHECK(tx.Query(kCountReport, {id}));
        PL_TRY(auto reports, tx.QueryInt(kReports, {id}));
        const bool held = (state)->status == CommentStatus::kApproved && threshold > 0 &&
                          reports.value_or(0) >= threshold;
        if (held) {
          CommentWrite w;
          if (auto st = HoldAndLog(tx, id, kHeldForReports, now_ms, stamp, w, notices); !st) {
            return st;
          }
          out = std::move(w);
        }
      }
      return RaiseCacheShard(tx, stamp);
    });
    PL_CHECK(st);
    return out;
  };
  co_return co_await store_.RunGrouped<Out>(std::move(job), stamp.article_id);
}

Awaitable<Result<std::vector<QueuedComment>>> CommentTable::Queue(QueueFilter filter,
                                                                  std::optional<int64_t> article_id,
                                                                  int64_t after_id, int64_t limit) {
  std::function<Result<std::vector<QueuedComment>>(Connection&)> job =
      [filter, article_id, after_id, limit](Connection& c) -> Result<std::vector<QueuedComment>> {
    // Each filter repeats its partial index's predicate (migration 019): SQLite uses a partial
    // index only when the query's WHERE names the index's own condition.
    std::string where;
    switch (filter) {
      case QueueFilter::kPending:
        where = kQueuePending;
        break;
      case QueueFilter::kSpam:
        where = kQueueSpam;
        break;
      case QueueFilter::kReported:
        where = kQueueReported;
        break;
    }
    std::vector<Value> params{after_id, limit};
    if (article_id) {
      where += kQueueOfArticle;
      params.push_back(*article_id);
    }
    return c.QueryRows(std::string(kQueueSelect) + where + std::string(kQueueOrder), params,
                       QueuedFromRow);
  };
  co_return co_await store_.Run<std::vector<QueuedComment>>(std::move(job));
}

}  // namespace plaudit::sql
