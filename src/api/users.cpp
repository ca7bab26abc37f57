#include "api/users.hpp"

#include "api/bind.hpp"

#include "api/json_fields.hpp"
#include "common/time.hpp"
#include "http/errors.hpp"

namespace plaudit::api {

using http::ErrorResponse;
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
  return o;
}

namespace {

std::string SessionCookie(const std::string& token, int64_t max_age) {
  return std::string(kSessionCookie) + "=" + token + "; Path=/; Max-Age=" +
         std::to_string(max_age) + "; HttpOnly; SameSite=Lax";
}


Awaitable<Response> CreateUser(ApiContext ctx, Request& req) {
  auto caller = co_await ctx.guard->Admit(req, Access::kPublic);
  if (!caller) co_return ErrorResponse(caller.error());
  auto body = req.JsonBody();
  if (!body) co_return ErrorResponse(body.error());
  // Identity and authority come from the session, never from the body.
  if (auto st = RefuseFields(*body, {"id", "userId", "authorId", "role"}); !st) {
    co_return ErrorResponse(st.error());
  }
  auto username = RequiredString(*body, "username");
  if (!username) co_return ErrorResponse(username.error());
  auto password = RequiredString(*body, "password");
  if (!password) co_return ErrorResponse(password.error());
  auto display = OptionalString(*body, "displayName");
  if (!display) co_return ErrorResponse(display.error());
  auto user = co_await ctx.users->Register(std::move(*username), std::move(*password),
                                           display->value_or(""));
  if (!user) co_return ErrorResponse(user.error());
  co_return JsonResponse(beast::http::status::created, UserJson(*user));
}

Awaitable<Response> CreateSession(ApiContext ctx, Request& req) {
  auto caller = co_await ctx.guard->Admit(req, Access::kPublic);
  if (!caller) co_return ErrorResponse(caller.error());
  auto body = req.JsonBody();
  if (!body) co_return ErrorResponse(body.error());
  auto username = RequiredString(*body, "username");
  if (!username) co_return ErrorResponse(username.error());
  auto password = RequiredString(*body, "password");
  if (!password) co_return ErrorResponse(password.error());
  auto session =
      co_await ctx.users->Login(std::move(*username), std::move(*password), caller->address);
  if (!session) co_return ErrorResponse(session.error());
  boost::json::object out{{"token", session->token},
                          {"expiresAt", FormatTimeMs(session->expires_at_ms)},
                          {"user", UserJson(session->user)}};
  Response r = JsonResponse(beast::http::status::created, out);
  r.headers.emplace_back("Set-Cookie", SessionCookie(session->token, ctx.session_ttl_seconds));
  r.headers.emplace_back("Cache-Control", "no-store");
  co_return r;
}

Awaitable<Response> DeleteSession(ApiContext ctx, Request& req) {
  auto caller = co_await ctx.guard->Admit(req, Access::kAuthenticated);
  if (!caller) co_return ErrorResponse(caller.error());
  if (auto st = co_await ctx.users->Logout(caller->token, *caller->principal); !st) {
    co_return ErrorResponse(st.error());
  }
  Response r = http::NoContent();
  r.headers.emplace_back("Set-Cookie", SessionCookie("", 0));
  co_return r;
}

Awaitable<Response> GetMe(ApiContext ctx, Request& req) {
  auto caller = co_await ctx.guard->Admit(req, Access::kAuthenticated);
  if (!caller) co_return ErrorResponse(caller.error());
  auto user = co_await ctx.users->Get(caller->principal->id);
  if (!user) co_return ErrorResponse(user.error());
  co_return JsonResponse(beast::http::status::ok, UserJson(*user));
}

Awaitable<Response> GetUser(ApiContext ctx, Request& req) {
  auto caller = co_await ctx.guard->Admit(req, Access::kPublic);
  if (!caller) co_return ErrorResponse(caller.error());
  auto id = req.IdParam("id");
  if (!id) co_return ErrorResponse(id.error());
  auto user = co_await ctx.users->Get(*id);
  if (!user) co_return ErrorResponse(user.error());
  co_return JsonResponse(beast::http::status::ok, PublicUserJson(*user));
}

Awaitable<Response> PatchUser(ApiContext ctx, Request& req) {
  auto caller = co_await ctx.guard->Admit(req, Access::kWrite);
  if (!caller) co_return ErrorResponse(caller.error());
  auto id = req.IdParam("id");
  if (!id) co_return ErrorResponse(id.error());
  auto body = req.JsonBody();
  if (!body) co_return ErrorResponse(body.error());
  for (const auto& field : *body) {
    if (field.key() != "role") {
      co_return ErrorResponse(Error{ErrorCode::kInvalidArgument,
                                    "field '" + std::string(field.key()) + "' cannot be changed"});
    }
  }
  auto role_name = RequiredString(*body, "role");
  if (!role_name) co_return ErrorResponse(role_name.error());
  auto role = domain::ParseRole(*role_name);
  if (!role) {
    co_return ErrorResponse(
        Error{ErrorCode::kInvalidArgument, "role must be one of admin, author, user"});
  }
  auto user = co_await ctx.users->SetRole(*caller->principal, *id, *role);
  if (!user) co_return ErrorResponse(user.error());
  co_return JsonResponse(beast::http::status::ok, UserJson(*user));
}

// DELETE /api/v1/users/{id}: the user themself or an admin.
Awaitable<Response> DeleteUser(ApiContext ctx, Request& req) {
  auto caller = co_await ctx.guard->Admit(req, Access::kWrite);
  if (!caller) co_return ErrorResponse(caller.error());
  auto id = req.IdParam("id");
  if (!id) co_return ErrorResponse(id.error());
  if (auto st = co_await ctx.users->Delete(*caller->principal, *id); !st) {
    co_return ErrorResponse(st.error());
  }
  Response r = http::NoContent();
  // Deleting yourself signs you out in this browser too.
  if (*id == caller->principal->id) r.headers.emplace_back("Set-Cookie", SessionCookie("", 0));
  co_return r;
}

}  // namespace

void RegisterUsers(http::Router& router, ApiContext ctx) {
  router.Add(beast::http::verb::post, "/api/v1/users", Bind<CreateUser>(ctx));
  router.Add(beast::http::verb::get, "/api/v1/users/me", Bind<GetMe>(ctx));
  router.Add(beast::http::verb::get, "/api/v1/users/{id}", Bind<GetUser>(ctx));
  router.Add(beast::http::verb::patch, "/api/v1/users/{id}", Bind<PatchUser>(ctx));
  router.Add(beast::http::verb::delete_, "/api/v1/users/{id}", Bind<DeleteUser>(ctx));
  router.Add(beast::http::verb::post, "/api/v1/sessions", Bind<CreateSession>(ctx));
  router.Add(beast::http::verb::delete_, "/api/v1/sessions/current", Bind<DeleteSession>(ctx));
}

}  // namespace plaudit::api
