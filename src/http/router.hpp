#pragma once
// Routes by method and path pattern. A pattern is a '/'-separated path whose segments are
// literals or `{name}` parameters ("/api/v1/articles/{id}/like"). Matching is exact per
// segment; a path that matches a pattern under another method yields 405, none yields 404.
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "http/request.hpp"

namespace plaudit::http {

using Handler = std::function<Awaitable<Response>(Request&)>;

// What a route's request body may be. Writes take JSON (API.md "Conventions"); the links in
// mails post HTML forms and RFC 8058 one-click bodies (application/x-www-form-urlencoded).
enum class BodyKind { kJson, kJsonOrForm };

class Router {
 public:
  void Add(beast::http::verb method, std::string pattern, Handler handler,
           BodyKind body = BodyKind::kJson);

  struct Match {
    enum class Kind { kFound, kNotFound, kMethodNotAllowed };
    Kind kind = Kind::kNotFound;
    const Handler* handler = nullptr;
    std::string_view pattern;  // the route, for metrics labels ("unmatched" otherwise)
    BodyKind body = BodyKind::kJson;
    std::vector<std::pair<std::string, std::string>> params;
  };
  Match Find(beast::http::verb method, std::string_view path) const;
  // Every route's method and pattern, in the order added (the OpenAPI document's test).
  std::vector<std::pair<beast::http::verb, std::string>> Routes() const;

 private:
  struct Route {
    beast::http::verb method;
    std::string pattern;
    std::vector<std::string> segments;
    Handler handler;
    BodyKind body = BodyKind::kJson;
  };
  std::vector<Route> routes_;
  // Indexes into routes_ by segment count, in the order added: a path is only compared with
  // the routes it could match (first added wins, as before).
  std::vector<std::vector<size_t>> by_size_;
};

}  // namespace plaudit::http
