#include "api/users.hpp"

#include "api/bind.hpp"
#include "api/bodies.hpp"
#include "api/handlers.hpp"
#include "api/json_fields.hpp"
#include "api/keyset_page.hpp"
#include "api/paging.hpp"
#include "common/time.hpp"
#include "http/errors.hpp"

namespace plaudit::api {

using http::JsonResponse;
using http::Request;
using http::Response;

boost::json::object PublicUserJson(const domain::User& u) {
  return {{"id", u.id},
          {"username", u.username},
          {"displayName", u.display_name},
          {"role", domain::RoleName(u.role)}};
}

boost::json::object UserJson(const domain::User& u) {
  auto o = PublicUserJson(u);
  o["createdAt"] = FormatTimeMs(u.created_at_ms);
  // A ban is the user's own business and moderators' (API.md "Moderation").
  const bool banned = u.banned_until_ms > NowMs();
  o["banned"] = banned;
  if (banned && u.banned_until_ms < domain::kBannedForever) {
    o["bannedUntil"] = FormatTimeMs(u.banned_until_ms);
  } else {
    o["bannedUntil"] = nullptr;
  }
  if (banned) {
    o["banReason"] = u.ban_reason;
  }
  return o;
}

// Secure with --cookie-secure, or when the client spoke HTTPS (to a trusted proxy): a cookie
// set over plain HTTP without --cookie-secure must stay usable over plain HTTP.
std::string SessionCookie(const ApiContext& ctx, const Request& req, const std::string& token,
                          int64_t max_age) {
  std::string cookie(kSessionCookie);
  cookie.append("=").append(token).append("; Path=/; Max-Age=").append(std::to_string(max_age));
  cookie.append("; HttpOnly; SameSite=Lax");
  if (ctx.cookie_secure || req.https) {
    cookie.append("; Secure");
  }
  return cookie;
}

Response SessionResponse(const ApiContext& ctx, const Request& req,
                         const domain::Session& session) {
  boost::json::object out{{"token", session.token},
                          {"expiresAt", FormatTimeMs(session.expires_at_ms)},
                          {"user", UserJson(session.user)}};
  Response r = JsonResponse(beast::http::status::created, out);
  r.headers.emplace_back("Set-Cookie",
                         SessionCookie(ctx, req, session.token, ctx.session_ttl_seconds));
  r.headers.emplace_back("Cache-Control", "no-store");
  return r;
}

namespace users {

HandlerResult CreateUser(ApiContext ctx, Request& req) {
  PL_CO_TRY(auto caller, co_await ctx.guard->Admit(req, Access::kPublic));
  PL_CO_TRY(auto body, req.JsonBody());
  PL_CO_TRY(auto asked, bodies::NewUser(body));
  PL_CO_TRY(auto user,
            co_await ctx.users->Register(std::move(asked.username), std::move(asked.password),
                                         std::move(asked.display_name), caller.address));
  co_return JsonResponse(beast::http::status::created, UserJson(user));
}

HandlerResult CreateSession(ApiContext ctx, Request& req) {
  PL_CO_TRY(auto caller, co_await ctx.guard->Admit(req, Access::kPublic));
  PL_CO_TRY(auto body, req.JsonBody());
  PL_CO_TRY(auto asked, bodies::SignIn(body));
  auto session = co_await ctx.users->Login(std::move(asked.username), std::move(asked.password),
                                           caller.address);
  PL_CO_CHECK(session);
  co_return SessionResponse(ctx, req, *session);
}

HandlerResult DeleteSession(ApiContext ctx, Request& req) {
  PL_CO_TRY(auto caller, co_await ctx.guard->Admit(req, Access::kAuthenticated));
  PL_CO_CHECK(co_await ctx.users->Logout(caller.token, *caller.principal));
  Response r = http::NoContent();
  r.headers.emplace_back("Set-Cookie", SessionCookie(ctx, req, "", 0));
  co_return r;
}

HandlerResult GetMe(ApiContext ctx, Request& req) {
  PL_CO_TRY(auto caller, co_await ctx.guard->Admit(req, Access::kAuthenticated));
  PL_CO_TRY(auto user, co_await ctx.users->Get(caller.principal->id));
  PL_CO_TRY(auto notices, co_await ctx.notices->Get(*caller.principal));
  co_return JsonResponse(beast::http::status::ok, OwnUserJson(user, notices));
}

HandlerResult GetUser(ApiContext ctx, Request& req) {
  PL_CO_TRY(auto caller, co_await ctx.guard->Admit(req, Access::kPublic));
  PL_CO_TRY(auto id, req.IdParam("id"));
  PL_CO_TRY(auto user, co_await ctx.users->Get(id));
  co_return JsonResponse(beast::http::status::ok, PublicUserJson(user));
}

// GET /api/v1/users?q=&cursor=&size= (moderators): live accounts by id, the full user object
// (role, ban) of each; `q` a prefix of the username or display name; the cursor is the last
// id seen.
HandlerResult ListUsers(ApiContext ctx, Request& req) {
  PL_CO_TRY(auto caller, co_await ctx.guard->Admit(req, Access::kAuthenticated));
  PL_CO_TRY(auto size, IntParam(req, "size", 50, 1, 100));
  int64_t after = 0;
  if (auto cursor = req.Query("cursor"); cursor && !cursor->empty()) {
    PL_CO_TRY(after, IntParam(req, "cursor", 0, 1, INT64_MAX));
  }
  const std::string query(req.Query("q").value_or(""));
  if (query.size() > 64) {
    co_return Fail(ErrorCode::kInvalidArgument, "q is too long");
  }
  PL_CO_TRY(auto users,
            co_await ctx.users->List(*caller.principal, after, query, static_cast<int>(size) + 1));
  const boost::json::value next = TrimToPage(users, size, [](const auto& u) { return u.id; });
  boost::json::array items;
  for (const auto& u : users) {
    items.push_back(UserJson(u));
  }
  co_return JsonResponse(beast::http::status::ok,
                         boost::json::object{{"items", items}, {"nextCursor", next}});
}

HandlerResult PatchUser(ApiContext ctx, Request& req) {
  PL_CO_TRY(auto caller, co_await ctx.guard->Admit(req, Access::kWrite));
  PL_CO_TRY(auto id, req.IdParam("id"));
  PL_CO_TRY(auto body, req.JsonBody());
  PL_CO_TRY(auto role, bodies::RoleChange(body));
  PL_CO_TRY(auto user, co_await ctx.users->SetRole(*caller.principal, id, role));
  co_return JsonResponse(beast::http::status::ok, UserJson(user));
}

// DELETE /api/v1/users/{id}: the user themself or an admin.
HandlerResult DeleteUser(ApiContext ctx, Request& req) {
  // Not kWrite: a banned user may still close their account.
  PL_CO_TRY(auto caller, co_await ctx.guard->Admit(req, Access::kAuthenticated));
  PL_CO_TRY(auto id, req.IdParam("id"));
  PL_CO_CHECK(co_await ctx.users->Delete(*caller.principal, id));
  Response r = http::NoContent();
  // Deleting yourself signs you out in this browser too.
  if (id == caller.principal->id) {
    r.headers.emplace_back("Set-Cookie", SessionCookie(ctx, req, "", 0));
  }
  co_return r;
}

}  // namespace users

}  // namespace plaudit::api
