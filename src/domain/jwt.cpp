#include "domain/jwt.hpp"

#include <sodium.h>

namespace plaudit::domain {

std::optional<std::string> Base64UrlDecode(std::string_view text) {
  std::string out(text.size() * 3 / 4 + 3, '\0');
  size_t len = 0;
  const char* end = nullptr;
  if (sodium_base642bin(reinterpret_cast<unsigned char*>(out.data()), out.size(), text.data(),
                        text.size(), nullptr, &len, &end,
                        sodium_base64_VARIANT_URLSAFE_NO_PADDING) != 0 ||
      end != text.data() + text.size()) {
    return std::nullopt;
  }
  out.resize(len);
  return out;
}

std::string StringClaim(const boost::json::object& o, std::string_view name) {
  auto it = o.find(name);
  if (it == o.end() || !it->value().is_string()) {
    return {};
  }
  return std::string(it->value().get_string());
}

std::optional<int64_t> NumericDate(const boost::json::object& o, std::string_view name) {
  auto it = o.find(name);
  if (it == o.end()) {
    return std::nullopt;
  }
  const boost::json::value& v = it->value();
  if (v.is_int64()) {
    return v.as_int64();
  }
  if (v.is_uint64() && v.as_uint64() < (uint64_t{1} << 62)) {
    return static_cast<int64_t>(v.as_uint64());
  }
  if (v.is_double() && v.as_double() > -1e15 && v.as_double() < 1e15) {
    return static_cast<int64_t>(v.as_double());
  }
  return std::nullopt;
}

namespace {

std::optional<boost::json::object> JsonObject(std::string_view text) {
  boost::system::error_code ec;
  boost::json::value v = boost::json::parse(text, ec);
  if (ec || !v.is_object()) {
    return std::nullopt;
  }
  return std::move(v.as_object());
}

}  // namespace

Result<JwtParts> SplitJwt(std::string_view token, size_t max_size, std::string_view what) {
  const auto refused = [what](std::string_view why) {
    return Fail(ErrorCode::kUnauthenticated, std::string(what) + ": " + std::string(why));
  };
  if (token.size() > max_size) {
    return refused("too long");
  }
  const size_t dot1 = token.find('.');
  const size_t dot2 = dot1 == std::string_view::npos ? dot1 : token.find('.', dot1 + 1);
  if (dot2 == std::string_view::npos || token.find('.', dot2 + 1) != std::string_view::npos) {
    return refused("not a JWT (three base64url parts)");
  }
  auto header = Base64UrlDecode(token.substr(0, dot1));
  auto claims = Base64UrlDecode(token.substr(dot1 + 1, dot2 - dot1 - 1));
  auto signature = Base64UrlDecode(token.substr(dot2 + 1));
  if (!header || !claims || !signature) {
    return refused("not base64url");
  }
  auto header_json = JsonObject(*header);
  auto claims_json = JsonObject(*claims);
  if (!header_json || !claims_json) {
    return refused("header or claims are not JSON objects");
  }
  return JwtParts{std::move(*header_json), std::move(*claims_json), std::move(*signature),
                  token.substr(0, dot2)};
}

}  // namespace plaudit::domain
