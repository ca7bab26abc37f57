#include "sql/comments.hpp"

#include <array>

#include "sql/dialect.hpp"
#include "sql/notices.hpp"
#include "sql/outbox.hpp"

namespace plaudit::sql {
namespace {

// Jobs are named std::function variables, never lambda temporaries inside co_await (GCC 12).

constexpr std::string_view kSelect =
    "SELECT c.id, c.article_id, c.parent_id, c.author_id, u.username, "
    "COALESCE(c.guest_name, u.display_name), "
    "c.reply_to_user_id, r.username, r.display_name, c.body, c.created_at, c.updated_at, "
    "c.deleted, c.reply_count, c.like_count, c.ver, c.status FROM comments c "
    "JOIN users u ON u.id = c.author_id LEFT JOIN users r ON r.id = c.reply_to_user_id ";
// A comment as a write decides on it: placement, author, and what it adds to the counts.
constexpr std::string_view kState =
    "SELECT article_id, parent_id, author_id, deleted, status, reply_count, "
    "removed_body IS NOT NULL, guest_name IS NOT NULL FROM comments WHERE id = $1";
constexpr std::string_view kArticleOf = "SELECT article_id FROM comments WHERE id = $1";
// Reserved accounts ('@pages', '@guest') are nobody to answer.
constexpr std::string_view kUserExists =
    "SELECT 1 FROM users WHERE id = $1 AND username NOT LIKE '@%'";
// Guests' comments are the reserved account's (migration 021); a guest's name may not be one a
// registered user's names hold (their keys, migration 018).
constexpr std::string_view kGuestAccount = "SELECT id FROM users WHERE username_key = '@guest'";
constexpr std::string_view kNameKeyHeld = "SELECT 1 FROM user_name_keys WHERE name_key = $1";
constexpr std::string_view kEditTokenHash =
    "SELECT edit_token_hash FROM comments WHERE id = $1 AND edit_token_hash IS NOT NULL";
constexpr std::string_view kIdTaken = "SELECT 1 FROM comments WHERE id = $1";
constexpr std::string_view kInsert =
    "INSERT INTO comments (id, article_id, parent_id, author_id, reply_to_user_id, body, "
    "created_at, updated_at, status, held_reasons, guest_name, guest_email, edit_token_hash, "
    "answers_id) VALUES ($1, $2, $3, $4, $5, $6, $7, $7, $8, $9, $10, $11, $12, $13)";
constexpr std::string_view kAddReplies =
    "UPDATE comments SET reply_count = reply_count + $2, ver = ver + 1 WHERE id = $1";
// Also raises the article's thread_seq to the write's cache stamp (migration 014).
constexpr std::string_view kAddToArticle =
    "UPDATE articles SET comment_count = comment_count + $2, comment_ver = comment_ver + 1, "
    "thread_seq = CASE WHEN thread_seq < $3 THEN $3 ELSE thread_seq END WHERE id = $1";
constexpr std::string_view kThreadSeq =
    "UPDATE articles SET thread_seq = CASE WHEN thread_seq < $2 THEN $2 ELSE thread_seq END "
    "WHERE id = $1";
constexpr std::string_view kArticleCount =
    "SELECT comment_count, comment_ver FROM articles WHERE id = $1";
constexpr std::string_view kEdit =
    "UPDATE comments SET body = $2, updated_at = $3, ver = ver + 1 WHERE id = $1 AND deleted = 0";
constexpr std::string_view kLive =
    "SELECT article_id, parent_id FROM comments WHERE id = $1 AND deleted = 0";
constexpr std::string_view kDelete =
    "UPDATE comments SET deleted = 1, body = '', updated_at = $2, ver = ver + 1 "
    "WHERE id = $1 AND deleted = 0";
// A moderator's delete keeps the text aside for `restore`.
constexpr std::string_view kRemove =
    "UPDATE comments SET deleted = 1, removed_body = body, body = '', updated_at = $2, "
    "ver = ver + 1 WHERE id = $1 AND deleted = 0";
constexpr std::string_view kRestore =
    "UPDATE comments SET deleted = 0, body = removed_body, removed_body = NULL, "
    "status = 'approved', held_reasons = '', reports = 0, ver = ver + 1 "
    "WHERE id = $1 AND deleted = 1 AND removed_body IS NOT NULL";
// Holds an approved comment for a moderator, with why (a reader's reports, an edit's text).
constexpr std::string_view kHold =
    "UPDATE comments SET status = 'pending', held_reasons = $2, ver = ver + 1 WHERE id = $1";
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
    "c.deleted, c.reply_count, c.like_count, c.ver, c.status, c.held_reasons, c.reports, "
    "a.title, p.url, c.guest_email FROM comments c JOIN users u ON u.id = c.author_id "
    "LEFT JOIN users r ON r.id = c.reply_to_user_id JOIN articles a ON a.id = c.article_id "
    "LEFT JOIN pages p ON p.article_id = c.article_id WHERE c.id > $1 AND c.deleted = 0 ";
constexpr std::string_view kQueuePending = "AND c.status <> 'approved' AND c.status = 'pending' ";
constexpr std::string_view kQueueSpam = "AND c.status <> 'approved' AND c.status = 'spam' ";
constexpr std::string_view kQueueReported = "AND c.reports > 0 ";
constexpr std::string_view kQueueOfArticle = "AND c.article_id = $3 ";
constexpr std::string_view kQueueOrder = "ORDER BY c.id LIMIT $2";
constexpr std::string_view kHasApproved =
    "SELECT 1 FROM comments WHERE author_id = $1 AND status = 'approved' LIMIT 1";
// Also ids of comments deleted with their article (migration 015).
constexpr std::string_view kMaxId =
    "SELECT MAX(m) FROM (SELECT COALESCE(MAX(id), 0) AS m FROM comments UNION ALL "
    "SELECT last AS m FROM id_marks WHERE name = 'comment') s";

CommentRow FromRow(const Row& r) {
  CommentRow c;
  c.id = Int(r[0]);
  c.article_id = Int(r[1]);
  if (!IsNull(r[2])) {
    c.parent_id = Int(r[2]);
  }
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
  return c;
}

using model::CommentStatus;

// A comment's standing (kState): what it adds to the counts readers see.
struct State {
  int64_t article_id = 0;
  std::optional<int64_t> parent_id;
  int64_t author_id = 0;
  bool deleted = false;
  CommentStatus status = CommentStatus::kApproved;
  int64_t reply_count = 0;
  bool kept_text = false;  // a moderator's delete kept its text (restorable)
  bool guest = false;      // a guest's: its author is the reserved '@guest', no one to answer

  // In its top-level comment's reply_count, and (unless that one hides it) in comment_count.
  bool Counted() const { return !deleted && status == CommentStatus::kApproved; }
  // A live pending top-level comment keeps its replies out of comment_count.
  bool HidesReplies() const { return !deleted && status == CommentStatus::kPending; }
};

Result<std::optional<State>> ReadState(Connection& tx, int64_t id) {
  auto r = tx.Query(kState, {id});
  if (!r) {
    return tl::unexpected(r.error());
  }
  if (r->rows.empty()) {
    return std::optional<State>{};
  }
  const Row& row = r->rows[0];
  State s;
  s.article_id = Int(row[0]);
  if (!IsNull(row[1])) {
    s.parent_id = Int(row[1]);
  }
  s.author_id = Int(row[2]);
  s.deleted = Int(row[3]) != 0;
  s.status = model::ParseCommentStatus(Text(row[4])).value_or(CommentStatus::kPending);
  s.reply_count = Int(row[5]);
  s.kept_text = Int(row[6]) != 0;
  s.guest = Int(row[7]) != 0;
  return std::optional<State>(s);
}

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

// Whether the top-level comment `top` hides its replies (read under the article's lock).
Result<bool> TopHides(Connection& tx, int64_t top) {
  auto t = ReadState(tx, top);
  if (!t) {
    return tl::unexpected(t.error());
  }
  return *t && (*t)->HidesReplies();
}

Value OptionalId(const std::optional<int64_t>& id) { return id ? Value{*id} : Value{nullptr}; }

// Reads back what a write changed: `ids` in order, then the article's count.
Status ReadBack(Connection& tx, const std::vector<int64_t>& ids, int64_t article_id,
                CommentWrite& out) {
  for (int64_t id : ids) {
    auto r = tx.Query(std::string(kSelect) + "WHERE c.id = $1", {id});
    if (!r) {
      return tl::unexpected(r.error());
    }
    if (r->rows.empty()) {
      return Fail(ErrorCode::kInternal, "comment vanished in its transaction");
    }
    out.rows.push_back(FromRow(r->rows[0]));
  }
  auto a = tx.Query(kArticleCount, {article_id});
  if (!a) {
    return tl::unexpected(a.error());
  }
  if (a->rows.empty()) {
    return Fail(ErrorCode::kNotFound, "no such article");
  }
  out.article_comment_count = Int(a->rows[0][0]);
  out.article_comment_ver = Int(a->rows[0][1]);
  return {};
}

}  // namespace

namespace {

// The article of comment `id`, its row taken first (the lock order of every comment write):
// the states read after this cannot change before the transaction ends.
Result<int64_t> LockArticleOf(Connection& tx, int64_t id, const CacheStamp& stamp) {
  auto a = tx.Query(kArticleOf, {id});
  if (!a) {
    return tl::unexpected(a.error());
  }
  if (a->rows.empty()) {
    return Fail(ErrorCode::kNotFound, "no such comment");
  }
  const int64_t article_id = Int(a->rows[0][0]);
  auto lock = tx.Query(kThreadSeq, {article_id, stamp.seq});
  if (!lock) {
    return tl::unexpected(lock.error());
  }
  return article_id;
}

// Updates comment `id`'s row and answers its new state, given the one it had.
using Apply = std::function<Result<State>(Connection&, const State&)>;

// One change of a comment's standing: the article's row locked, the comment's state read, the
// row changed by `apply`, then the counts moved by what changed (Change) and the changed rows
// read back into `out`. Returns the state before.
Result<State> ChangeStanding(Connection& tx, int64_t id, const CacheStamp& stamp,
                             const Apply& apply, CommentWrite& out) {
  auto article_id = LockArticleOf(tx, id, stamp);
  if (!article_id) {
    return tl::unexpected(article_id.error());
  }
  auto before = ReadState(tx, id);
  if (!before) {
    return tl::unexpected(before.error());
  }
  if (!*before) {
    return Fail(ErrorCode::kNotFound, "no such comment");
  }
  auto after = apply(tx, **before);
  if (!after) {
    return tl::unexpected(after.error());
  }
  bool top_hides = false;
  if ((*before)->parent_id) {
    auto hides = TopHides(tx, *(*before)->parent_id);
    if (!hides) {
      return tl::unexpected(hides.error());
    }
    top_hides = *hides;
  }
  const CountChange change = Change(**before, *after, top_hides);
  auto a = tx.Query(kAddToArticle, {*article_id, change.article, stamp.seq});
  if (!a) {
    return tl::unexpected(a.error());
  }
  std::vector<int64_t> ids{id};
  if (change.replies != 0) {
    auto r = tx.Query(kAddReplies, {*(*before)->parent_id, change.replies});
    if (!r) {
      return tl::unexpected(r.error());
    }
    ids.push_back(*(*before)->parent_id);
  }
  if (auto read = ReadBack(tx, ids, *article_id, out); !read) {
    return tl::unexpected(read.error());
  }
  return **before;
}

Status SetStatus(Connection& c, int64_t id, CommentStatus status, std::string_view reasons,
                 int64_t reports) {
  auto r = c.Query(kSetStatus, {id, std::string(model::CommentStatusName(status)),
                                std::string(reasons), reports});
  if (!r) {
    return tl::unexpected(r.error());
  }
  return {};
}

Result<State> Hold(Connection& c, int64_t id, std::string_view reasons, const State& before) {
  if (before.deleted || before.status != CommentStatus::kApproved) {
    return Fail(ErrorCode::kAlreadyExists, "only an approved comment can be held");
  }
  auto r = c.Query(kHold, {id, std::string(reasons)});
  if (!r) {
    return tl::unexpected(r.error());
  }
  State after = before;
  after.status = CommentStatus::kPending;
  return after;
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
      if (auto st = SetStatus(c, id, after.status, "", 0); !st) {
        return tl::unexpected(st.error());
      }
      auto cleared = c.Query(kClearReports, {id});
      if (!cleared) {
        return tl::unexpected(cleared.error());
      }
      return after;
    }
    case ModerationAction::kHold:
      return Hold(c, id, kHeldForReports, before);
    case ModerationAction::kDelete: {
      if (before.deleted) {
        return Fail(ErrorCode::kNotFound, "the comment was deleted");
      }
      auto r = c.Query(kRemove, {id, now_ms});
      if (!r) {
        return tl::unexpected(r.error());
      }
      after.deleted = true;
      after.kept_text = true;
      return after;
    }
    case ModerationAction::kRestore: {
      if (before.deleted) {
        if (!before.kept_text) {
          return Fail(ErrorCode::kAlreadyExists, "its author deleted it: nothing to restore");
        }
        auto r = c.Query(kRestore, {id});
        if (!r) {
          return tl::unexpected(r.error());
        }
        after.deleted = false;
        after.kept_text = false;
        after.status = CommentStatus::kApproved;
        auto cleared = c.Query(kClearReports, {id});
        if (!cleared) {
          return tl::unexpected(cleared.error());
        }
        return after;
      }
      if (before.status == CommentStatus::kApproved) {
        return Fail(ErrorCode::kAlreadyExists, "the comment is not removed: nothing to restore");
      }
      after.status = CommentStatus::kApproved;
      if (auto st = SetStatus(c, id, after.status, "", 0); !st) {
        return tl::unexpected(st.error());
      }
      auto cleared = c.Query(kClearReports, {id});
      if (!cleared) {
        return tl::unexpected(cleared.error());
      }
      return after;
    }
  }
  return Fail(ErrorCode::kInvalidArgument, "unknown moderation action");
}

}  // namespace

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
        auto held = tx.Query(kNameKeyHeld, {c.guest->name_key});
        if (!held) {
          return tl::unexpected(held.error());
        }
        if (!held->rows.empty()) {
          return Fail(ErrorCode::kAlreadyExists,
                      "guest.name looks like a registered user's name; choose another");
        }
        auto guest = tx.Query(kGuestAccount);
        if (!guest) {
          return tl::unexpected(guest.error());
        }
        if (guest->rows.empty()) {
          return Fail(ErrorCode::kInternal, "no '@guest' account");
        }
        c.author_id = Int(guest->rows[0][0]);
      }
      std::optional<int64_t> top;
      std::optional<int64_t> reply_to = c.reply_to_user_id;
      bool top_hides = false;
      if (c.parent_id) {
        // The article's row first (the lock order of every comment write and the like flush):
        // the parent's standing, read after it, cannot change before this commits.
        auto lock = tx.Query(kThreadSeq, {c.article_id, stamp.seq});
        if (!lock) {
          return tl::unexpected(lock.error());
        }
        if (lock->affected == 0) {
          return Fail(ErrorCode::kNotFound, "no such article");
        }
        auto p = ReadState(tx, *c.parent_id);
        if (!p) {
          return tl::unexpected(p.error());
        }
        // A spam comment is a placeholder to readers, as a deleted one is: no new replies.
        if (!*p || (*p)->article_id != c.article_id || (*p)->deleted ||
            (*p)->status == CommentStatus::kSpam) {
          return Fail(ErrorCode::kInvalidArgument,
                      "parentId must be a live comment of this article");
        }
        if (!(*p)->parent_id) {
          top = c.parent_id;
          top_hides = (*p)->HidesReplies();
        } else {
          // A reply to a reply: placed under the same top-level comment, answering its author.
          top = (*p)->parent_id;
          reply_to = (*p)->guest ? std::nullopt : std::optional<int64_t>((*p)->author_id);
          auto hides = TopHides(tx, *top);
          if (!hides) {
            return tl::unexpected(hides.error());
          }
          top_hides = *hides;
        }
      }
      if (reply_to && reply_to != c.author_id) {
        auto u = tx.Query(kUserExists, {*reply_to});
        if (!u) {
          return tl::unexpected(u.error());
        }
        if (u->rows.empty()) {
          return Fail(ErrorCode::kInvalidArgument, "replyToUserId: no such user");
        }
      }
      auto taken = tx.Query(kIdTaken, {c.id});
      if (!taken) {
        return tl::unexpected(taken.error());
      }
      if (!taken->rows.empty()) {
        return Fail(ErrorCode::kAlreadyExists, std::string(kCommentIdTaken));
      }
      const bool counted = c.status == CommentStatus::kApproved;
      const int64_t shown = counted && !top_hides ? 1 : 0;
      auto a = tx.Query(kAddToArticle, {c.article_id, shown, stamp.seq});
      if (!a) {
        return tl::unexpected(a.error());
      }
      if (a->affected == 0) {
        return Fail(ErrorCode::kNotFound, "no such article");
      }
      auto ins = tx.Query(
          kInsert,
          {c.id, c.article_id, OptionalId(top), c.author_id, OptionalId(reply_to), c.body, c.now_ms,
           std::string(model::CommentStatusName(c.status)), c.held_reasons,
           c.guest ? Value{c.guest->name} : Value{nullptr},
           c.guest && !c.guest->email.empty() ? Value{c.guest->email} : Value{nullptr},
           c.guest ? Value{c.guest->token_hash} : Value{nullptr}, OptionalId(c.parent_id)});
      if (!ins) {
        return tl::unexpected(ins.error());
      }
      std::vector<int64_t> ids{c.id};
      if (top && counted) {
        auto r = tx.Query(kAddReplies, {*top, int64_t{1}});
        if (!r) {
          return tl::unexpected(r.error());
        }
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
    if (!st) {
      return tl::unexpected(st.error());
    }
    return out;
  };
  co_return co_await store_.Run<CommentWrite>(std::move(job));
}

namespace {

// Holds approved comment `id` for a moderator (out of its indexes and counts, ChangeStanding)
// and logs the hold with `reasons`, actor none, in `tx`.
Status HoldAndLog(Connection& tx, int64_t id, std::string_view reasons, int64_t now_ms,
                  const CacheStamp& stamp, CommentWrite& out, bool notices) {
  const Apply hold = [&](Connection& c, const State& before) -> Result<State> {
    return Hold(c, id, reasons, before);
  };
  auto before = ChangeStanding(tx, id, stamp, hold, out);
  if (!before) {
    return tl::unexpected(before.error());
  }
  ModerationLogEntry entry;
  entry.at_ms = now_ms;
  entry.action = std::string(ActionName(ModerationAction::kHold));
  entry.comment_id = id;
  entry.user_id = before->author_id;
  entry.reason = std::string(reasons);
  if (auto logged = AppendModerationLog(tx, entry); !logged) {
    return logged;
  }
  if (!notices) {
    return {};
  }
  return OutboxTable::EnqueueComment(tx, {CommentEventType::kHeld, id, std::nullopt, ""}, now_ms);
}

}  // namespace

Awaitable<Result<CommentWrite>> CommentTable::Edit(int64_t id, std::string body, int64_t now_ms,
                                                   std::string hold_reasons, CacheStamp stamp) {
  std::function<Result<CommentWrite>(Connection&)> job =
      [id, body = std::move(body), now_ms, hold_reasons = std::move(hold_reasons), stamp,
       notices = notices_](Connection& conn) -> Result<CommentWrite> {
    CommentWrite out;
    auto st = conn.Transaction([&](Connection& tx) -> Status {
      auto live = tx.Query(kLive, {id});
      if (!live) {
        return tl::unexpected(live.error());
      }
      if (live->rows.empty()) {
        return Fail(ErrorCode::kNotFound, "no such comment");
      }
      // The article's row first (the lock order of Insert and Delete).
      auto t = tx.Query(kThreadSeq, {Int(live->rows[0][0]), stamp.seq});
      if (!t) {
        return tl::unexpected(t.error());
      }
      auto r = tx.Query(kEdit, {id, body, now_ms});
      if (!r) {
        return tl::unexpected(r.error());
      }
      if (r->affected == 0) {
        return Fail(ErrorCode::kNotFound, "no such comment");
      }
      auto state = hold_reasons.empty() ? Result<std::optional<State>>{} : ReadState(tx, id);
      if (!state) {
        return tl::unexpected(state.error());
      }
      if (*state && (*state)->status == CommentStatus::kApproved) {
        // The new text holds it: out of every index and count in this same transaction.
        if (auto held = HoldAndLog(tx, id, hold_reasons, now_ms, stamp, out, notices); !held) {
          return held;
        }
      } else {
        const std::vector<int64_t> ids{id};
        if (auto read = ReadBack(tx, ids, Int(live->rows[0][0]), out); !read) {
          return read;
        }
      }
      return RaiseCacheShard(tx, stamp);
    });
    if (!st) {
      return tl::unexpected(st.error());
    }
    return out;
  };
  co_return co_await store_.Run<CommentWrite>(std::move(job));
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
        auto r = c.Query(kDelete, {id, now_ms});
        if (!r) {
          return tl::unexpected(r.error());
        }
        State after = before;
        after.deleted = true;
        return after;
      };
      auto changed = ChangeStanding(tx, id, stamp, remove, out);
      if (!changed) {
        return tl::unexpected(changed.error());
      }
      if (notices && changed->Counted()) {  // readers saw it: sites are told it went
        const CommentEvent e{CommentEventType::kDeleted, id, std::nullopt, "author"};
        if (auto st = OutboxTable::EnqueueComment(tx, e, now_ms); !st) {
          return st;
        }
      }
      return RaiseCacheShard(tx, stamp);
    });
    if (!st) {
      return tl::unexpected(st.error());
    }
    return out;
  };
  co_return co_await store_.Run<CommentWrite>(std::move(job));
}

namespace {

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
      auto before = ChangeStanding(tx, id, stamp, apply, out);
      if (!before) {
        return tl::unexpected(before.error());
      }
      ModerationLogEntry entry = log;
      entry.action = std::string(ActionName(action));
      entry.comment_id = id;
      entry.user_id = before->author_id;
      if (auto logged = AppendModerationLog(tx, entry); !logged) {
        return logged;
      }
      if (notices) {
        if (auto e = EventOf(action, id, *before)) {
          if (auto st = OutboxTable::EnqueueComment(tx, *e, log.at_ms); !st) {
            return st;
          }
        }
      }
      return RaiseCacheShard(tx, stamp);
    });
    if (!st) {
      return tl::unexpected(st.error());
    }
    return out;
  };
  co_return co_await store_.Run<CommentWrite>(std::move(job));
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
      auto article = LockArticleOf(tx, id, stamp);
      if (!article) {
        return tl::unexpected(article.error());
      }
      auto state = ReadState(tx, id);
      if (!state) {
        return tl::unexpected(state.error());
      }
      if (!*state || (*state)->deleted) {
        return Fail(ErrorCode::kNotFound, "no such comment");
      }
      auto added = InsertOrNothing(tx, kAddReport, {id, user_id, reason, now_ms});
      if (!added) {
        return tl::unexpected(added.error());
      }
      if (added->affected > 0) {
        auto counted = tx.Query(kCountReport, {id});
        if (!counted) {
          return tl::unexpected(counted.error());
        }
        auto n = tx.Query(kReports, {id});
        if (!n) {
          return tl::unexpected(n.error());
        }
        const bool held = (*state)->status == CommentStatus::kApproved && threshold > 0 &&
                          Int(n->rows.at(0).at(0)) >= threshold;
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
    if (!st) {
      return tl::unexpected(st.error());
    }
    return out;
  };
  co_return co_await store_.Run<Out>(std::move(job));
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
    auto r = c.Query(std::string(kQueueSelect) + where + std::string(kQueueOrder), params);
    if (!r) {
      return tl::unexpected(r.error());
    }
    std::vector<QueuedComment> out;
    for (const auto& row : r->rows) {
      QueuedComment q;
      q.row = FromRow(row);
      q.held_reasons = Text(row[17]);
      q.reports = Int(row[18]);
      q.article_title = Text(row[19]);
      if (!IsNull(row[20])) {
        q.page_url = Text(row[20]);
      }
      q.guest_email = Text(row[21]);
      out.push_back(std::move(q));
    }
    return out;
  };
  co_return co_await store_.Run<std::vector<QueuedComment>>(std::move(job));
}

Awaitable<Result<bool>> CommentTable::NameKeyHeld(std::string name_key) {
  std::function<Result<bool>(Connection&)> job =
      [name_key = std::move(name_key)](Connection& c) -> Result<bool> {
    auto r = c.Query(kNameKeyHeld, {name_key});
    if (!r) {
      return tl::unexpected(r.error());
    }
    return !r->rows.empty();
  };
  co_return co_await store_.Run<bool>(std::move(job));
}

Awaitable<Result<std::optional<std::string>>> CommentTable::EditTokenHash(int64_t id) {
  std::function<Result<std::optional<std::string>>(Connection&)> job =
      [id](Connection& c) -> Result<std::optional<std::string>> {
    auto r = c.Query(kEditTokenHash, {id});
    if (!r) {
      return tl::unexpected(r.error());
    }
    if (r->rows.empty()) {
      return std::optional<std::string>{};
    }
    return std::optional<std::string>(Text(r->rows[0][0]));
  };
  co_return co_await store_.Run<std::optional<std::string>>(std::move(job));
}

Awaitable<Result<bool>> CommentTable::HasApproved(int64_t author_id) {
  std::function<Result<bool>(Connection&)> job = [author_id](Connection& c) -> Result<bool> {
    auto r = c.Query(kHasApproved, {author_id});
    if (!r) {
      return tl::unexpected(r.error());
    }
    return !r->rows.empty();
  };
  co_return co_await store_.Run<bool>(std::move(job));
}

Awaitable<Result<std::optional<CommentRow>>> CommentTable::Find(int64_t id) {
  std::function<Result<std::optional<CommentRow>>(Connection&)> job =
      [id](Connection& c) -> Result<std::optional<CommentRow>> {
    auto r = c.Query(std::string(kSelect) + "WHERE c.id = $1", {id});
    if (!r) {
      return tl::unexpected(r.error());
    }
    if (r->rows.empty()) {
      return std::optional<CommentRow>{};
    }
    return std::optional<CommentRow>(FromRow(r->rows[0]));
  };
  co_return co_await store_.Run<std::optional<CommentRow>>(std::move(job));
}

Awaitable<Result<std::vector<CommentRow>>> CommentTable::FindMany(std::vector<int64_t> ids) {
  std::function<Result<std::vector<CommentRow>>(Connection&)> job =
      [ids = std::move(ids)](Connection& c) -> Result<std::vector<CommentRow>> {
    std::vector<CommentRow> out;
    if (ids.empty()) {
      return out;
    }
    std::vector<Value> params;
    const std::string sql = std::string(kSelect) + "WHERE c.id IN " + InList(ids, params);
    auto r = c.Query(sql, params);
    if (!r) {
      return tl::unexpected(r.error());
    }
    for (const auto& row : r->rows) {
      out.push_back(FromRow(row));
    }
    return out;
  };
  co_return co_await store_.Run<std::vector<CommentRow>>(std::move(job));
}

Awaitable<Result<std::vector<CommentRow>>> CommentTable::ListForArticle(int64_t article_id,
                                                                        int64_t after_id,
                                                                        int64_t limit) {
  std::function<Result<std::vector<CommentRow>>(Connection&)> job =
      [article_id, after_id, limit](Connection& c) -> Result<std::vector<CommentRow>> {
    auto r = c.Query(
        std::string(kSelect) + "WHERE c.article_id = $1 AND c.id > $2 ORDER BY c.id LIMIT $3",
        {article_id, after_id, limit});
    if (!r) {
      return tl::unexpected(r.error());
    }
    std::vector<CommentRow> out;
    for (const auto& row : r->rows) {
      out.push_back(FromRow(row));
    }
    return out;
  };
  co_return co_await store_.Run<std::vector<CommentRow>>(std::move(job));
}

Awaitable<Result<int64_t>> CommentTable::MaxId() {
  PL_CO_TRY(auto max, co_await store_.QueryInt(kMaxId));
  co_return max.value_or(0);
}

}  // namespace plaudit::sql
