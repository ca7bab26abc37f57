#pragma once
// The JSON body of every write route (API.md), decoded into what its handler acts on. Kept
// apart from the handlers, which call the services, so that fuzz/bodies.cpp can feed each
// decoder alone. A decoder refuses with kInvalidArgument naming the field; what one that
// succeeds promises is said beside it, and the fuzzer checks exactly that.
#include <boost/json.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/result.hpp"
#include "domain/article.hpp"
#include "domain/comment.hpp"
#include "domain/page_threads.hpp"
#include "domain/setup.hpp"
#include "domain/user.hpp"
#include "sql/comments.hpp"
#include "sql/notices.hpp"

namespace plaudit::api::bodies {

// A kind the articles routes take (in a body or a filter): article or post. Page threads are
// made by the pages routes only and are never listed, so "page" is refused too.
std::optional<domain::ArticleKind> ArticleKindOf(std::string_view text);

// POST /articles (create: kind may be given) and PATCH /articles/{id}. Only the fields a
// writer may set: identity, ids and counters are refused, never ignored. kind, when given,
// is article or post; moderation, when given, is "" (the server's) or a known policy.
Result<domain::ArticleInput> Article(const boost::json::object& body, bool create);

// POST /articles/{id}/comments and the comment part of POST /pages/comments. body is given;
// formAgeMs, when given, is not negative.
Result<domain::CommentInput> NewComment(const boost::json::object& body);

// The "guest" object of a post without a session, taken out of the body (so NewComment does
// not see it): nullopt when there is none; else its name is given.
Result<std::optional<domain::GuestName>> Guest(boost::json::object& body);

// POST /pages/comments (after Guest): the thread's title, read only when this comment makes
// the thread, and the comment.
struct PageComment {
  std::optional<std::string> title;
  domain::CommentInput comment;
};
Result<PageComment> NewPageComment(boost::json::object body);

// PATCH /comments/{id} and POST /comments/preview: {"body"} and nothing else.
Result<std::string> CommentText(const boost::json::object& body);

// POST /moderation/comments: 1 to kMaxModerated positive ids and a known action.
inline constexpr size_t kMaxModerated = 100;
struct ModerationRequest {
  std::vector<int64_t> ids;
  sql::ModerationAction action = sql::ModerationAction::kApprove;
};
Result<ModerationRequest> Moderation(const boost::json::object& body);

// POST /comments/{id}/reports {"reason"?} (the route also takes no body: reason ""). The
// reason is at most kMaxReason bytes without control characters.
inline constexpr size_t kMaxReason = 500;
Result<std::string> ReportReason(const boost::json::object& body);

// PUT /users/{id}/ban {"until"?, "reason"?} (or no body: forever, no reason). until is after
// now_ms (or domain::kBannedForever), the reason as a report's.
struct BanRequest {
  int64_t until = domain::kBannedForever;
  std::string reason;
};
Result<BanRequest> Ban(const boost::json::object& body, int64_t now_ms);

// PATCH /users/me {"email"?}: absent, nothing changes; null or "" clears the address.
struct EmailChange {
  bool given = false;
  std::string email;
};
Result<EmailChange> Email(const boost::json::object& body);

// POST /users/me/email/verify and POST /sessions/sso: {"token"} and nothing else.
Result<std::string> Token(const boost::json::object& body);

// PATCH /users/me/notifications: the flags given, and a known language when given.
Result<sql::SettingsChange> NoticeSettings(const boost::json::object& body);

// POST /setup {"token", "username", "password", "displayName"?}: no id or role.
struct SetupRequest {
  std::string token;
  domain::FirstAdmin admin;
};
Result<SetupRequest> Setup(const boost::json::object& body);

// POST /users {"username", "password", "displayName"?}: no id, author or role.
struct SignUp {
  std::string username;
  std::string password;
  std::string display_name;  // "" → the username
};
Result<SignUp> NewUser(const boost::json::object& body);

// POST /sessions {"username", "password"} (other fields are ignored, as they always were).
struct Credentials {
  std::string username;
  std::string password;
};
Result<Credentials> SignIn(const boost::json::object& body);

// PATCH /users/{id} {"role"}: a known role, and nothing else.
Result<domain::Role> RoleChange(const boost::json::object& body);

}  // namespace plaudit::api::bodies
