#include "http/request.hpp"

#include <charconv>

#include "common/percent_encoding.hpp"
#include "http/errors.hpp"

namespace plaudit::http {

std::string_view Request::Param(std::string_view name) const {
  for (const auto& [k, v] : path_params) {
    if (k == name) {
      return v;
    }
  }
  return {};
}

Result<int64_t> Request::IdParam(std::string_view name) const {
  std::string_view s = Param(name);
  int64_t id = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), id);
  if (s.empty() || ec != std::errc() || ptr != s.data() + s.size() || id <= 0) {
    return Fail(ErrorCode::kInvalidArgument, std::string(name) + " must be a positive integer");
  }
  return id;
}

namespace {

// Calls fn(value) for each `name=value` of the query, decoded, in order, until fn says stop.
// Decoded by FormDecode: Boost.URL 1.81's pct_string_view::decode() returned a wrong length
// when the value ended the buffer.
template <class Fn>
void EachQueryValue(std::string_view query, std::string_view name, Fn fn) {
  std::string_view rest = query;
  while (!rest.empty()) {
    size_t amp = rest.find('&');
    std::string_view pair = rest.substr(0, amp);
    rest = amp == std::string_view::npos ? std::string_view{} : rest.substr(amp + 1);
    size_t eq = pair.find('=');
    std::string_view key = pair.substr(0, eq);
    std::string_view value =
        eq == std::string_view::npos ? std::string_view{} : pair.substr(eq + 1);
    if (FormDecode(key) == name && !fn(FormDecode(value))) {
      return;
    }
  }
}

}  // namespace

std::optional<std::string> Request::Query(std::string_view name) const {
  std::optional<std::string> out;
  EachQueryValue(query, name, [&](std::string value) {
    out = std::move(value);
    return false;  // the first one
  });
  return out;
}

std::vector<std::string> Request::QueryAll(std::string_view name) const {
  std::vector<std::string> out;
  EachQueryValue(query, name, [&](std::string value) {
    out.push_back(std::move(value));
    return true;
  });
  return out;
}

std::string_view Request::Header(std::string_view name) const {
  auto it = raw.find(beast::string_view(name.data(), name.size()));
  if (it == raw.end()) {
    return {};
  }
  return {it->value().data(), it->value().size()};
}

std::string_view Request::Header(beast::http::field field) const {
  auto it = raw.find(field);
  if (it == raw.end()) {
    return {};
  }
  return {it->value().data(), it->value().size()};
}

bool Request::HasJsonContentType() const {
  std::string_view ct = Header(beast::http::field::content_type);
  auto semi = ct.find(';');
  std::string_view media = ct.substr(0, semi);
  while (!media.empty() && media.back() == ' ') {
    media.remove_suffix(1);
  }
  if (media.size() != 16) {
    return false;
  }
  for (size_t i = 0; i < media.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(media[i])) != "application/json"[i]) {
      return false;
    }
  }
  return true;
}

Result<boost::json::object> Request::JsonBody() const {
  boost::system::error_code ec;
  boost::json::value v = boost::json::parse(raw.body(), ec);
  if (ec) {
    return Fail(ErrorCode::kInvalidJson, "request body is not valid JSON");
  }
  if (!v.is_object()) {
    return Fail(ErrorCode::kInvalidJson, "request body must be a JSON object");
  }
  return std::move(v.as_object());
}

std::string_view TrimOws(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) {
    s.remove_prefix(1);
  }
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) {
    s.remove_suffix(1);
  }
  return s;
}

bool IsWriteMethod(beast::http::verb v) {
  return v == beast::http::verb::post || v == beast::http::verb::put ||
         v == beast::http::verb::patch || v == beast::http::verb::delete_;
}

Response JsonResponse(beast::http::status status, const boost::json::value& body) {
  Response r;
  r.status = status;
  r.body = boost::json::serialize(body);
  return r;
}

Response NoContent() {
  Response r;
  r.status = beast::http::status::no_content;
  r.content_type = {};
  return r;
}

}  // namespace plaudit::http
