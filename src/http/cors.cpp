#include "http/cors.hpp"

namespace plaudit::http {
namespace {

constexpr std::string_view kAllowMethods = "GET, POST, PUT, PATCH, DELETE";
// Plaudit-Edit-Token: a guest's edit token (API.md "Guests and sign-in from elsewhere").
constexpr std::string_view kAllowHeaders =
    "Authorization, Content-Type, If-None-Match, Plaudit-Edit-Token";
// What a widget must read besides the simple response headers: Retry-After on a 429, the
// ETag for conditional reads.
constexpr std::string_view kExposeHeaders = "Retry-After, ETag";
constexpr std::string_view kMaxAgeSeconds = "600";

std::string_view OriginOf(const RawRequest& req) {
  auto it = req.find(beast::http::field::origin);
  if (it == req.end()) {
    return {};
  }
  return {it->value().data(), it->value().size()};
}

}  // namespace

bool CorsPolicy::IsPreflight(const RawRequest& req, std::string_view path) {
  return req.method() == beast::http::verb::options && path.starts_with("/api/") &&
         req.find(beast::http::field::access_control_request_method) != req.end();
}

Response CorsPolicy::Preflight(const RawRequest& req) const {
  Response r = NoContent();
  std::string_view origin = OriginOf(req);
  if (!origin.empty() && sites_.ListsExactly(origin)) {
    r.headers.emplace_back("Access-Control-Allow-Methods", kAllowMethods);
    r.headers.emplace_back("Access-Control-Allow-Headers", kAllowHeaders);
    r.headers.emplace_back("Access-Control-Max-Age", kMaxAgeSeconds);
  }
  return r;  // the Server adds what Apply adds, as to every answer
}

void CorsPolicy::Apply(const RawRequest& req, Response& response) const {
  std::string_view origin = OriginOf(req);
  if (origin.empty()) {
    return;
  }
  response.headers.emplace_back("Vary", "Origin");
  // Exactly as a browser writes it: the header is echoed, so an odd spelling
  // ("http://LOCALHOST:9999", a trailing '/') that only normalises to a site gets nothing.
  if (!sites_.ListsExactly(origin)) {
    return;
  }
  response.headers.emplace_back("Access-Control-Allow-Origin", origin);
  response.headers.emplace_back("Access-Control-Allow-Credentials", "true");
  response.headers.emplace_back("Access-Control-Expose-Headers", kExposeHeaders);
}

}  // namespace plaudit::http
