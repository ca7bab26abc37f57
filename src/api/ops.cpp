#include "api/ops.hpp"

#include <sodium.h>

#include <boost/asio/experimental/awaitable_operators.hpp>

#include "http/errors.hpp"

namespace plaudit::api {

using http::Request;
using http::Response;
using namespace boost::asio::experimental::awaitable_operators;

namespace {

Awaitable<Status> PingRedis(redis::Client* client) {
  // argv is a named variable: GCC 12 miscompiles a braced list inside co_await.
  std::vector<std::string> argv{"PING"};
  PL_CO_TRY(auto r, co_await client->Command(std::move(argv)));
  if (r.is_error()) {
    co_return Fail(ErrorCode::kUnavailable, r.str);
  }
  co_return Status{};
}

Awaitable<Status> PingSql(sql::Store* store) { co_return co_await store->Ping(); }

// A request a proxy passed on: its peer address (the proxy's, often loopback) says nothing
// about who sent it. A scraper talks to plauditd directly. Any line of these headers counts,
// empty or not: a client's own empty line must not hide the one its proxy appends.
bool Proxied(const Request& req) {
  for (const char* name : {"Forwarded", "X-Forwarded-For", "X-Real-IP", "Via"}) {
    if (req.raw.find(name) != req.raw.end()) {
      return true;
    }
  }
  return false;
}

// Whether `presented` is the configured token, in time independent of where they differ.
bool TokenMatches(std::string_view presented, const std::string& token) {
  return presented.size() == token.size() &&
         sodium_memcmp(presented.data(), token.data(), token.size()) == 0;
}

// The address must be in --metrics-allow. Then, without --metrics-token, the request must not
// have come through a proxy (its peer address would be the proxy's); with one, the token
// decides, so a scraper may also come through a proxy on the same host.
std::optional<Response> Refuse(const OpsDeps& deps, const Request& req) {
  if (!deps.allow.Contains(req.client_address) || (deps.token.empty() && Proxied(req))) {
    return http::ErrorResponse(
        Error{ErrorCode::kPermissionDenied,
              "this address may not read operations data (--metrics-allow)"});
  }
  if (!deps.token.empty()) {
    std::string_view auth = req.Header(beast::http::field::authorization);
    constexpr std::string_view kBearer = "Bearer ";
    if (!auth.starts_with(kBearer) || !TokenMatches(auth.substr(kBearer.size()), deps.token)) {
      return http::ErrorResponse(Error{ErrorCode::kUnauthenticated,
                                       "operations data needs the --metrics-token bearer token"});
    }
  }
  return std::nullopt;
}

}  // namespace

void RegisterOps(http::Router& router, const OpsDeps& deps) {
  // Liveness: a supervisor restarts plauditd when this fails, so it fails only for what a
  // restart mends: an embedded Redis that died and could not be started again (the reason
  // is in the log, not here: this is open to all).
  router.Add(
      beast::http::verb::get, "/healthz", [health = deps.health](Request&) -> Awaitable<Response> {
        if (health) {
          if (auto st = health(); !st) {
            co_return http::ErrorResponse(Error{ErrorCode::kUnavailable, st.error().message});
          }
        }
        co_return http::JsonResponse(beast::http::status::ok, {{"status", "ok"}});
      });

  // Both checks run concurrently; each is bounded by its client's timeout, so /readyz
  // answers within ~1 s even when a backend hangs.
  router.Add(beast::http::verb::get, "/readyz", [deps](Request& req) -> Awaitable<Response> {
    if (auto refused = Refuse(deps, req)) {
      co_return std::move(*refused);
    }
    auto [redis, sql] = co_await (PingRedis(deps.redis) && PingSql(deps.store));
    boost::json::object body;
    body["redis"] = redis ? "ok" : "unavailable";
    body["database"] = sql ? "ok" : "unavailable";
    if (redis && sql) {
      body["status"] = "ready";
      co_return http::JsonResponse(beast::http::status::ok, body);
    }
    std::string message;
    if (!redis) {
      message += "redis: " + redis.error().message;
    }
    if (!sql) {
      message += std::string(message.empty() ? "" : "; ") + "database: " + sql.error().message;
    }
    auto r = http::ErrorResponse(Error{ErrorCode::kUnavailable, message});
    auto v = boost::json::parse(r.body).as_object();
    v["redis"] = body["redis"];
    v["database"] = body["database"];
    r.body = boost::json::serialize(v);
    co_return r;
  });

  router.Add(beast::http::verb::get, "/metrics", [deps](Request& req) -> Awaitable<Response> {
    if (auto refused = Refuse(deps, req)) {
      co_return std::move(*refused);
    }
    Response r;
    r.body = deps.metrics->Serialize();
    r.content_type = "text/plain; version=0.0.4; charset=utf-8";
    co_return r;
  });
}

}  // namespace plaudit::api
