#include "http/errors.hpp"

#include <spdlog/spdlog.h>

#include <string>

namespace plaudit::http {
namespace {

// A row of the table: an error (a service's ErrorCode or an HttpError), its status and its
// API.md code.
template <class Key>
struct Mapping {
  Key error{};
  beast::http::status status{};
  std::string_view api_code;
};

// The row for `error`; nullptr when the table has none.
template <class Key, size_t N>
const Mapping<Key>* Find(const Mapping<Key> (&table)[N], Key error) {
  for (const auto& m : table) {
    if (m.error == error) {
      return &m;
    }
  }
  return nullptr;
}

// Keep in step with the error table of API.md.
constexpr Mapping<ErrorCode> kMappings[] = {
    {ErrorCode::kInvalidArgument, beast::http::status::bad_request, "invalid_field"},
    {ErrorCode::kInvalidJson, beast::http::status::bad_request, "invalid_json"},
    {ErrorCode::kUnauthenticated, beast::http::status::unauthorized, "unauthenticated"},
    {ErrorCode::kPermissionDenied, beast::http::status::forbidden, "forbidden"},
    {ErrorCode::kNotFound, beast::http::status::not_found, "not_found"},
    {ErrorCode::kAlreadyExists, beast::http::status::conflict, "conflict"},
    {ErrorCode::kDuplicate, beast::http::status::conflict, "duplicate"},
    {ErrorCode::kBanned, beast::http::status::forbidden, "banned"},
    {ErrorCode::kRateLimited, beast::http::status::too_many_requests, "rate_limited"},
    {ErrorCode::kUnavailable, beast::http::status::service_unavailable, "unavailable"},
    {ErrorCode::kInternal, beast::http::status::internal_server_error, "internal"},
};

constexpr Mapping<HttpError> kHttpMappings[] = {
    {HttpError::kMalformed, beast::http::status::bad_request, "bad_request"},
    {HttpError::kCrossSite, beast::http::status::forbidden, "forbidden"},
    {HttpError::kNoRoute, beast::http::status::not_found, "not_found"},
    {HttpError::kMethodNotAllowed, beast::http::status::method_not_allowed, "method_not_allowed"},
    {HttpError::kPayloadTooLarge, beast::http::status::payload_too_large, "payload_too_large"},
    {HttpError::kUnsupportedMediaType, beast::http::status::unsupported_media_type,
     "unsupported_media_type"},
    {HttpError::kHeaderTooLarge, beast::http::status::request_header_fields_too_large,
     "header_too_large"},
    {HttpError::kNotImplemented, beast::http::status::not_implemented, "not_implemented"},
};

Response Body(beast::http::status status, std::string_view code, std::string_view message) {
  boost::json::object err;
  err["code"] = code;
  err["message"] = message;
  boost::json::object body;
  body["error"] = std::move(err);
  Response r = JsonResponse(status, body);
  // An error is about this moment (a draft that may be published next, a limit that lifts):
  // no cache keeps it, not even by heuristic freshness (a 404 is cacheable by default).
  r.headers.emplace_back("Cache-Control", "no-store");
  return r;
}

// A code the table lacks is answered as kInternal, its last row.
const Mapping<ErrorCode>& RowFor(ErrorCode code) {
  const Mapping<ErrorCode>* m = Find(kMappings, code);
  return m != nullptr ? *m : kMappings[std::size(kMappings) - 1];
}

}  // namespace

beast::http::status StatusFor(ErrorCode code) { return RowFor(code).status; }
std::string_view ApiCodeFor(ErrorCode code) { return RowFor(code).api_code; }

Response ErrorResponse(HttpError error, std::string_view message) {
  if (const Mapping<HttpError>* m = Find(kHttpMappings, error)) {
    return Body(m->status, m->api_code, message);
  }
  return ErrorResponse(Error{ErrorCode::kInternal, "unmapped HTTP error"});
}

Response ErrorResponse(const Error& error) {
  const Mapping<ErrorCode>& m = RowFor(error.code);
  // An internal error's message names Redis replies, SQL statements and keys: it goes to the
  // log, the client gets a generic one (issue 41, item 8).
  if (error.code == ErrorCode::kInternal) {
    spdlog::error("internal error: {}", error.message);
    return Body(m.status, m.api_code, kInternalMessage);
  }
  Response r = Body(m.status, m.api_code, error.message);
  if (error.code == ErrorCode::kRateLimited) {
    r.headers.emplace_back("Retry-After", std::to_string(std::max(1, error.retry_after_seconds)));
  } else if (error.retry_after_seconds > 0) {
    // A 503 that knows when to come back (a cap on live streams) says so too.
    r.headers.emplace_back("Retry-After", std::to_string(error.retry_after_seconds));
  }
  return r;
}

}  // namespace plaudit::http
