// API.md "Users and sessions", first-run setup: GET and POST /api/v1/setup. The rules (one
// token per process, used once, one admin however setups race) are domain/setup.hpp's.
#include "api/bodies.hpp"
#include "api/handlers.hpp"
#include "api/json_fields.hpp"
#include "api/users.hpp"

namespace plaudit::api::setup {

using http::JsonResponse;
using http::Request;

// GET /api/v1/setup → {"needed": bool}, for the /setup page.
HandlerResult Needed(ApiContext ctx, Request& req) {
  PL_CO_TRY(auto caller, co_await ctx.guard->Admit(req, Access::kPublic));
  PL_CO_TRY(auto needed, co_await ctx.setup->Needed());
  boost::json::object out{{"needed", needed}};
  co_return JsonResponse(beast::http::status::ok, out);
}

// POST /api/v1/setup {"token", "username", "password", "displayName"?} → 201 as a sign-in,
// the new admin signed in.
HandlerResult Create(ApiContext ctx, Request& req) {
  PL_CO_TRY(auto caller, co_await ctx.guard->Admit(req, Access::kPublic));
  PL_CO_TRY(auto body, req.JsonBody());
  PL_CO_TRY(auto asked, bodies::Setup(body));
  auto session = co_await ctx.setup->CreateAdmin(std::move(asked.token), std::move(asked.admin),
                                                 caller.address);
  PL_CO_CHECK(session);
  co_return SessionResponse(ctx, req, *session);
}

}  // namespace plaudit::api::setup
