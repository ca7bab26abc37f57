#pragma once
// The one table that turns errors into HTTP statuses and API.md error bodies:
// {"error": {"code": "<snake_case>", "message": "<human text>"}}.
#include <string_view>

#include "common/result.hpp"
#include "http/request.hpp"

namespace plaudit::http {

// The message of every 500: what went wrong is logged, never sent (it may name keys, SQL
// statements or Redis replies).
inline constexpr std::string_view kInternalMessage = "internal error";

// A service error → its HTTP response (status, error body, Retry-After for rate limits). A
// kInternal error's message is logged and replaced by kInternalMessage.
Response ErrorResponse(const Error& error);

// The errors of HTTP itself, which no service produces: the table's second half.
enum class HttpError {
  kMalformed,             // 400 bad_request: a request that does not parse
  kCrossSite,             // 403 forbidden: a write from an Origin that is not ours
  kNoRoute,               // 404 not_found
  kMethodNotAllowed,      // 405 method_not_allowed
  kPayloadTooLarge,       // 413 payload_too_large
  kUnsupportedMediaType,  // 415 unsupported_media_type
  kHeaderTooLarge,        // 431 header_too_large
  kNotImplemented,        // 501 not_implemented: a transfer coding other than chunked
};
Response ErrorResponse(HttpError error, std::string_view message);

beast::http::status StatusFor(ErrorCode code);
std::string_view ApiCodeFor(ErrorCode code);

}  // namespace plaudit::http
