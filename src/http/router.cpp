#include "http/router.hpp"

#include <boost/container/small_vector.hpp>

namespace plaudit::http {
namespace {

// On the stack for any path of up to 8 segments (every route has fewer).
using Segments = boost::container::small_vector<std::string_view, 8>;

Segments Split(std::string_view path) {
  Segments out;
  size_t i = 0;
  while (i < path.size()) {
    if (path[i] == '/') {
      ++i;
      continue;
    }
    size_t j = path.find('/', i);
    if (j == std::string_view::npos) {
      j = path.size();
    }
    out.push_back(path.substr(i, j - i));
    i = j;
  }
  return out;
}

bool IsParam(std::string_view seg) {
  return seg.size() >= 2 && seg.front() == '{' && seg.back() == '}';
}

}  // namespace

void Router::Add(beast::http::verb method, std::string pattern, Handler handler, BodyKind body) {
  Route r{method, std::move(pattern), {}, std::move(handler), body};
  for (auto seg : Split(r.pattern)) {
    r.segments.emplace_back(seg);
  }
  const size_t n = r.segments.size();
  if (by_size_.size() <= n) {
    by_size_.resize(n + 1);
  }
  by_size_[n].push_back(routes_.size());
  routes_.push_back(std::move(r));
}

Router::Match Router::Find(beast::http::verb method, std::string_view path) const {
  Match result;
  result.pattern = "unmatched";
  auto segs = Split(path);
  // A trailing slash is a different resource; refuse it rather than guess.
  if (path.size() > 1 && path.back() == '/') {
    return result;
  }
  if (segs.size() >= by_size_.size()) {
    return result;
  }
  for (size_t index : by_size_[segs.size()]) {
    const Route& route = routes_[index];
    bool ok = true;
    for (size_t i = 0; i < segs.size() && ok; ++i) {
      ok = IsParam(route.segments[i]) ? !segs[i].empty() : route.segments[i] == segs[i];
    }
    if (!ok) {
      continue;
    }
    // HEAD is served by the GET handler (the server drops the body).
    bool method_ok = route.method == method ||
                     (method == beast::http::verb::head && route.method == beast::http::verb::get);
    if (!method_ok) {
      if (result.kind == Match::Kind::kNotFound) {
        result.kind = Match::Kind::kMethodNotAllowed;
        result.pattern = route.pattern;
      }
      continue;
    }
    result.kind = Match::Kind::kFound;
    result.handler = &route.handler;
    result.pattern = route.pattern;
    result.body = route.body;
    result.params.clear();
    for (size_t i = 0; i < segs.size(); ++i) {
      if (IsParam(route.segments[i])) {
        const auto& s = route.segments[i];
        result.params.emplace_back(s.substr(1, s.size() - 2), std::string(segs[i]));
      }
    }
    return result;
  }
  return result;
}

std::vector<std::pair<beast::http::verb, std::string>> Router::Routes() const {
  std::vector<std::pair<beast::http::verb, std::string>> out;
  out.reserve(routes_.size());
  for (const Route& r : routes_) {
    out.emplace_back(r.method, r.pattern);
  }
  return out;
}

}  // namespace plaudit::http
