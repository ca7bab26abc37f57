#include "http/request.hpp"

#include <charconv>

#include <boost/url/parse_query.hpp>

#include "http/errors.hpp"

namespace plaudit::http_api {

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

std::optional<std::string> Request::Query(std::string_view name) const {
  if (query.empty()) {
    return std::nullopt;
  }
  auto params = boost::urls::parse_query(query);
  if (!params) {
    return std::nullopt;
  }
  boost::urls::encoding_opts opts;
  opts.space_as_plus = true;  // HTML forms and many clients send ' ' as '+'
  for (auto p : *params) {
    if (p.key.decode(opts) == name) {
      return p.value.decode(opts);
    }
  }
  return std::nullopt;
}

std::string_view Request::Header(http::field field) const {
  auto it = raw.find(field);
  if (it == raw.end()) {
    return {};
  }
  return {it->value().data(), it->value().size()};
}

bool Request::HasJsonContentType() const {
  std::string_view ct = Header(http::field::content_type);
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

Response JsonResponse(http::status status, const boost::json::value& body) {
  Response r;
  r.status = status;
  r.body = boost::json::serialize(body);
  return r;
}

Response NoContent() {
  Response r;
  r.status = http::status::no_content;
  r.content_type.clear();
  return r;
}

}  // namespace plaudit::http_api
