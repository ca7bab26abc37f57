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
#include <boost/json.hpp>
#include <cctype>
#include <set>

#include "common/time.hpp"
#include "sql/dialect.hpp"
#include "sql/outbox.hpp"

namespace plaudit::sql {
namespace {

constexpr std::string_view kComment =
    "SELECT c.article_id, c.parent_id, c.author_id, c.reply_to_user_id, c.guest_name, "
    "c.guest_email, c.status, c.deleted, c.body, c.created_at, a.author_id, a.kind, a.title, "
    "u.display_name, (SELECT p.url FROM pages p WHERE p.article_id = c.article_id), "
    "(SELECT COUNT(*) FROM comments t WHERE t.id = c.parent_id AND t.status = 'pending' "
    "AND t.deleted = 0), c.answers_id "
    "FROM comments c JOIN articles a ON a.id = c.article_id JOIN users u ON u.id = c.author_id "
    "WHERE c.id = $1";
constexpr std::string_view kAnswered = "SELECT author_id, guest_email FROM comments WHERE id = $1";
// A user who may be mailed: a live account with a verified address; the setting is added.
constexpr std::string_view kMailableUser =
    "SELECT id FROM users WHERE id = $1 AND deleted_at IS NULL AND username NOT LIKE '@%' "
    "AND email_verified_at IS NOT NULL AND ";
constexpr std::string_view kMailableGuest =
    "SELECT id FROM guest_addresses WHERE email = $1 AND verified_at IS NOT NULL "
    "AND unsubscribed_at IS NULL";
constexpr std::string_view kMentioned =
    "SELECT id FROM users WHERE LOWER(username) = $1 AND deleted_at IS NULL "
    "AND email_verified_at IS NOT NULL AND notify_replies = 1 AND (id IN "
    "(SELECT author_id FROM comments WHERE article_id = $2) "
    "OR id = (SELECT author_id FROM articles WHERE id = $2))";
constexpr std::string_view kModerators =
    "SELECT id FROM users WHERE role IN ('moderator', 'admin') AND deleted_at IS NULL "
    "AND email_verified_at IS NOT NULL AND notify_moderation = 1 ORDER BY id";
constexpr std::string_view kNoticeKey =
    "INSERT INTO notice_keys (\"key\", created_at) VALUES ($1, $2) ON CONFLICT (\"key\") DO "
    "NOTHING";
// A mail to this reader about this thread that no worker has touched and that waits for its
// turn (the reader was mailed about the thread less than a window ago).
constexpr std::string_view kWaiting =
    "SELECT id, payload FROM outbox WHERE batch = $1 AND delivered_at IS NULL "
    "AND failed_at IS NULL AND lease_owner IS NULL AND attempts = 0 AND due_at > $2 "
    "ORDER BY id LIMIT 1";
// On PostgreSQL and MySQL the row is read FOR UPDATE: two workers joining notices to one waiting
// mail take turns, and the second reads the first's items (a plain read would let the second's
// write drop the first's notice). The UPDATE re-checks the row after a racing claim's commit: a
// claimed mail (lease_owner set) is not joined, and the notice gets a mail of its own.
constexpr std::string_view kJoin =
    "UPDATE outbox SET payload = $2 WHERE id = $1 AND lease_owner IS NULL AND attempts = 0";
constexpr std::string_view kLastDue = "SELECT MAX(due_at) FROM outbox WHERE batch = $1";
constexpr std::string_view kEventDone =
    "UPDATE outbox SET delivered_at = $3, lease_owner = NULL, lease_until = NULL "
    "WHERE id = $1 AND lease_owner = $2 AND delivered_at IS NULL";
constexpr std::string_view kEnqueue =
    "INSERT INTO outbox (event_id, channel, recipient, kind, payload, created_at, due_at, batch) "
    "VALUES ($1, $2, $3, $4, $5, $6, $7, $8) "
    "ON CONFLICT (event_id, channel, recipient) DO NOTHING";

constexpr size_t kMaxItems = 20;

struct CommentFacts {
  int64_t article_id = 0;
  std::optional<int64_t> parent_id;
  int64_t author_id = 0;
  std::optional<int64_t> reply_to;
  std::string guest_name;
  std::string guest_email;
  std::string status;
  bool deleted = false;
  std::string body;
  int64_t created_at = 0;
  int64_t article_author = 0;
  std::string article_kind;
  std::string article_title;
  std::string author_display;
  std::string page_url;
  bool hidden_by_top = false;      // a reply under a live pending top-level comment: unseen
  std::optional<int64_t> answers;  // the comment it answers, as its writer named it
};

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

// `@name` words of the text: usernames are [A-Za-z0-9_.-]{3,32} (API.md), lower-cased; a
// mention starts at the text's start or after a character that cannot be in a name (so an
// e-mail address is not one). At most 10, the rest ignored.
std::vector<std::string> Mentions(std::string_view text) {
  auto name_char = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '.' || c == '-';
  };
  std::set<std::string> out;
  for (size_t i = 0; i < text.size() && out.size() < 10; ++i) {
    if (text[i] != '@' || (i > 0 && name_char(text[i - 1]))) {
      continue;
    }
    size_t j = i + 1;
    while (j < text.size() && name_char(text[j])) {
      ++j;
    }
    std::string name(text.substr(i + 1, j - i - 1));
    while (!name.empty() && name.back() == '.') {
      name.pop_back();  // "@ann." ends a sentence
    }
    if (name.size() >= 3 && name.size() <= 32) {
      for (char& c : name) {
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      }
      out.insert(std::move(name));
    }
    i = j - 1;
  }
  return {out.begin(), out.end()};
}

// The user `id` if they may be mailed a notice whose setting is `setting`.
Result<bool> Mailable(Connection& tx, int64_t id, std::string_view setting) {
  std::string q(kMailableUser);
  q.append(setting).append(" = 1");
  PL_TRY(auto r, tx.Query(q, {id}));
  return !r.rows.empty();
}

Result<std::optional<int64_t>> MailableGuest(Connection& tx, const std::string& email) {
  if (email.empty()) {
    return std::optional<int64_t>{};
  }
  PL_TRY(auto r, tx.Query(kMailableGuest, {email}));
  if (r.rows.empty()) {
    return std::optional<int64_t>{};
  }
  return std::optional<int64_t>(Int(r.rows[0][0]));
}

struct Told {
  std::string recipient;  // "u:<id>" or "g:<id>"
  std::string kind;       // reply, mention, article_comment, held
};

// Adds notice `kind` about `comment` to `recipient`'s mail: joins the mail waiting for this
// reader and thread (or, for held, this moderator's queue mail), else a new one, due a window
// after the last one.
Status AddMail(Connection& tx, const std::string& event_id, const Told& t, int64_t comment,
               std::optional<int64_t> thread, const FanOutPlan& plan, int64_t now_ms) {
  const std::string batch =
      t.recipient + (thread ? " a:" + std::to_string(*thread) : std::string(" held"));
  boost::json::object item{{"kind", t.kind}, {"comment", comment}};
  std::string waiting_sql(kWaiting);
  if (tx.dialect() != Dialect::kSqlite) {
    waiting_sql += " FOR UPDATE";
  }
  PL_TRY(auto waiting, tx.Query(waiting_sql, {batch, now_ms}));
  if (!waiting.rows.empty()) {
    boost::system::error_code ec;
    auto payload = boost::json::parse(Text(waiting.rows[0][1]), ec);
    if (!ec && payload.is_object() && payload.as_object().contains("items")) {
      // A mail lists at most kMaxItems comments and counts the rest: a busy thread's author
      // gets one readable mail a minute, and the row stays small however busy it is.
      auto& o = payload.as_object();
      if (o["items"].as_array().size() < kMaxItems) {
        o["items"].as_array().push_back(item);
      } else {
        o["more"] = (o.contains("more") ? o["more"].to_number<int64_t>() : 0) + 1;
      }
      PL_TRY(auto joined,
             tx.Query(kJoin, {Int(waiting.rows[0][0]), boost::json::serialize(payload)}));
      if (joined.affected > 0) {
        return {};
      }
    }
  }
  PL_TRY(auto last, tx.Query(kLastDue, {batch}));
  int64_t due = now_ms;
  if (!last.rows.empty() && !IsNull(last.rows[0][0])) {
    due = std::max(now_ms, Int(last.rows[0][0]) + plan.batch_window_ms);
  }
  boost::json::object payload{{"items", boost::json::array{item}}};
  if (thread) {
    payload["thread"] = *thread;
  }
  auto r =
      InsertOrNothing(tx, kEnqueue,
                      {"mail:" + t.kind + ":" + std::to_string(comment) + ":" + event_id, "mail",
                       t.recipient, "notice", boost::json::serialize(payload), now_ms, due, batch});
  if (!r) {
    return tl::unexpected(r.error());
  }
  return {};
}

// The readers a live approved comment tells, each once.
Result<std::vector<Told>> Readers(Connection& tx, int64_t comment, const CommentFacts& f,
                                  std::optional<int64_t> answers, int64_t now_ms) {
  std::vector<Told> out;
  std::set<std::string> seen;
  const bool writer_is_guest = !f.guest_name.empty();
  auto add_user = [&](int64_t id, std::string kind, std::string_view setting) -> Status {
    if (!writer_is_guest && id == f.author_id) {
      return {};  // never about your own comment
    }
    const std::string who = "u:" + std::to_string(id);
    if (seen.contains(who)) {
      return {};
    }
    PL_TRY(auto ok, Mailable(tx, id, setting));
    if (ok) {
      seen.insert(who);
      out.push_back({who, std::move(kind)});
    }
    return {};
  };
  // The comment it answers: its author, or the guest who wrote it.
  std::optional<int64_t> answered_user = f.reply_to;
  std::string answered_guest;
  const std::optional<int64_t> answered = answers ? answers : f.answers ? f.answers : f.parent_id;
  if (answered) {
    PL_TRY(auto a, tx.Query(kAnswered, {*answered}));
    if (!a.rows.empty()) {
      if (!IsNull(a.rows[0][1])) {
        answered_guest = Text(a.rows[0][1]);
      } else if (!answered_user) {
        answered_user = Int(a.rows[0][0]);
      }
    }
  }
  if (answered_user) {
    PL_CHECK(add_user(*answered_user, "reply", "notify_replies"));
  }
  if (!answered_guest.empty() && answered_guest != f.guest_email) {
    auto g = MailableGuest(tx, answered_guest);
    if (!g) {
      return tl::unexpected(g.error());
    }
    if (*g) {
      const std::string who = "g:" + std::to_string(**g);
      seen.insert(who);
      out.push_back({who, "reply"});
    }
  }
  for (const std::string& name : Mentions(f.body)) {
    PL_TRY(auto m, tx.Query(kMentioned, {name, f.article_id}));
    for (const Row& row : m.rows) {
      PL_CHECK(add_user(Int(row[0]), "mention", "notify_replies"));
    }
  }
  if (f.article_kind != "page") {
    PL_CHECK(add_user(f.article_author, "article_comment", "notify_article_comments"));
  }
  // One notice per comment and reader, ever.
  std::vector<Told> fresh;
  for (Told& t : out) {
    PL_TRY(auto k,
           InsertOrNothing(tx, kNoticeKey, {std::to_string(comment) + ":" + t.recipient, now_ms}));
    if (k.affected > 0) {
      fresh.push_back(std::move(t));
    }
  }
  return fresh;
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
    if (!r) {
      return tl::unexpected(r.error());
    }
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
    if (!st) {
      return tl::unexpected(st.error());
    }
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
    if (!st) {
      return tl::unexpected(st.error());
    }
    return held;
  };
  co_return co_await store_.Run<int64_t>(std::move(job));
}

}  // namespace plaudit::sql
