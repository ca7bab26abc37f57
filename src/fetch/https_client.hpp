#pragma once
// Outgoing HTTP for sign-in with other parties (OpenID Connect discovery, JWKS, token
// endpoints; GitHub's OAuth and user API): libcurl's easy interface on a small pool of its own
// threads, so a slow provider never blocks the I/O thread, and each call is bounded (connect
// and total timeouts, response size, no redirects followed, TLS verified by libcurl's defaults).
//
// Only https URLs are fetched, and plain http to a loopback host (127.0.0.0/8, ::1,
// localhost): the test harness runs its OpenID provider there, as RFC 8252 8.3 allows for
// loopback; no other http URL is ever followed.
#include <chrono>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "common/net.hpp"
#include "common/result.hpp"

namespace plaudit::fetch {

struct Request {
  std::string method = "GET";  // GET or POST
  std::string url;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;  // POST: sent as is
  // A URL the operator configured (a --webhook): plain http to any host is allowed, as the
  // operator chose it; URLs anyone else supplies never set this.
  bool configured = false;
};

struct Response {
  long status = 0;
  std::string content_type;
  std::string body;
};

struct Options {
  int threads = 2;
  std::chrono::milliseconds connect_timeout{5000};
  std::chrono::milliseconds timeout{10000};
  size_t max_body = 1 << 20;  // larger answers fail (kUnavailable)
};

// Whether `url` may be fetched: https, or http to a loopback host.
bool FetchableUrl(std::string_view url);

class HttpsClient {
 public:
  explicit HttpsClient(Options options = {});
  ~HttpsClient();
  HttpsClient(const HttpsClient&) = delete;
  HttpsClient& operator=(const HttpsClient&) = delete;

  // Any HTTP status is a Response; kUnavailable when no answer came (DNS, connect, TLS,
  // timeout, too large); kInvalidArgument for a URL FetchableUrl refuses.
  Awaitable<Result<Response>> Fetch(Request request);

 private:
  Options options_;
  net::thread_pool pool_;
};

// application/x-www-form-urlencoded of `fields` (libcurl's escaping).
std::string FormBody(const std::vector<std::pair<std::string, std::string>>& fields);
// One value so encoded.
std::string FormEncode(std::string_view value);

}  // namespace plaudit::fetch
