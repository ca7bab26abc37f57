#include "http/errors.hpp"

#include <spdlog/spdlog.h>

#include <string>

namespace plaudit::http {
namespace {

struct Mapping {
  ErrorCode code;
  beast::http::status status;
  std::string_view api_code;
};

// Keep in step with the error table of API.md.
constexpr Mapping kMappings[] = {
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

struct HttpMapping {
  HttpError error;
  beast::http::status status;
  std::string_view api_code;
};

constexpr HttpMapping kHttpMappings[] = {
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

const Mapping& Find(ErrorCode code) {
  for (const auto& m : kMappings) {
    if (m.code == code) {
      return m;
    }
  }
  return kMappings[std::size(kMappings) - 1];
}

}  // namespace

beast::http::status StatusFor(ErrorCode code) { return Find(code).status; }
std::string_view ApiCodeFor(ErrorCode code) { return Find(code).api_code; }

Response ErrorResponse(HttpError error, std::string_view message) {
  for (const auto& m : kHttpMappings) {
    if (m.error == error) {
      return Body(m.status, m.api_code, message);
    }
  }
  return ErrorResponse(Error{ErrorCode::kInternal, "unmapped HTTP error"});
}

Response ErrorResponse(const Error& error) {
  const Mapping& m = Find(error.code);
  // An internal error's message names Redis replies, SQL statements and keys: it goes to the
  // log, the client gets a generic one (issue 41, item 8).
  if (error.code == ErrorCode::kInternal) {
    spdlog::error("internal error: {}", error.message);
    return Body(m.status, m.api_code, kInternalMessage);
  }
  Response r = Body(m.status, m.api_code, error.message);
  if (error.code == ErrorCode::kRateLimited) {
    r.headers.emplace_back("Retry-After", std::to_string(std::max(1, error.retry_after_seconds)));
  }
  return r;
}

}  // namespace plaudit::http
