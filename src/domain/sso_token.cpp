#include "domain/sso_token.hpp"

#include <sodium.h>

#include <array>
#include <boost/json.hpp>

#include "common/web_origin.hpp"

namespace plaudit::domain {
namespace {

Error Refused(std::string why) {
  return Error{ErrorCode::kUnauthenticated, "sso token: " + why, 0};
}

// base64url without padding (RFC 7515 2), by libsodium: nullopt for anything else.
std::optional<std::string> Base64Url(std::string_view text) {
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

std::optional<boost::json::object> JsonObject(std::string_view text) {
  boost::system::error_code ec;
  boost::json::value v = boost::json::parse(text, ec);
  if (ec || !v.is_object()) return std::nullopt;
  return std::move(v.as_object());
}

// A string claim of 1..max bytes; nullopt when absent, empty, too long or not a string.
std::optional<std::string> StringClaim(const boost::json::object& o, std::string_view name,
                                       size_t max) {
  auto it = o.find(name);
  if (it == o.end() || !it->value().is_string()) return std::nullopt;
  const auto& s = it->value().get_string();
  if (s.empty() || s.size() > max) return std::nullopt;
  return std::string(s);
}

// A NumericDate (RFC 7519 2): seconds, an integer or a number.
std::optional<int64_t> TimeClaim(const boost::json::object& o, std::string_view name) {
  auto it = o.find(name);
  if (it == o.end()) return std::nullopt;
  if (it->value().is_int64()) return it->value().as_int64();
  if (it->value().is_uint64() && it->value().as_uint64() < (uint64_t{1} << 62)) {
    return static_cast<int64_t>(it->value().as_uint64());
  }
  if (it->value().is_double()) {
    const double d = it->value().as_double();
    if (d > -1e15 && d < 1e15) return static_cast<int64_t>(d);
  }
  return std::nullopt;
}

bool SignatureHolds(std::string_view signed_part, std::string_view signature,
                    const std::string& secret) {
  if (signature.size() != crypto_auth_hmacsha256_BYTES) return false;
  // The keyed state takes a key of any length (HMAC hashes a long one first), where
  // crypto_auth_hmacsha256() itself wants exactly 32 bytes.
  crypto_auth_hmacsha256_state state;
  std::array<unsigned char, crypto_auth_hmacsha256_BYTES> mac{};
  crypto_auth_hmacsha256_init(&state, reinterpret_cast<const unsigned char*>(secret.data()),
                              secret.size());
  crypto_auth_hmacsha256_update(&state, reinterpret_cast<const unsigned char*>(signed_part.data()),
                                signed_part.size());
  crypto_auth_hmacsha256_final(&state, mac.data());
  sodium_memzero(&state, sizeof(state));
  return sodium_memcmp(mac.data(), signature.data(), mac.size()) == 0;
}

}  // namespace

Result<SsoClaims> VerifySsoToken(std::string_view token, const SsoSecretOf& secret_of,
                                 int64_t now_s) {
  if (token.size() > 8192) return tl::unexpected(Refused("too long"));
  const size_t dot1 = token.find('.');
  const size_t dot2 = dot1 == std::string_view::npos ? dot1 : token.find('.', dot1 + 1);
  if (dot2 == std::string_view::npos || token.find('.', dot2 + 1) != std::string_view::npos) {
    return tl::unexpected(Refused("not a JWT (three base64url parts)"));
  }
  auto header_text = Base64Url(token.substr(0, dot1));
  auto payload_text = Base64Url(token.substr(dot1 + 1, dot2 - dot1 - 1));
  auto signature = Base64Url(token.substr(dot2 + 1));
  if (!header_text || !payload_text || !signature) {
    return tl::unexpected(Refused("not base64url"));
  }
  auto header = JsonObject(*header_text);
  auto payload = JsonObject(*payload_text);
  if (!header || !payload) return tl::unexpected(Refused("header or claims are not JSON objects"));
  auto alg = header->find("alg");
  if (alg == header->end() || !alg->value().is_string() || alg->value().get_string() != "HS256") {
    return tl::unexpected(Refused("alg must be HS256"));
  }
  if (header->contains("crit")) return tl::unexpected(Refused("crit is not understood"));
  auto iss = StringClaim(*payload, "iss", 2048);
  if (!iss) return tl::unexpected(Refused("iss is missing"));
  auto origin = NormaliseOrigin(*iss);
  if (!origin) return tl::unexpected(Refused("iss is not an origin"));
  const std::optional<std::string> secret = secret_of(*origin);
  if (!secret) return tl::unexpected(Refused("iss is not a site with sign-in"));
  if (!SignatureHolds(token.substr(0, dot2), *signature, *secret)) {
    return tl::unexpected(Refused("bad signature"));
  }
  // Signed by the site: now its claims are read.
  SsoClaims c;
  c.iss = std::move(*origin);
  auto exp = TimeClaim(*payload, "exp");
  if (!exp) return tl::unexpected(Refused("exp is missing"));
  if (*exp <= now_s - kSsoLeewayS) return tl::unexpected(Refused("expired"));
  if (*exp > now_s + kSsoMaxLifetimeS + kSsoLeewayS) {
    return tl::unexpected(Refused("exp is more than 10 minutes ahead"));
  }
  c.exp_s = *exp;
  for (std::string_view early : {"nbf", "iat"}) {
    if (payload->contains(early)) {
      auto t = TimeClaim(*payload, early);
      if (!t || *t > now_s + kSsoLeewayS) {
        return tl::unexpected(Refused(std::string(early) + " is in the future"));
      }
    }
  }
  auto sub = StringClaim(*payload, "sub", 255);
  auto jti = StringClaim(*payload, "jti", 128);
  auto name = StringClaim(*payload, "name", 1024);
  if (!sub) return tl::unexpected(Refused("sub is missing"));
  if (!jti) return tl::unexpected(Refused("jti is missing"));
  if (!name) return tl::unexpected(Refused("name is missing"));
  c.sub = std::move(*sub);
  c.jti = std::move(*jti);
  c.name = std::move(*name);
  if (auto email = StringClaim(*payload, "email", 254)) c.email = std::move(*email);
  return c;
}

}  // namespace plaudit::domain
