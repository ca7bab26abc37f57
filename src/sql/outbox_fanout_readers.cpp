// The readers a live approved comment tells (who and why is in outbox_fanout.cpp): the author
// of the comment it answers, the users it mentions, the article's author; each only with a
// verified address and that kind of notice on, never its own writer, and each once per comment
// ever (notice_keys).
#include <set>

#include "sql/dialect.hpp"
#include "sql/outbox_fanout_detail.hpp"
#include "text/mentions.hpp"

namespace plaudit::sql::detail {
namespace {

constexpr std::string_view kAnswered = "SELECT author_id, guest_email FROM comments WHERE id = $1";
// A user who may be mailed: a live account with a verified address; the setting is added.
constexpr std::string_view kMailableUser =
    "SELECT id FROM users WHERE id = $1 AND deleted_at IS NULL AND username NOT LIKE '@%' "
    "AND email_verified_at IS NOT NULL AND ";
constexpr std::string_view kMailableGuest =
    "SELECT id FROM guest_addresses WHERE email = $1 AND verified_at IS NOT NULL "
    "AND unsubscribed_at IS NULL";
constexpr std::string_view kMentioned =
    "SELECT id FROM users WHERE username_key = $1 AND deleted_at IS NULL "
    "AND email_verified_at IS NOT NULL AND notify_replies = 1 AND (id IN "
    "(SELECT author_id FROM comments WHERE article_id = $2) "
    "OR id = (SELECT author_id FROM articles WHERE id = $2))";
constexpr std::string_view kNoticeKey =
    "INSERT INTO notice_keys (\"key\", created_at) VALUES ($1, $2) ON CONFLICT (\"key\") DO "
    "NOTHING";

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
}  // namespace

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
    PL_CHECK(g);
    if (*g) {
      const std::string who = "g:" + std::to_string(**g);
      seen.insert(who);
      out.push_back({who, "reply"});
    }
  }
  for (const std::string& name : text::MentionedNames(f.body)) {
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

}  // namespace plaudit::sql::detail
