// The bodies of the account routes: sign-up, sign-in, setup, roles, bans, the reader's own
// address and notice settings, tokens (api/bodies.hpp).
#include "api/bodies.hpp"
#include "api/json_fields.hpp"
#include "common/time.hpp"
#include "domain/notice_language.hpp"

namespace plaudit::api::bodies {

namespace {

// A report's or a ban's reason: at most 500 bytes, one line of text (a NUL once stopped an
// export of the site from loading into PostgreSQL).
Status CheckReason(std::string_view reason) {
  if (reason.size() > kMaxReason) {
    return Fail(ErrorCode::kInvalidArgument, "reason must be at most 500 bytes");
  }
  for (const char ch : reason) {
    if (static_cast<unsigned char>(ch) < 0x20 || ch == 0x7F) {
      return Fail(ErrorCode::kInvalidArgument, "reason must not hold control characters");
    }
  }
  return {};
}

}  // namespace

Result<std::string> ReportReason(const boost::json::object& body) {
  PL_CHECK(OnlyFields(body, {"reason"}));
  PL_TRY(auto reason, OptionalString(body, "reason"));
  PL_CHECK(CheckReason(reason.value_or("")));
  return reason.value_or("");
}

Result<BanRequest> Ban(const boost::json::object& body, int64_t now_ms) {
  PL_CHECK(OnlyFields(body, {"until", "reason"}));
  BanRequest out;
  PL_TRY(auto until, OptionalString(body, "until"));
  if (until) {
    auto parsed = ParseTimeMs(*until);
    if (!parsed || *parsed <= now_ms) {
      return Fail(ErrorCode::kInvalidArgument, "until must be an RFC 3339 time in the future");
    }
    out.until = *parsed;
  }
  PL_TRY(auto reason, OptionalString(body, "reason"));
  out.reason = reason.value_or("");
  PL_CHECK(CheckReason(out.reason));
  return out;
}

Result<EmailChange> Email(const boost::json::object& body) {
  PL_CHECK(OnlyFields(body, {"email"}, "cannot be changed here"));
  EmailChange out;
  const auto* email = body.if_contains("email");
  if (email == nullptr) {
    return out;
  }
  out.given = true;
  if (!email->is_null()) {
    PL_TRY(out.email, RequiredString(body, "email"));
  }
  return out;
}

Result<std::string> Token(const boost::json::object& body) {
  PL_CHECK(OnlyFields(body, {"token"}));
  return RequiredString(body, "token");
}

Result<sql::SettingsChange> NoticeSettings(const boost::json::object& body) {
  PL_CHECK(OnlyFields(body, {"replies", "articleComments", "moderation", "language"}));
  sql::SettingsChange c;
  PL_TRY(c.replies, OptionalBool(body, "replies"));
  PL_TRY(c.article_comments, OptionalBool(body, "articleComments"));
  PL_TRY(c.moderation, OptionalBool(body, "moderation"));
  PL_TRY(auto language, OptionalString(body, "language"));
  if (language) {
    auto known = domain::NoticeLanguage(*language);
    if (!known) {
      return Fail(ErrorCode::kInvalidArgument, "language must be en or zh-CN");
    }
    c.language = *known;
  }
  return c;
}

Result<SetupRequest> Setup(const boost::json::object& body) {
  PL_CHECK(RefuseFields(body, {"id", "userId", "role"}));
  SetupRequest out;
  PL_TRY(out.token, RequiredString(body, "token"));
  PL_TRY(out.admin.username, RequiredString(body, "username"));
  PL_TRY(out.admin.password, RequiredString(body, "password"));
  PL_TRY(auto display, OptionalString(body, "displayName"));
  out.admin.display_name = display.value_or("");
  return out;
}

// Identity and authority come from the session, never from the body.
Result<SignUp> NewUser(const boost::json::object& body) {
  PL_CHECK(RefuseFields(body, {"id", "userId", "authorId", "role"}));
  SignUp out;
  PL_TRY(out.username, RequiredString(body, "username"));
  PL_TRY(out.password, RequiredString(body, "password"));
  PL_TRY(auto display, OptionalString(body, "displayName"));
  out.display_name = display.value_or("");
  return out;
}

Result<Credentials> SignIn(const boost::json::object& body) {
  Credentials out;
  PL_TRY(out.username, RequiredString(body, "username"));
  PL_TRY(out.password, RequiredString(body, "password"));
  return out;
}

Result<domain::Role> RoleChange(const boost::json::object& body) {
  PL_CHECK(OnlyFields(body, {"role"}, "cannot be changed"));
  PL_TRY(auto name, RequiredString(body, "role"));
  auto role = domain::ParseRole(name);
  if (!role) {
    return Fail(ErrorCode::kInvalidArgument, "role must be one of admin, moderator, author, user");
  }
  return *role;
}

}  // namespace plaudit::api::bodies
