// OutboxTable::EnqueueComment and FanOut (sql/outbox.hpp): a comment write's one event row, and
// the worker's transaction that turns it into the mail and webhook rows it causes.
//
// Who is told (API.md "Notifications"), decided here when the event is fanned out, never for
// the comment's own writer, and only for a comment that is approved and live at that moment
// (invariant 9: a held comment reaches readers' mailboxes only once approved, by the
// comment.approved event):
// - reply: the author of the comment it answers (a user, or a guest whose address is
//   confirmed), or the user it names as replyTo;
// - mention: `@username` in the text, of a user who took part in the thread (or wrote it);
// - article_comment: the article's author (not for page threads, which have none);
// - held (comment.held): moderators and admins.
// Users need a verified address and the setting of that kind on. A reader gets one notice per
// comment (notice_keys), whatever mix of reply and mention it is and however often the comment
// is approved again.
//
// Here: the event's transaction, its webhook rows and who is told when; the readers are found
// in outbox_fanout_readers.cpp and their mails made in outbox_fanout_mail.cpp.
#include <boost/json.hpp>

#include "common/time.hpp"
#include "sql/dialect.hpp"
#include "sql/outbox.hpp"
#include "sql/outbox_fanout_detail.hpp"

namespace plaudit::sql {

using detail::AddMail;
using detail::CommentFacts;
using detail::kEnqueue;
using detail::Readers;
using detail::Told;

namespace {

constexpr std::string_view kComment =
    "SELECT c.article_id, c.parent_id, c.author_id, c.reply_to_user_id, c.guest_name, "
    "c.guest_email, c.status, c.deleted, c.body, c.created_at, a.author_id, a.kind, a.title, "
    "u.display_name, (SELECT p.url FROM pages p WHERE p.article_id = c.article_id), "
    "(SELECT COUNT(*) FROM comments t WHERE t.id = c.parent_id AND t.status = 'pending' "
    "AND t.deleted = 0), c.answers_id "
    "FROM comments c JOIN articles a ON a.id = c.article_id JOIN users u ON u.id = c.author_id "
    "WHERE c.id = $1";
constexpr std::string_view kModerators =
    "SELECT id FROM users WHERE role IN ('moderator', 'admin') AND deleted_at IS NULL "
    "AND email_verified_at IS NOT NULL AND notify_moderation = 1 ORDER BY id";
constexpr std::string_view kEventDone =
    "UPDATE outbox SET delivered_at = $3, lease_owner = NULL, lease_until = NULL "
    "WHERE id = $1 AND lease_owner = $2 AND delivered_at IS NULL";

std::optional<int64_t> OptInt(const Value& v) {
  if (IsNull(v)) {
    return std::nullopt;
  }
  return Int(v);
}

Result<std::optional<CommentFacts>> ReadFacts(Connection& tx, int64_t id) {
  PL_TRY(auto r, tx.Query(kComment, {id}));
  if (r.rows.empty()) {
    return std::optional<CommentFacts>{};
  }
  const Row& row = r.rows[0];
  CommentFacts f;
  f.article_id = Int(row[0]);
  f.parent_id = OptInt(row[1]);
  f.author_id = Int(row[2]);
  f.reply_to = OptInt(row[3]);
  f.guest_name = IsNull(row[4]) ? "" : Text(row[4]);
  f.guest_email = IsNull(row[5]) ? "" : Text(row[5]);
  f.status = Text(row[6]);
  f.deleted = Int(row[7]) != 0;
  f.body = Text(row[8]);
  f.created_at = Int(row[9]);
  f.article_author = Int(row[10]);
  f.article_kind = Text(row[11]);
  f.article_title = Text(row[12]);
  f.author_display = Text(row[13]);
  f.page_url = IsNull(row[14]) ? "" : Text(row[14]);
  f.hidden_by_top = Int(row[15]) > 0;
  f.answers = OptInt(row[16]);
  return std::optional<CommentFacts>(std::move(f));
}

// The webhook body: {"id", "type", "at", "data"} (API.md), data the comment as it stands.
std::string WebhookBody(const std::string& event_id, std::string_view type, int64_t at,
                        int64_t comment, const CommentFacts& f, const std::string& reason) {
  boost::json::object author{
      {"displayName", f.guest_name.empty() ? f.author_display : f.guest_name},
      {"guest", !f.guest_name.empty()}};
  author["id"] = f.guest_name.empty() ? boost::json::value(f.author_id) : nullptr;
  boost::json::object c{{"id", comment},
                        {"articleId", f.article_id},
                        {"author", author},
                        {"body", f.body},
                        {"status", f.status},
                        {"deleted", f.deleted},
                        {"createdAt", FormatTimeMs(f.created_at)}};
  c["parentId"] = f.parent_id ? boost::json::value(*f.parent_id) : nullptr;
  boost::json::object article{
      {"id", f.article_id}, {"kind", f.article_kind}, {"title", f.article_title}};
  if (!f.page_url.empty()) {
    article["url"] = f.page_url;
  }
  boost::json::object data{{"comment", c}, {"article", article}};
  if (!reason.empty()) {
    data["reason"] = reason;
  }
  return boost::json::serialize(boost::json::object{
      {"id", event_id}, {"type", type}, {"at", FormatTimeMs(at)}, {"data", data}});
}

Status FanOutIn(Connection& tx, const ClaimedNotice& event, const FanOutPlan& plan,
                int64_t now_ms) {
  boost::system::error_code ec;
  auto parsed = boost::json::parse(event.notice.payload, ec);
  if (ec || !parsed.is_object()) {
    return {};  // nothing to tell: an unreadable event is done
  }
  const auto& p = parsed.as_object();
  const int64_t comment = p.contains("comment") ? p.at("comment").to_number<int64_t>() : 0;
  const int64_t at = p.contains("at") ? p.at("at").to_number<int64_t>() : now_ms;
  std::optional<int64_t> answers;
  if (p.contains("answers") && p.at("answers").is_int64()) {
    answers = p.at("answers").as_int64();
  }
  const std::string reason =
      p.contains("reason") ? std::string(p.at("reason").as_string()) : std::string();
  PL_TRY(auto facts, ReadFacts(tx, comment));
  if (!facts) {
    return {};  // the comment is gone (its article deleted): nothing to tell
  }
  const CommentFacts& f = *facts;
  const std::string& type = event.notice.kind;
  const std::string& id = event.notice.event_id;

  for (const std::string& url : plan.webhooks) {
    auto r =
        InsertOrNothing(tx, kEnqueue,
                        {id, "webhook", url, type, WebhookBody(id, type, at, comment, f, reason),
                         now_ms, now_ms, Value{nullptr}});
    PL_CHECK(r);
  }
  if (!plan.mail) {
    return {};
  }
  // Only what readers can see (invariant 9): approved, live, not under a held top comment.
  const bool live = f.status == "approved" && !f.deleted && !f.hidden_by_top;
  if (live && (type == "comment.created" || type == "comment.approved")) {
    PL_TRY(auto readers, Readers(tx, comment, f, answers, now_ms));
    for (const Told& t : readers) {
      if (auto st = AddMail(tx, id, t, comment, f.article_id, plan, now_ms); !st) {
        return st;
      }
    }
  } else if (type == "comment.held" && f.status == "pending" && !f.deleted) {
    PL_TRY(auto mods, tx.Query(kModerators));
    for (const Row& row : mods.rows) {
      const Told t{"u:" + std::to_string(Int(row[0])), "held"};
      if (auto st = AddMail(tx, id, t, comment, std::nullopt, plan, now_ms); !st) {
        return st;
      }
    }
  }
  return {};
}

}  // namespace

std::string_view CommentEventName(CommentEventType t) {
  constexpr std::array<std::string_view, 4> kNames = {"comment.created", "comment.approved",
                                                      "comment.held", "comment.deleted"};
  return kNames.at(static_cast<size_t>(t));
}

Status OutboxTable::EnqueueComment(Connection& tx, const CommentEvent& e, int64_t now_ms) {
  const std::string_view type = CommentEventName(e.type);
  std::string id = std::string(type) + ":" + std::to_string(e.comment_id);
  if (e.type != CommentEventType::kCreated) {
    id += ":" + std::to_string(now_ms);
  }
  boost::json::object payload{{"comment", e.comment_id}, {"at", now_ms}};
  if (e.answers) {
    payload["answers"] = *e.answers;
  }
  if (!e.reason.empty()) {
    payload["reason"] = e.reason;
  }
  Notice n{id, "event", "", std::string(type), boost::json::serialize(payload), now_ms, ""};
  return Enqueue(tx, n, now_ms);
}

Awaitable<Result<bool>> OutboxTable::FanOut(ClaimedNotice event, std::string owner, FanOutPlan plan,
                                            int64_t now_ms) {
  std::function<Result<bool>(Connection&)> job = [event = std::move(event),
                                                  owner = std::move(owner), plan,
                                                  now_ms](Connection& conn) -> Result<bool> {
    bool held = false;
    auto st = conn.Transaction([&](Connection& tx) -> Status {
      // The lease first: a worker that lost the event to another adds nothing.
      PL_TRY(auto done, tx.Query(kEventDone, {event.id, owner, now_ms}));
      if (done.affected == 0) {
        return {};
      }
      held = true;
      return FanOutIn(tx, event, plan, now_ms);
    });
    PL_CHECK(st);
    return held;
  };
  co_return co_await store_.Run<bool>(std::move(job));
}

Awaitable<Result<int64_t>> OutboxTable::FanOutMany(std::vector<ClaimedNotice> events,
                                                   std::string owner, FanOutPlan plan,
                                                   int64_t now_ms) {
  std::function<Result<int64_t>(Connection&)> job = [events = std::move(events),
                                                     owner = std::move(owner), plan,
                                                     now_ms](Connection& conn) -> Result<int64_t> {
    int64_t held = 0;
    auto st = conn.Transaction([&](Connection& tx) -> Status {
      held = 0;
      for (const ClaimedNotice& event : events) {
        PL_TRY(auto done, tx.Query(kEventDone, {event.id, owner, now_ms}));
        if (done.affected == 0) {
          continue;
        }
        ++held;
        if (auto st = FanOutIn(tx, event, plan, now_ms); !st) {
          return st;
        }
      }
      return {};
    });
    PL_CHECK(st);
    return held;
  };
  co_return co_await store_.Run<int64_t>(std::move(job));
}

}  // namespace plaudit::sql
