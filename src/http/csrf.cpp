#include "http/csrf.hpp"

namespace plaudit::http {
namespace {

// The origin a browser says the request came from: Origin, else Referer's origin; "" when
// it says nothing. A Referer that is not an http(s) URL is returned as it is (and matches
// no origin).
std::string ClaimedOrigin(const Request& request) {
  std::string_view origin = request.Header(beast::http::field::origin);
  if (!origin.empty()) {
    return std::string(origin);
  }
  std::string_view referer = request.Header(beast::http::field::referer);
  if (referer.empty()) {
    return {};
  }
  auto page = NormalisePageUrl(referer);
  return page ? std::move(page->origin) : std::string(referer);
}

bool IsOwnOrigin(const Request& request, std::string_view origin) {
  auto own = OwnOrigin(request);
  auto claimed = NormaliseOrigin(origin);
  return own && claimed && *own == *claimed;
}

}  // namespace

std::optional<std::string> OwnOrigin(const Request& request) {
  std::string_view host = request.forwarded_host;
  if (host.empty()) {
    host = request.Header(beast::http::field::host);
  }
  if (host.empty()) {
    return std::nullopt;
  }
  auto own =
      NormaliseOrigin(std::string(request.https ? "https://" : "http://") + std::string(host));
  if (!own) {
    return std::nullopt;
  }
  return std::move(*own);
}

bool IsCrossSiteWrite(const Request& request, const SiteList& sites) {
  if (!IsWriteMethod(request.raw.method())) {
    return false;
  }
  if (!request.Header(beast::http::field::authorization).empty()) {
    return false;
  }
  std::string origin = ClaimedOrigin(request);
  if (origin.empty()) {
    return false;
  }
  return !IsOwnOrigin(request, origin) && !sites.Allows(origin);
}

}  // namespace plaudit::http
