#include "sql/notices.hpp"

#include <boost/json.hpp>

#include "sql/dialect.hpp"
#include "sql/outbox.hpp"

namespace plaudit::sql {
namespace {

constexpr std::string_view kNewGuestAddress =
    "INSERT INTO guest_addresses (email, token_hash, unsubscribe_key, language, created_at) "
    "VALUES ($1, $2, $3, $4, $5) ON CONFLICT (email) DO NOTHING RETURNING id";
// MySQL: the same insert without RETURNING (InsertOrNothing), its id from LAST_INSERT_ID().
constexpr std::string_view kNewGuestAddressMysql =
    "INSERT INTO guest_addresses (email, token_hash, unsubscribe_key, language, created_at) "
    "VALUES ($1, $2, $3, $4, $5) ON CONFLICT (email) DO NOTHING";
constexpr std::string_view kSettings =
    "SELECT email, email_verified_at, notify_replies, notify_article_comments, "
    "notify_moderation, notify_language, email_token_at FROM users "
    "WHERE id = $1 AND deleted_at IS NULL";
constexpr std::string_view kSetEmail =
    "UPDATE users SET email = $2, email_verified_at = NULL, email_token_hash = $3, "
    "email_token_at = $4, unsubscribe_key = COALESCE(unsubscribe_key, $5) WHERE id = $1";
constexpr std::string_view kClearEmail =
    "UPDATE users SET email = NULL, email_verified_at = NULL, email_token_hash = NULL "
    "WHERE id = $1";
constexpr std::string_view kChangeSettings =
    "UPDATE users SET notify_replies = COALESCE($2, notify_replies), "
    "notify_article_comments = COALESCE($3, notify_article_comments), "
    "notify_moderation = COALESCE($4, notify_moderation), "
    "notify_language = COALESCE($5, notify_language) WHERE id = $1 AND deleted_at IS NULL";
constexpr std::string_view kConfirmUser =
    "UPDATE users SET email_verified_at = $2, email_token_hash = NULL "
    "WHERE email_token_hash = $1 AND deleted_at IS NULL";
constexpr std::string_view kConfirmGuest =
    "UPDATE guest_addresses SET verified_at = $2, token_hash = NULL WHERE token_hash = $1";
constexpr std::string_view kUnsubscribeUser =
    "UPDATE users SET notify_replies = 0, notify_article_comments = 0, notify_moderation = 0 "
    "WHERE unsubscribe_key = $1";
constexpr std::string_view kUnsubscribeGuest =
    "UPDATE guest_addresses SET unsubscribed_at = COALESCE(unsubscribed_at, $2) "
    "WHERE unsubscribe_key = $1";
constexpr std::string_view kUserRecipient =
    "SELECT email, email_verified_at, notify_replies, notify_article_comments, "
    "notify_moderation, display_name, notify_language, unsubscribe_key, "
    "CASE WHEN role IN ('moderator', 'admin') THEN 1 ELSE 0 END FROM users "
    "WHERE id = $1 AND deleted_at IS NULL AND email IS NOT NULL";
constexpr std::string_view kGuestRecipient =
    "SELECT email, verified_at, unsubscribed_at, language, unsubscribe_key "
    "FROM guest_addresses WHERE id = $1";
constexpr std::string_view kComments =
    "SELECT c.id, c.article_id, a.title, a.kind, "
    "(SELECT p.url FROM pages p WHERE p.article_id = c.article_id), "
    "COALESCE(c.guest_name, u.display_name), c.body, c.status, c.deleted, "
    "(SELECT COUNT(*) FROM comments t WHERE t.id = c.parent_id AND t.status = 'pending' "
    "AND t.deleted = 0) "
    "FROM comments c JOIN articles a ON a.id = c.article_id JOIN users u ON u.id = c.author_id "
    "WHERE c.id IN ";

Value OptBool(const std::optional<bool>& b) {
  if (!b) {
    return nullptr;
  }
  return int64_t{*b ? 1 : 0};
}

std::string MailPayload(const std::string& token, const std::string& email) {
  return boost::json::serialize(boost::json::object{{"token", token}, {"email", email}});
}

}  // namespace

Status NoticeBook::NoteGuestAddress(Connection& tx, const GuestAddress& a, int64_t now_ms) {
  PL_TRY(auto r,
         tx.dialect() == Dialect::kMysql
             ? InsertOrNothing(tx, kNewGuestAddressMysql,
                               {a.email, a.token_hash, a.unsubscribe_key, a.language, now_ms})
             : tx.Query(kNewGuestAddress,
                        {a.email, a.token_hash, a.unsubscribe_key, a.language, now_ms}));
  int64_t id = 0;
  if (tx.dialect() == Dialect::kMysql) {
    if (r.affected == 0) {
      return {};  // known already: confirmed, or mailed its one link
    }
    PL_TRY(auto last, LastInsertId(tx));
    id = last;
  } else {
    if (r.rows.empty()) {
      return {};  // known already: confirmed, or mailed its one link
    }
    id = Int(r.rows[0][0]);
  }
  const std::string who = "g:" + std::to_string(id);
  Notice n{"confirm:" + who, "mail", who, "confirm", MailPayload(a.token, a.email), now_ms, ""};
  return OutboxTable::Enqueue(tx, n, now_ms);
}

Awaitable<Result<std::optional<NotifySettings>>> NoticeBook::Settings(int64_t user_id) {
  using Out = std::optional<NotifySettings>;
  std::function<Result<Out>(Connection&)> job = [user_id](Connection& c) -> Result<Out> {
    PL_TRY(auto r, c.Query(kSettings, {user_id}));
    if (r.rows.empty()) {
      return Out{};
    }
    const Row& row = r.rows[0];
    NotifySettings s;
    s.email = IsNull(row[0]) ? "" : Text(row[0]);
    s.verified = !IsNull(row[1]);
    s.replies = Int(row[2]) != 0;
    s.article_comments = Int(row[3]) != 0;
    s.moderation = Int(row[4]) != 0;
    s.language = Text(row[5]);
    return Out(std::move(s));
  };
  co_return co_await store_.Run<Out>(std::move(job));
}

Awaitable<Result<bool>> NoticeBook::SetEmail(int64_t user_id, NewAddress a, int64_t now_ms,
                                             int64_t min_gap_ms) {
  std::function<Result<bool>(Connection&)> job = [user_id, a = std::move(a), now_ms,
                                                  min_gap_ms](Connection& conn) -> Result<bool> {
    bool found = false;
    auto st = conn.Transaction([&](Connection& tx) -> Status {
      PL_TRY(auto cur, tx.Query(kSettings, {user_id}));
      if (cur.rows.empty()) {
        return {};
      }
      found = true;
      const Row& row = cur.rows[0];
      const std::string now_email = IsNull(row[0]) ? "" : Text(row[0]);
      if (a.email == now_email) {
        return {};  // the same address: nothing to do, nothing mailed
      }
      if (a.email.empty()) {
        PL_CHECK(tx.Query(kClearEmail, {user_id}));
        return {};
      }
      if (!IsNull(row[6]) && Int(row[6]) + min_gap_ms > now_ms) {
        return Fail(ErrorCode::kRateLimited,
                    "a verification mail was sent a moment ago; try again in a few minutes");
      }
      PL_CHECK(tx.Query(kSetEmail, {user_id, a.email, a.token_hash, now_ms, a.unsubscribe_key}));
      const std::string who = "u:" + std::to_string(user_id);
      Notice n{"verify:" + who + ":" + std::to_string(now_ms),
               "mail",
               who,
               "verify",
               MailPayload(a.token, a.email),
               now_ms,
               ""};
      return OutboxTable::Enqueue(tx, n, now_ms);
    });
    PL_CHECK(st);
    return found;
  };
  co_return co_await store_.Run<bool>(std::move(job));
}

Awaitable<Result<bool>> NoticeBook::ChangeSettings(int64_t user_id, SettingsChange s) {
  std::function<Result<bool>(Connection&)> job = [user_id,
                                                  s = std::move(s)](Connection& c) -> Result<bool> {
    auto r = c.Query(kChangeSettings,
                     {user_id, OptBool(s.replies), OptBool(s.article_comments),
                      OptBool(s.moderation), s.language ? Value{*s.language} : Value{nullptr}});
    PL_CHECK(r);
    return r->affected > 0;
  };
  co_return co_await store_.Run<bool>(std::move(job));
}

Awaitable<Result<bool>> NoticeBook::Confirm(std::string token_hash, std::optional<int64_t> user_id,
                                            int64_t now_ms) {
  std::function<Result<bool>(Connection&)> job = [hash = std::move(token_hash), user_id,
                                                  now_ms](Connection& c) -> Result<bool> {
    if (hash.empty()) {
      return false;
    }
    std::string q(kConfirmUser);
    std::vector<Value> params{hash, now_ms};
    if (user_id) {
      q += " AND id = $3";
      params.emplace_back(*user_id);
    }
    PL_TRY(auto r, c.Query(q, params));
    if (r.affected > 0 || user_id) {
      return r.affected > 0;
    }
    PL_TRY(auto g, c.Query(kConfirmGuest, {hash, now_ms}));
    return g.affected > 0;
  };
  co_return co_await store_.Run<bool>(std::move(job));
}

Awaitable<Result<bool>> NoticeBook::Unsubscribe(std::string key, int64_t now_ms) {
  std::function<Result<bool>(Connection&)> job = [key = std::move(key),
                                                  now_ms](Connection& c) -> Result<bool> {
    if (key.empty()) {
      return false;
    }
    PL_TRY(auto r, c.Query(kUnsubscribeUser, {key}));
    if (r.affected > 0) {
      return true;
    }
    PL_TRY(auto g, c.Query(kUnsubscribeGuest, {key, now_ms}));
    return g.affected > 0;
  };
  co_return co_await store_.Run<bool>(std::move(job));
}

Awaitable<Result<std::optional<MailRecipient>>> NoticeBook::Recipient(std::string recipient) {
  using Out = std::optional<MailRecipient>;
  std::function<Result<Out>(Connection&)> job =
      [recipient = std::move(recipient)](Connection& c) -> Result<Out> {
    if (recipient.size() < 3 || recipient[1] != ':') {
      return Out{};
    }
    int64_t id = 0;
    try {
      id = std::stoll(recipient.substr(2));
    } catch (const std::exception&) {
      return Out{};
    }
    MailRecipient m;
    if (recipient[0] == 'u') {
      PL_TRY(auto r, c.Query(kUserRecipient, {id}));
      if (r.rows.empty()) {
        return Out{};
      }
      const Row& row = r.rows[0];
      m.email = Text(row[0]);
      m.verified = !IsNull(row[1]);
      m.wants_replies = Int(row[2]) != 0;
      m.wants_article_comments = Int(row[3]) != 0;
      m.wants_moderation = Int(row[4]) != 0;
      m.name = Text(row[5]);
      m.language = Text(row[6]);
      m.unsubscribe_key = IsNull(row[7]) ? "" : Text(row[7]);
      m.moderator = Int(row[8]) != 0;
      return Out(std::move(m));
    }
    PL_TRY(auto r, c.Query(kGuestRecipient, {id}));
    if (r.rows.empty()) {
      return Out{};
    }
    const Row& row = r.rows[0];
    m.email = Text(row[0]);
    m.verified = !IsNull(row[1]);
    const bool off = !IsNull(row[2]);
    m.wants_replies = !off;
    m.wants_article_comments = false;
    m.wants_moderation = false;
    m.language = Text(row[3]);
    m.unsubscribe_key = Text(row[4]);
    return Out(std::move(m));
  };
  co_return co_await store_.Run<Out>(std::move(job));
}

Awaitable<Result<std::vector<MailComment>>> NoticeBook::Comments(std::vector<int64_t> ids) {
  using Out = std::vector<MailComment>;
  std::function<Result<Out>(Connection&)> job = [ids =
                                                     std::move(ids)](Connection& c) -> Result<Out> {
    Out out;
    if (ids.empty()) {
      return out;
    }
    std::vector<Value> params;
    std::string q(kComments);
    q += InList(ids, params);
    q += " ORDER BY c.id";
    PL_TRY(auto r, c.Query(q, params));
    for (const Row& row : r.rows) {
      MailComment m;
      m.id = Int(row[0]);
      m.article_id = Int(row[1]);
      m.article_title = Text(row[2]);
      m.article_kind = Text(row[3]);
      m.page_url = IsNull(row[4]) ? "" : Text(row[4]);
      m.author = Text(row[5]);
      m.body = Text(row[6]);
      m.status = Text(row[7]);
      m.deleted = Int(row[8]) != 0;
      m.hidden_by_top = Int(row[9]) > 0;
      out.push_back(std::move(m));
    }
    return out;
  };
  co_return co_await store_.Run<Out>(std::move(job));
}

Awaitable<Result<bool>> NoticeBook::ForgetNotices(std::string recipient,
                                                  std::vector<int64_t> comment_ids) {
  std::function<Result<bool>(Connection&)> job =
      [recipient = std::move(recipient),
       ids = std::move(comment_ids)](Connection& c) -> Result<bool> {
    if (ids.empty()) {
      return true;
    }
    std::vector<Value> params;
    std::string q = "DELETE FROM notice_keys WHERE \"key\" IN (";
    for (size_t i = 0; i < ids.size(); ++i) {
      // The keys sql/outbox_fanout_readers.cpp writes: "<comment id>:<recipient>".
      params.emplace_back(std::to_string(ids[i]) + ":" + recipient);
      q += (i > 0 ? ", $" : "$") + std::to_string(params.size());
    }
    PL_CHECK(c.Query(q + ")", params));
    return true;
  };
  co_return co_await store_.Run<bool>(std::move(job));
}

}  // namespace plaudit::sql
