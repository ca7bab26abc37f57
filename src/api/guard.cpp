#include "api/guard.hpp"

#include <spdlog/spdlog.h>

#include <boost/asio/experimental/awaitable_operators.hpp>

#include "common/address_set.hpp"
#include "common/time.hpp"

namespace plaudit::api {

using namespace boost::asio::experimental::awaitable_operators;

std::optional<std::string> BearerToken(std::string_view h) {
  if (h.empty()) {
    return std::nullopt;
  }
  constexpr std::string_view kScheme = "bearer";
  if (h.size() < kScheme.size()) {
    return std::string{};
  }
  for (size_t i = 0; i < kScheme.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(h[i])) != kScheme[i]) {
      return std::string{};
    }
  }
  std::string_view rest = h.substr(kScheme.size());
  while (!rest.empty() && rest.front() == ' ') {
    rest.remove_prefix(1);
  }
  while (!rest.empty() && rest.back() == ' ') {
    rest.remove_suffix(1);
  }
  return std::string(rest);
}

std::optional<std::string> CookieValue(std::string_view header, std::string_view name) {
  while (!header.empty()) {
    size_t semi = header.find(';');
    std::string_view pair = header.substr(0, semi);
    header = semi == std::string_view::npos ? std::string_view{} : header.substr(semi + 1);
    while (!pair.empty() && pair.front() == ' ') {
      pair.remove_prefix(1);
    }
    size_t eq = pair.find('=');
    if (eq != std::string_view::npos && pair.substr(0, eq) == name) {
      std::string_view v = pair.substr(eq + 1);
      if (v.size() >= 2 && v.front() == '"' && v.back() == '"') {
        v = v.substr(1, v.size() - 2);
      }
      return std::string(v);
    }
  }
  return std::nullopt;
}

Guard::Guard(domain::UserService& users, redis::RateLimiter& limiter, GuardLimits limits)
    : users_(users), limiter_(limiter), limits_(limits) {}

namespace {

Awaitable<Status> LimitAddress(redis::RateLimiter& limiter, bool enabled, RateLimit limit,
                               std::string address) {
  if (!enabled || !limit.enabled()) {
    co_return Status{};
  }
  co_return co_await limiter.Enforce("req-addr", address, limit, "too many requests");
}

Awaitable<Result<std::optional<domain::Principal>>> Identify(domain::UserService& users,
                                                             std::string token) {
  if (token.empty()) {
    co_return std::optional<domain::Principal>{};
  }
  co_return co_await users.Authenticate(std::move(token));
}

}  // namespace

Awaitable<Result<Caller>> Guard::Admit(const http::Request& request, Access access) {
  Caller caller;
  // Per-address limits count an IPv6 client by its /64 (common/address_set.hpp).
  caller.address = RateLimitClient(request.client_address);
  auto bearer = BearerToken(request.Header(beast::http::field::authorization));
  std::optional<std::string> cookie;
  if (!bearer) {
    cookie = CookieValue(request.Header(beast::http::field::cookie), kSessionCookie);
  }
  // Moved out: `bearer` is only tested for presence below.
  std::string token = bearer ? std::move(*bearer) : std::move(cookie).value_or("");

  // The address limit and the session lookup are independent: one pipelined round trip.
  // Without an address limit the session lookup runs alone (a parallel group costs two
  // coroutine frames and a cancellation slot per request).
  Status limited;
  Result<std::optional<domain::Principal>> identity;
  // A session the cache knows (most requests of a signed-in reader) is answered in place:
  // Identify → Authenticate → SessionStore::Get would cost three coroutine frames for it.
  std::optional<std::optional<domain::Principal>> cached = users_.AuthenticateCached(token);
  if (cached) {
    identity = std::move(*cached);
    if (limits_.enabled && limits_.requests_per_address.enabled()) {
      limited = co_await LimitAddress(limiter_, true, limits_.requests_per_address, caller.address);
    }
  } else if (limits_.enabled && limits_.requests_per_address.enabled()) {
    auto both =
        co_await (LimitAddress(limiter_, true, limits_.requests_per_address, caller.address) &&
                  Identify(users_, token));
    limited = std::move(std::get<0>(both));
    identity = std::move(std::get<1>(both));
  } else {
    identity = co_await Identify(users_, token);
  }
  bool limiter_down = false;
  if (!limited) {
    if (limited.error().code == ErrorCode::kRateLimited) {
      co_return tl::unexpected(limited.error());
    }
    limiter_down = true;
  }
  if (!identity) {
    if (token.empty()) {
      co_return tl::unexpected(identity.error());
    }
    co_return Fail(identity.error().code == ErrorCode::kUnavailable ? ErrorCode::kUnavailable
                                                                    : ErrorCode::kInternal,
                   "cannot check the session: " + identity.error().message);
  }
  if (*identity) {
    caller.principal = std::move(*identity);
    caller.token = std::move(token);  // not read below
  } else if (bearer) {
    co_return Fail(ErrorCode::kUnauthenticated, "invalid or expired token");
  }

  if (limiter_down) {
    if (access == Access::kCostly && !caller.principal) {
      co_return Fail(ErrorCode::kUnavailable, "busy: cannot check the request limit; retry");
    }
    spdlog::warn("rate limiter unavailable, letting request through: {}", limited.error().message);
  }
  if (access != Access::kPublic && access != Access::kCostly && !caller.principal) {
    co_return Fail(ErrorCode::kUnauthenticated, "sign in first");
  }
  // A ban is read with the role (UserDirectory): it reaches every instance as a demotion does.
  if (access == Access::kWrite && caller.principal->Banned(NowMs())) {
    std::string message = "you are banned from writing here";
    if (caller.principal->banned_until_ms < domain::kBannedForever) {
      message += " until " + FormatTimeMs(caller.principal->banned_until_ms);
    }
    co_return Fail(ErrorCode::kBanned, std::move(message));
  }
  if (access == Access::kWrite && limits_.enabled && limits_.writes_per_user.enabled()) {
    auto st = co_await limiter_.Enforce("write-user", std::to_string(caller.principal->id),
                                        limits_.writes_per_user, "too many writes");
    if (!st && st.error().code == ErrorCode::kRateLimited) {
      co_return tl::unexpected(st.error());
    }
  }
  co_return caller;
}

}  // namespace plaudit::api
