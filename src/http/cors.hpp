#pragma once
// Cross-origin access for the sites of --sites (API.md "Embedding on other sites").
//
// Why the answer echoes the Origin and never says "*": a widget's requests carry the session
// cookie (credentials), and browsers refuse "*" with credentials; an origin outside the list
// gets no Access-Control-Allow-* header at all, so its scripts can neither read an answer nor
// send a credentialed write past a preflight. A preflight from it still answers 204 (without
// those headers): a 403 would tell the browser nothing more, and 204 keeps preflights uniform
// for caches.
//
// Cost: a request without an Origin header (every non-browser client, and every same-origin
// GET) is one header lookup, nothing allocated.
#include <string_view>

#include "common/web_origin.hpp"
#include "http/request.hpp"

namespace plaudit::http {

class CorsPolicy {
 public:
  explicit CorsPolicy(SiteList sites) : sites_(std::move(sites)) {}

  // An OPTIONS request with Access-Control-Request-Method under /api/: answered here, before
  // routing (the router would say 405).
  static bool IsPreflight(const RawRequest& req, std::string_view path);
  // 204, with Allow-Methods, Allow-Headers and Max-Age when the Origin is one of the sites
  // (Apply, which the Server runs on every answer, adds the rest).
  Response Preflight(const RawRequest& req) const;
  // Adds Vary: Origin to the answer of a request with an Origin, and the Allow-Origin,
  // Allow-Credentials and Expose-Headers headers when that origin is one of the sites.
  void Apply(const RawRequest& req, Response& response) const;

  const SiteList& sites() const { return sites_; }

 private:
  SiteList sites_;
};

}  // namespace plaudit::http
