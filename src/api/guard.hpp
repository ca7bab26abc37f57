#pragma once
// Who is calling, and may they: the first step of every /api/v1 handler.
//
// The caller's identity comes only from a session token: `Authorization: Bearer <token>` or
// the `plaudit_session` cookie. An invalid or expired Bearer token is 401 on every route; an
// invalid cookie is ignored (the request is anonymous). When Redis cannot be asked about a
// presented token, the answer is 503, never 401. Rate limits: requests per client address
// on every call, writes per user on every authenticated write. A limiter that cannot reach
// Redis lets the request through (the request's own Redis work will fail properly if Redis
// is really gone), except an anonymous one on a costly read (kCostly): that is 503, so a
// Redis slowed by a flood of expensive reads does not also lose the limit that would stop it
// (issue 41).
#include <optional>
#include <string>
#include <utility>

#include "common/result.hpp"
#include "domain/user.hpp"
#include "domain/users.hpp"
#include "http/request.hpp"
#include "redis/rate_limiter.hpp"

namespace plaudit::api {

enum class Access {
  kPublic,         // anonymous callers welcome
  kCostly,         // anonymous callers welcome, but not past a limiter that cannot answer
  kAuthenticated,  // a session is required
  kWrite,          // a session is required, and the per-user write limit applies
};

struct GuardLimits {
  bool enabled = true;
  RateLimit requests_per_address;
  RateLimit writes_per_user;
};

struct Caller {
  std::optional<domain::Principal> principal;
  std::string token;    // the session token used, if any
  std::string address;  // as per-address rate limits count it (an IPv6 client by its /64)

  bool authenticated() const { return principal.has_value(); }
  bool Is(domain::Role role) const { return principal && domain::HasRole(principal->role, role); }
};

class Guard {
 public:
  Guard(domain::UserService& users, redis::RateLimiter& limiter, GuardLimits limits);

  Awaitable<Result<Caller>> Admit(const http::Request& request, Access access);

 private:
  domain::UserService& users_;
  redis::RateLimiter& limiter_;
  GuardLimits limits_;
};

// The token of an `Authorization: Bearer` header (nullopt when there is no such header).
std::optional<std::string> BearerToken(std::string_view authorization);
// The value of cookie `name` in a Cookie header, if present.
std::optional<std::string> CookieValue(std::string_view cookie_header, std::string_view name);

inline constexpr std::string_view kSessionCookie = "plaudit_session";

}  // namespace plaudit::api
