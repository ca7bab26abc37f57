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
// An HTTP-level error that no service produces (404 route, 405, 413, 415, 431, 400 parse).
Response ErrorResponse(beast::http::status status, std::string_view code, std::string_view message);

beast::http::status StatusFor(ErrorCode code);
std::string_view ApiCodeFor(ErrorCode code);

}  // namespace plaudit::http
