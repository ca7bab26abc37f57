#pragma once
// What a handler sees of an HTTP request, and what it returns.
#include <boost/json.hpp>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/net.hpp"
#include "common/result.hpp"

namespace plaudit::http {

using RawRequest = beast::http::request<beast::http::string_body>;

struct Request {
  const RawRequest& raw;
  std::string_view path;   // decoded-free path part of the target, e.g. /api/v1/articles/7
  std::string_view query;  // the part after '?', may be empty
  std::vector<std::pair<std::string, std::string>> path_params;  // {id} → "7"
  // The client's address: the TCP peer, or the client a trusted proxy names
  // (http/forwarded.hpp).
  std::string client_address;
  bool https = false;          // the client spoke HTTPS to a trusted proxy
  std::string forwarded_host;  // the Host the client sent, when a trusted proxy rewrote it

  // A path parameter by name ("id"), or empty.
  std::string_view Param(std::string_view name) const;
  // A path parameter parsed as a positive 64-bit id; kInvalidArgument otherwise.
  Result<int64_t> IdParam(std::string_view name) const;
  // A query parameter (percent-decoded), or nullopt when absent.
  std::optional<std::string> Query(std::string_view name) const;
  // Every value of a repeated query parameter (`url=a&url=b`), in order (percent-decoded).
  std::vector<std::string> QueryAll(std::string_view name) const;
  // The header value, or empty.
  std::string_view Header(beast::http::field field) const;
  // A header Beast has no field constant for (X-Forwarded-For), by its case-insensitive name.
  std::string_view Header(std::string_view name) const;
  // The body as a JSON object: kInvalidJson when it is not JSON or not an object;
  // an Error with code kUnsupportedMediaType semantics is signalled by UnsupportedMediaType().
  Result<boost::json::object> JsonBody() const;
  bool HasJsonContentType() const;
};

class EventStream;  // event_stream.hpp

struct Response {
  beast::http::status status = beast::http::status::ok;
  std::string body;  // JSON text (empty for 204)
  // Instead of `body`: bytes a cache keeps (render/page_cache.hpp), written from where they are
  // (one gather write with the head) rather than copied twice per response: at ~25 KB a
  // comment page, the copies were 6% of a cached read's CPU (perf).
  std::shared_ptr<const std::string> shared_body;
  std::vector<std::pair<std::string, std::string>> headers;
  // Always a literal (static storage): a std::string here cost an allocation per response.
  std::string_view content_type = "application/json; charset=utf-8";
  // A stream of events instead of a body (event_stream.hpp): the head, then the stream's
  // bytes for as long as it lasts; the connection closes after it.
  std::shared_ptr<EventStream> stream;
};

// A header value without the optional whitespace (spaces, tabs) around it.
std::string_view TrimOws(std::string_view s);

// POST, PUT, PATCH or DELETE: the methods that change something.
bool IsWriteMethod(beast::http::verb v);

Response JsonResponse(beast::http::status status, const boost::json::value& body);
Response NoContent();

}  // namespace plaudit::http
