// The rows as comments, and the author's writes: Insert, Edit and Delete. The rest of the store:
// comment_standing.hpp (what the writes share with moderation), comment_moderation.cpp and
// comment_reads.cpp.
#include "sql/comments.hpp"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sql/comment_standing.hpp"
#include "sql/notices.hpp"
#include "sql/outbox.hpp"

namespace plaudit::sql {
namespace {

// Jobs are named std::function variables, never lambda temporaries inside co_await (GCC 12).

using detail::Apply;
using detail::ChangeStanding;
using detail::HoldAndLog;
using detail::kAddReplies;
using detail::kAddToArticle;
using detail::kNameKeyHeld;
using detail::kThreadSeq;
using detail::ReadBack;
using detail::ReadState;
using detail::State;
using detail::TopHides;
using model::CommentStatus;

// Reserved accounts ('@pages', '@guest') are nobody to answer.
constexpr std::string_view kUserExists =
    "SELECT 1 FROM users WHERE id = $1 AND username NOT LIKE '@%'";
// Guests' comments are the reserved account's (migration 021).
constexpr std::string_view kGuestAccount = "SELECT id FROM users WHERE username_key = '@guest'";
constexpr std::string_view kIdTaken = "SELECT 1 FROM comments WHERE id = $1";
constexpr std::string_view kInsert =
    "INSERT INTO comments (id, article_id, parent_id, author_id, reply_to_user_id, body, "
    "created_at, updated_at, status, held_reasons, guest_name, guest_email, edit_token_hash, "
    "answers_id, html) VALUES ($1, $2, $3, $4, $5, $6, $7, $7, $8, $9, $10, $11, $12, $13, $14)";
constexpr std::string_view kEdit =
    "UPDATE comments SET body = $2, html = $4, updated_at = $3, ver = ver + 1 "
    "WHERE id = $1 AND deleted = 0";
constexpr std::string_view kLive =
    "SELECT article_id, parent_id FROM comments WHERE id = $1 AND deleted = 0";
constexpr std::string_view kDelete =
    "UPDATE comments SET deleted = 1, body = '', html = '', updated_at = $2, ver = ver + 1 "
    "WHERE id = $1 AND deleted = 0";

}  // namespace

namespace detail {

CommentRow FromRow(const Row& r) {
  CommentRow c;
  c.id = Int(r[0]);
  c.article_id = Int(r[1]);
  c.parent_id = OptionalInt(r[2]);
  c.author_id = Int(r[3]);
  c.author_username = Text(r[4]);
  c.author_display_name = Text(r[5]);
  if (!IsNull(r[6])) {
    c.reply_to_id = Int(r[6]);
    c.reply_to_username = Text(r[7]);
    c.reply_to_display_name = Text(r[8]);
  }
  c.body = Text(r[9]);
  c.created_at_ms = Int(r[10]);
  c.updated_at_ms = Int(r[11]);
  c.deleted = Int(r[12]) != 0;
  c.reply_count = Int(r[13]);
  c.like_count = Int(r[14]);
  c.ver = Int(r[15]);
  c.status = model::ParseCommentStatus(Text(r[16])).value_or(model::CommentStatus::kPending);
  c.html = Text(r[17]);
  return c;
}

}  // namespace detail

model::Comment ToComment(const CommentRow& r) {
  model::Comment c;
  c.id = r.id;
  c.article_id = r.article_id;
  c.parent_id = r.parent_id;
  c.author = {r.author_id, r.author_username, r.author_display_name};
  if (r.reply_to_id) {
    c.reply_to = model::CommentUser{*r.reply_to_id, r.reply_to_username, r.reply_to_display_name};
  }
  c.body = r.body;
  c.html = r.html;
  c.created_at_ms = r.created_at_ms;
  c.updated_at_ms = r.updated_at_ms;
  c.deleted = r.deleted;
  c.reply_count = r.reply_count;
  c.like_count = r.like_count;
  c.ver = r.ver;
  c.status = r.status;
  return c;
}

std::vector<model::Comment> ToComments(const std::vector<CommentRow>& rows) {
  std::vector<model::Comment> out;
  out.reserve(rows.size());
  for (const auto& r : rows) {
    out.push_back(ToComment(r));
  }
  return out;
}

Awaitable<Result<CommentWrite>> CommentTable::Insert(NewComment c, CacheStamp stamp) {
  std::function<Result<CommentWrite>(Connection&)> job =
      [c = std::move(c), stamp,
       notices = notices_](Connection& conn) mutable -> Result<CommentWrite> {
    CommentWrite out;
    auto st = conn.Transaction([&](Connection& tx) -> Status {
      if (c.guest) {
        PL_TRY(auto held, tx.Query(kNameKeyHeld, {c.guest->name_key}));
        if (!held.rows.empty()) {
          return Fail(ErrorCode::kAlreadyExists,
                      "guest.name looks like a registered user's name; choose another");
        }
        PL_TRY(auto guest, tx.QueryInt(kGuestAccount));
        if (!guest) {
          return Fail(ErrorCode::kInternal, "no '@guest' account");
        }
        c.author_id = *guest;
      }
      std::optional<int64_t> top;
      std::optional<int64_t> reply_to = c.reply_to_user_id;
      bool top_hides = false;
      if (c.parent_id) {
        // The article's row first (the lock order of every comment write and the like flush):
        // the parent's standing, read after it, cannot change before this commits.
        PL_TRY(auto lock, tx.Query(kThreadSeq, {c.article_id, stamp.seq}));
        if (lock.affected == 0) {
          return Fail(ErrorCode::kNotFound, "no such article");
        }
        PL_TRY(auto p, ReadState(tx, *c.parent_id));
        // A spam comment is a placeholder to readers, as a deleted one is: no new replies.
        if (!p || (p)->article_id != c.article_id || (p)->deleted ||
            (p)->status == CommentStatus::kSpam) {
          return Fail(ErrorCode::kInvalidArgument,
                      "parentId must be a live comment of this article");
        }
        if (!(p)->parent_id) {
          top = c.parent_id;
          top_hides = (p)->HidesReplies();
        } else {
          // A reply to a reply: placed under the same top-level comment, answering its author.
          top = (p)->parent_id;
          reply_to = (p)->guest ? std::nullopt : std::optional<int64_t>((p)->author_id);
          PL_TRY(auto hides, TopHides(tx, *top));
          top_hides = hides;
        }
      }
      if (reply_to && reply_to != c.author_id) {
        PL_TRY(auto u, tx.Query(kUserExists, {*reply_to}));
        if (u.rows.empty()) {
          return Fail(ErrorCode::kInvalidArgument, "replyToUserId: no such user");
        }
      }
      PL_TRY(auto taken, tx.Query(kIdTaken, {c.id}));
      if (!taken.rows.empty()) {
        return Fail(ErrorCode::kAlreadyExists, std::string(kCommentIdTaken));
      }
      const bool counted = c.status == CommentStatus::kApproved;
      const int64_t shown = counted && !top_hides ? 1 : 0;
      PL_TRY(auto a, tx.Query(kAddToArticle, {c.article_id, shown, stamp.seq}));
      if (a.affected == 0) {
        return Fail(ErrorCode::kNotFound, "no such article");
      }
      auto ins = tx.Query(
          kInsert,
          {c.id, c.article_id, Nullable(top), c.author_id, Nullable(reply_to), c.body, c.now_ms,
           std::string(model::CommentStatusName(c.status)), c.held_reasons,
           c.guest ? Value{c.guest->name} : Value{nullptr},
           c.guest && !c.guest->email.empty() ? Value{c.guest->email} : Value{nullptr},
           c.guest ? Value{c.guest->token_hash} : Value{nullptr}, Nullable(c.parent_id), c.html});
      PL_CHECK(ins);
      std::vector<int64_t> ids{c.id};
      if (top && counted) {
        auto r = tx.Query(kAddReplies, {*top, int64_t{1}});
        PL_CHECK(r);
        ids.push_back(*top);
      }
      if (!counted) {
        ModerationLogEntry held;
        held.at_ms = c.now_ms;
        held.action = "held";
        held.comment_id = c.id;
        held.user_id = c.author_id;
        held.reason = c.held_reasons;
        if (auto logged = AppendModerationLog(tx, held); !logged) {
          return logged;
        }
      }
      if (notices) {
        // The notices it causes, in its own transaction (invariant 10): one event row.
        const CommentEvent e{counted ? CommentEventType::kCreated : CommentEventType::kHeld, c.id,
                             c.parent_id, ""};
        if (auto st = OutboxTable::EnqueueComment(tx, e, c.now_ms); !st) {
          return st;
        }
        if (c.guest && c.guest->confirm) {
          if (auto st = NoticeBook::NoteGuestAddress(tx, *c.guest->confirm, c.now_ms); !st) {
            return st;
          }
        }
      }
      if (auto read = ReadBack(tx, ids, c.article_id, out); !read) {
        return read;
      }
      return RaiseCacheShard(tx, stamp);
    });
    PL_CHECK(st);
    return out;
  };
  co_return co_await store_.RunGrouped<CommentWrite>(std::move(job), stamp.article_id);
}

Awaitable<Result<CommentWrite>> CommentTable::Edit(int64_t id, CommentText text, int64_t now_ms,
                                                   std::string hold_reasons, CacheStamp stamp) {
  std::function<Result<CommentWrite>(Connection&)> job =
      [id, text = std::move(text), now_ms, hold_reasons = std::move(hold_reasons), stamp,
       notices = notices_](Connection& conn) -> Result<CommentWrite> {
    CommentWrite out;
    auto st = conn.Transaction([&](Connection& tx) -> Status {
      PL_TRY(auto article_id, tx.QueryInt(kLive, {id}));
      if (!article_id) {
        return Fail(ErrorCode::kNotFound, "no such comment");
      }
      // The article's row first (the lock order of Insert and Delete).
      PL_CHECK(tx.Query(kThreadSeq, {*article_id, stamp.seq}));
      PL_TRY(auto r, tx.Query(kEdit, {id, text.body, now_ms, text.html}));
      if (r.affected == 0) {
        return Fail(ErrorCode::kNotFound, "no such comment");
      }
      PL_TRY(auto state, hold_reasons.empty() ? Result<std::optional<State>>{} : ReadState(tx, id));
      if (state && (state)->status == CommentStatus::kApproved) {
        // The new text holds it: out of every index and count in this same transaction.
        if (auto held = HoldAndLog(tx, id, hold_reasons, now_ms, stamp, out, notices); !held) {
          return held;
        }
      } else {
        const std::vector<int64_t> ids{id};
        if (auto read = ReadBack(tx, ids, *article_id, out); !read) {
          return read;
        }
      }
      return RaiseCacheShard(tx, stamp);
    });
    PL_CHECK(st);
    return out;
  };
  co_return co_await store_.RunGrouped<CommentWrite>(std::move(job), stamp.article_id);
}

Awaitable<Result<CommentWrite>> CommentTable::Delete(int64_t id, int64_t now_ms, CacheStamp stamp) {
  std::function<Result<CommentWrite>(Connection&)> job =
      [id, now_ms, stamp, notices = notices_](Connection& conn) -> Result<CommentWrite> {
    CommentWrite out;
    auto st = conn.Transaction([&](Connection& tx) -> Status {
      const Apply remove = [id, now_ms](Connection& c, const State& before) -> Result<State> {
        if (before.deleted) {
          return Fail(ErrorCode::kNotFound, "no such comment");
        }
        PL_CHECK(c.Query(kDelete, {id, now_ms}));
        State after = before;
        after.deleted = true;
        return after;
      };
      PL_TRY(auto changed, ChangeStanding(tx, id, stamp, remove, out));
      if (notices && changed.Counted()) {  // readers saw it: sites are told it went
        const CommentEvent e{CommentEventType::kDeleted, id, std::nullopt, "author"};
        if (auto st = OutboxTable::EnqueueComment(tx, e, now_ms); !st) {
          return st;
        }
      }
      return RaiseCacheShard(tx, stamp);
    });
    PL_CHECK(st);
    return out;
  };
  co_return co_await store_.RunGrouped<CommentWrite>(std::move(job), stamp.article_id);
}

}  // namespace plaudit::sql
