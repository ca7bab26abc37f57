// Ways in besides a password (API.md "Guests and sign-in from elsewhere"): the list a widget
// draws its choices from, and a host site's own sign-in (SSO). Each ends in the session
// POST /api/v1/sessions gives (api/users.cpp SessionResponse).
#include <sodium.h>

#include <array>

#include "api/bind.hpp"
#include "api/bodies.hpp"
#include "api/handlers.hpp"
#include "api/json_fields.hpp"
#include "api/users.hpp"
#include "common/time.hpp"
#include "http/csrf.hpp"
#include "http/errors.hpp"
#include "text/escape.hpp"

namespace plaudit::api {

using http::JsonResponse;
using http::Request;

namespace sign_in {

// GET /api/v1/auth/providers.
HandlerResult Providers(ApiContext ctx, Request& req) {
  PL_CO_TRY(auto caller, co_await ctx.guard->Admit(req, Access::kPublic));
  (void)caller;
  boost::json::array items;
  if (ctx.social != nullptr) {
    for (const auto& p : ctx.social->Providers()) {
      const bool github = p.kind == domain::SocialProvider::Kind::kGithub;
      items.push_back(boost::json::object{{"name", p.name}, {"kind", github ? "github" : "oidc"}});
    }
  }
  if (ctx.sso != nullptr) {
    for (const std::string& site : ctx.sso->Sites()) {
      items.push_back(boost::json::object{{"name", site}, {"kind", "sso"}});
    }
  }
  const boost::json::object out{{"items", std::move(items)},
                                {"guests", domain::GuestModeName(ctx.comments->Guests())}};
  co_return JsonResponse(beast::http::status::ok, out);
}

// POST /api/v1/sessions/sso {"token"}.
HandlerResult Sso(ApiContext ctx, Request& req) {
  PL_CO_TRY(auto caller, co_await ctx.guard->Admit(req, Access::kCostly));
  (void)caller;
  PL_CO_TRY(auto body, req.JsonBody());
  PL_CO_TRY(auto token, bodies::Token(body));
  if (ctx.sso == nullptr) {
    co_return Fail(ErrorCode::kUnauthenticated, "sso token: no site signs readers in here");
  }
  PL_CO_TRY(auto session, co_await ctx.sso->SignIn(token));
  co_return SessionResponse(ctx, req, session);
}

namespace {

// The cookie that binds a sign-in to the browser that started it: never readable by a script,
// gone after 10 minutes. Over HTTPS it is a __Host- cookie (Secure, Path=/, no Domain), which
// a sibling subdomain cannot set in the reader's browser to slip in its own binding.
bool SecureCookies(const ApiContext& ctx, const Request& req) {
  return ctx.cookie_secure || req.https;
}

std::string_view BinderName(bool secure) {
  return secure ? "__Host-plaudit_signin" : "plaudit_signin";
}

std::string BinderCookie(const ApiContext& ctx, const Request& req, std::string_view value,
                         int max_age) {
  const bool secure = SecureCookies(ctx, req);
  std::string c(BinderName(secure));
  c.append("=").append(value).append(secure ? "; Path=/" : "; Path=/api/v1/auth/");
  c.append("; Max-Age=").append(std::to_string(max_age)).append("; HttpOnly; SameSite=Lax");
  if (secure) {
    c.append("; Secure");
  }
  return c;
}

// JSON inside a <script> element: no "<", ">" or "&" that could end it or open a comment.
std::string ScriptJson(const boost::json::value& v) {
  std::string out;
  for (char ch : boost::json::serialize(v)) {
    if (ch == '<') {
      out += "\\u003c";
    } else if (ch == '>') {
      out += "\\u003e";
    } else if (ch == '&') {
      out += "\\u0026";
    } else {
      out += ch;
    }
  }
  return out;
}

// The page the provider's redirect lands on. Signed in, its script hands the session to the
// widget that opened it (postMessage to the return URL's origin only, then closes); with no
// opener it goes on to the return URL when that is plauditd's own (the cookie set here is the
// session), and otherwise says so (a session is never put in a URL: a crafted one would sign a
// reader in to someone else's account). Its one inline script runs by a nonce; nothing else
// may load.
http::Response CallbackPage(beast::http::status status, std::string_view message,
                            const boost::json::value& data) {
  std::array<unsigned char, 16> raw{};
  randombytes_buf(raw.data(), raw.size());
  std::array<char, 33> nonce{};
  sodium_bin2hex(nonce.data(), nonce.size(), raw.data(), raw.size());
  const std::string n(nonce.data(), 32);
  http::Response r;
  r.status = status;
  r.content_type = "text/html; charset=utf-8";
  r.body =
      "<!doctype html><html><head><meta charset=\"utf-8\"><title>Plaudit sign-in</title>"
      "<meta name=\"viewport\" content=\"width=device-width\"></head><body><p>" +
      text::EscapeHtml(message) + "</p><script type=\"application/json\" id=\"plaudit-data\">" +
      ScriptJson(data) + "</script><script nonce=\"" + n +
      "\">(function(){var d=JSON.parse(document.getElementById('plaudit-data').textContent);"
      "if(!d.session)return;"
      "if(window.opener){try{window.opener.postMessage({type:'plaudit:session',session:d.session},"
      "d.origin);}catch(e){}window.close();return;}"
      "if(d.origin===location.origin)location.replace(d.returnUrl);})();</script></body></html>";
  r.headers.emplace_back("Content-Security-Policy",
                         "default-src 'none'; script-src 'nonce-" + n +
                             "'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'");
  r.headers.emplace_back("Cache-Control", "no-store");
  r.headers.emplace_back("Referrer-Policy", "no-referrer");
  r.headers.emplace_back("X-Frame-Options", "DENY");
  return r;
}

}  // namespace

// GET /api/v1/auth/{name}/start?return=URL → 302 to the provider.
HandlerResult Start(ApiContext ctx, Request& req) {
  PL_CO_TRY(auto caller, co_await ctx.guard->Admit(req, Access::kCostly));
  (void)caller;
  if (ctx.social == nullptr) {
    co_return Fail(ErrorCode::kNotFound, "no such sign-in provider");
  }
  const std::optional<std::string> own = http::OwnOrigin(req);
  if (!own) {
    co_return Fail(ErrorCode::kInvalidArgument, "the request names no host");
  }
  const std::string return_url = req.Query("return").value_or("");
  PL_CO_TRY(auto started, co_await ctx.social->Start(req.Param("name"), return_url, *own));
  http::Response r;
  r.status = beast::http::status::found;
  r.headers.emplace_back("Location", started.location);
  r.headers.emplace_back("Set-Cookie", BinderCookie(ctx, req, started.binder, 600));
  r.headers.emplace_back("Cache-Control", "no-store");
  r.headers.emplace_back("Referrer-Policy", "no-referrer");
  co_return r;
}

// GET /api/v1/auth/{name}/callback?code=&state= (or ?error=): the provider's redirect.
HandlerResult Callback(ApiContext ctx, Request& req) {
  PL_CO_TRY(auto caller, co_await ctx.guard->Admit(req, Access::kCostly));
  (void)caller;
  if (ctx.social == nullptr) {
    co_return Fail(ErrorCode::kNotFound, "no such sign-in provider");
  }
  const std::string binder =
      CookieValue(req.Header(beast::http::field::cookie), BinderName(SecureCookies(ctx, req)))
          .value_or("");
  Result<domain::SocialSignIn::Finished> done =
      Fail(ErrorCode::kUnauthenticated, "sign-in: the provider refused it");
  const std::string code = req.Query("code").value_or("");
  const std::string state = req.Query("state").value_or("");
  const std::string error = req.Query("error").value_or("");
  if (error.empty()) {
    done = co_await ctx.social->Finish(req.Param("name"), code, state, binder);
  } else {
    // The state is taken even so, so it cannot be used afterwards.
    (void)co_await ctx.social->Finish(req.Param("name"), "", state, binder);
    done = Fail(ErrorCode::kUnauthenticated, "sign-in: the provider said " + error);
  }
  if (!done) {
    // The error table's status for an outage or an unknown provider; any other failure is the
    // provider's or the state's, which the page shows as a failed sign-in.
    const ErrorCode code = done.error().code;
    const bool as_is = code == ErrorCode::kUnavailable || code == ErrorCode::kNotFound;
    const auto status = http::StatusFor(as_is ? code : ErrorCode::kUnauthenticated);
    auto r = CallbackPage(status, done.error().message, boost::json::object{});
    r.headers.emplace_back("Set-Cookie", BinderCookie(ctx, req, "", 0));
    co_return r;
  }
  const domain::Session& s = done->session;
  auto page = NormalisePageUrl(done->return_url);
  const boost::json::object data{
      {"origin", page ? page->origin : std::string()},
      {"returnUrl", done->return_url},
      {"session", boost::json::object{{"token", s.token},
                                      {"expiresAt", FormatTimeMs(s.expires_at_ms)},
                                      {"user", UserJson(s.user)}}}};
  auto r = CallbackPage(beast::http::status::ok, "Signed in as " + s.user.display_name + ".", data);
  r.headers.emplace_back("Set-Cookie", BinderCookie(ctx, req, "", 0));
  r.headers.emplace_back("Set-Cookie", SessionCookie(ctx, req, s.token, ctx.session_ttl_seconds));
  co_return r;
}

}  // namespace sign_in

}  // namespace plaudit::api
