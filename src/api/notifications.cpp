// API.md "Notifications": a user's address and settings, and the two links every mail may
// carry — confirm an address, unsubscribe in one click. The links are pages, not JSON: a GET
// shows a button (mail scanners fetch links, and a fetch must change nothing), the button's
// POST (or a mail client's RFC 8058 one-click POST) does it.
#include "api/bind.hpp"
#include "api/bodies.hpp"
#include "api/handlers.hpp"
#include "api/json_fields.hpp"
#include "api/users.hpp"
#include "http/errors.hpp"
#include "text/escape.hpp"

namespace plaudit::api {

using http::JsonResponse;
using http::Request;
using http::Response;

namespace {

boost::json::object SettingsJson(const domain::NoticeSettingsView& s) {
  return {{"replies", s.replies},
          {"articleComments", s.article_comments},
          {"moderation", s.moderation},
          {"language", s.language}};
}

// A small page of plauditd's own: no script, nothing loaded, forms only to itself.
Response Page(beast::http::status status, std::string_view title, std::string_view message,
              std::string_view button = {}, std::string_view action = {}) {
  Response r;
  r.status = status;
  r.content_type = "text/html; charset=utf-8";
  r.body =
      "<!doctype html><html><head><meta charset=\"utf-8\"><meta name=\"viewport\" "
      "content=\"width=device-width\"><title>" +
      text::EscapeHtml(title) +
      "</title></head><body style=\"font-family:sans-serif;max-width:32em;margin:3em auto\">"
      "<h1>" +
      text::EscapeHtml(title) + "</h1><p>" + text::EscapeHtml(message) + "</p>";
  if (!button.empty()) {
    r.body += "<form method=\"post\" action=\"" + text::EscapeHtml(action) + "\"><button>" +
              text::EscapeHtml(button) + "</button></form>";
  }
  r.body += "</body></html>";
  r.headers.emplace_back("Content-Security-Policy",
                         "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'");
  r.headers.emplace_back("Cache-Control", "no-store");
  // The link's secret goes nowhere else; same-origin (not no-referrer) so the button's POST
  // carries this origin, not "null" (which the cross-site check refuses).
  r.headers.emplace_back("Referrer-Policy", "same-origin");
  return r;
}

// The link's own path and query, for its form to post back to.
std::string SelfLink(std::string_view path, std::string_view name, std::string_view value) {
  return std::string(path) + "?" + std::string(name) + "=" + std::string(value);
}

bool LinkSecretShape(std::string_view s) {
  if (s.empty() || s.size() > 128) {
    return false;
  }
  for (char c : s) {
    if (std::isalnum(static_cast<unsigned char>(c)) == 0 && c != '-' && c != '_') {
      return false;
    }
  }
  return true;
}

// The pages of a link from a mail, with its secret in the query parameter `param`.
struct MailLink {
  std::string_view param;
  std::string_view invalid;    // the 404's message: a secret of the wrong shape or unknown
  std::string_view ask_title;  // the GET's page, whose button posts back to the link
  std::string_view ask;
  std::string_view button;
  std::string_view done_title;  // the POST's page, once `act` has done it
  std::string_view done;
};

// Both links' flow: a GET only asks (mail scanners fetch links), the POST does `act(secret)`.
HandlerResult FollowMailLink(ApiContext ctx, Request& req, MailLink link,
                             Awaitable<Status> (domain::NoticeSettings::*act)(std::string)) {
  PL_CO_TRY(auto caller, co_await ctx.guard->Admit(req, Access::kPublic));
  const std::string secret(req.Query(link.param).value_or(""));
  if (!LinkSecretShape(secret)) {
    co_return Page(beast::http::status::not_found, "Link not valid", link.invalid);
  }
  if (req.raw.method() != beast::http::verb::post) {
    co_return Page(beast::http::status::ok, link.ask_title, link.ask, link.button,
                   SelfLink(req.path, link.param, secret));
  }
  auto done = co_await (ctx.notices->*act)(secret);
  if (!done) {
    if (done.error().code != ErrorCode::kNotFound) {
      co_return tl::unexpected(done.error());
    }
    co_return Page(beast::http::status::not_found, "Link not valid", link.invalid);
  }
  co_return Page(beast::http::status::ok, link.done_title, link.done);
}

}  // namespace

boost::json::object OwnUserJson(const domain::User& u, const domain::NoticeSettingsView& s) {
  auto o = UserJson(u);
  o["email"] = s.email.empty() ? boost::json::value(nullptr) : boost::json::value(s.email);
  o["emailVerified"] = s.verified;
  return o;
}

namespace notifications {

// PATCH /api/v1/users/me {"email": "a@b" | "" | null}
HandlerResult PatchMe(ApiContext ctx, Request& req) {
  PL_CO_TRY(auto caller, co_await ctx.guard->Admit(req, Access::kWrite));
  PL_CO_TRY(auto body, req.JsonBody());
  PL_CO_TRY(auto change, bodies::Email(body));
  PL_CO_TRY(auto user, co_await ctx.users->Get(caller.principal->id));
  if (!change.given) {
    PL_CO_TRY(auto s, co_await ctx.notices->Get(*caller.principal));
    co_return JsonResponse(beast::http::status::ok, OwnUserJson(user, s));
  }
  PL_CO_TRY(auto s, co_await ctx.notices->SetEmail(*caller.principal, std::move(change.email)));
  co_return JsonResponse(beast::http::status::ok, OwnUserJson(user, s));
}

// POST /api/v1/users/me/email/verify {"token"}
HandlerResult VerifyEmail(ApiContext ctx, Request& req) {
  PL_CO_TRY(auto caller, co_await ctx.guard->Admit(req, Access::kAuthenticated));
  PL_CO_TRY(auto body, req.JsonBody());
  PL_CO_TRY(auto token, bodies::Token(body));
  PL_CO_CHECK(co_await ctx.notices->Verify(*caller.principal, std::move(token)));
  co_return http::NoContent();
}

HandlerResult GetSettings(ApiContext ctx, Request& req) {
  PL_CO_TRY(auto caller, co_await ctx.guard->Admit(req, Access::kAuthenticated));
  PL_CO_TRY(auto s, co_await ctx.notices->Get(*caller.principal));
  co_return JsonResponse(beast::http::status::ok, SettingsJson(s));
}

// PATCH /api/v1/users/me/notifications {"replies"?, "articleComments"?, "moderation"?,
// "language"?: "en" | "zh-CN"}
HandlerResult PatchSettings(ApiContext ctx, Request& req) {
  PL_CO_TRY(auto caller, co_await ctx.guard->Admit(req, Access::kAuthenticated));
  PL_CO_TRY(auto body, req.JsonBody());
  PL_CO_TRY(auto c, bodies::NoticeSettings(body));
  PL_CO_TRY(auto s, co_await ctx.notices->Change(*caller.principal, std::move(c)));
  co_return JsonResponse(beast::http::status::ok, SettingsJson(s));
}

constexpr MailLink kConfirmLink{
    .param = "token",
    .invalid = "This confirmation link is not (or no longer) valid.",
    .ask_title = "Confirm your address",
    .ask = "Confirm this e-mail address to be told of replies to your comments.",
    .button = "Confirm",
    .done_title = "Address confirmed",
    .done =
        "Thank you: you will be mailed when someone replies. Every mail has a link to stop "
        "them."};

// GET and POST /api/v1/notifications/confirm?token=
HandlerResult Confirm(ApiContext ctx, Request& req) {
  co_return co_await FollowMailLink(ctx, req, kConfirmLink, &domain::NoticeSettings::Confirm);
}

constexpr MailLink kUnsubscribeLink{
    .param = "key",
    .invalid = "This unsubscribe link is not valid.",
    .ask_title = "Unsubscribe",
    .ask = "Stop every mail about comments from this site to your address?",
    .button = "Unsubscribe",
    .done_title = "Unsubscribed",
    .done = "You will get no more mail about comments from this site."};

// GET and POST /api/v1/notifications/unsubscribe?key= (POST also as RFC 8058's one-click)
HandlerResult Unsubscribe(ApiContext ctx, Request& req) {
  co_return co_await FollowMailLink(ctx, req, kUnsubscribeLink,
                                    &domain::NoticeSettings::Unsubscribe);
}

}  // namespace notifications

}  // namespace plaudit::api
