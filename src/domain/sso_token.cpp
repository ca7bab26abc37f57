#include "domain/sso_token.hpp"

#include <sodium.h>

#include <array>

#include "common/web_origin.hpp"
#include "domain/jwt.hpp"

namespace plaudit::domain {
namespace {

Error Refused(const std::string& why) {
  return Error{ErrorCode::kUnauthenticated, "sso token: " + why, 0};
}

// A string claim of 1..max bytes; nullopt when absent, empty, too long or not a string.
std::optional<std::string> BoundedClaim(const boost::json::object& o, std::string_view name,
                                        size_t max) {
  std::string s = StringClaim(o, name);
  if (s.empty() || s.size() > max) {
    return std::nullopt;
  }
  return s;
}

bool SignatureHolds(std::string_view signed_part, std::string_view signature,
                    const std::string& secret) {
  if (signature.size() != crypto_auth_hmacsha256_BYTES) {
    return false;
  }
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
  PL_TRY(auto split, SplitJwt(token, 8192, "sso token"));
  const JwtParts& jwt = split;
  if (StringClaim(jwt.header, "alg") != "HS256") {
    return tl::unexpected(Refused("alg must be HS256"));
  }
  if (jwt.header.contains("crit")) {
    return tl::unexpected(Refused("crit is not understood"));
  }
  const auto& payload = jwt.claims;
  auto iss = BoundedClaim(payload, "iss", 2048);
  if (!iss) {
    return tl::unexpected(Refused("iss is missing"));
  }
  auto origin = NormaliseOrigin(*iss);
  if (!origin) {
    return tl::unexpected(Refused("iss is not an origin"));
  }
  const std::optional<std::string> secret = secret_of(*origin);
  if (!secret) {
    return tl::unexpected(Refused("iss is not a site with sign-in"));
  }
  if (!SignatureHolds(jwt.signed_part, jwt.signature, *secret)) {
    return tl::unexpected(Refused("bad signature"));
  }
  // Signed by the site: now its claims are read.
  SsoClaims c;
  c.iss = std::move(*origin);
  auto exp = NumericDate(payload, "exp");
  if (!exp) {
    return tl::unexpected(Refused("exp is missing"));
  }
  if (*exp <= now_s - kSsoLeewayS) {
    return tl::unexpected(Refused("expired"));
  }
  if (*exp > now_s + kSsoMaxLifetimeS + kSsoLeewayS) {
    return tl::unexpected(Refused("exp is more than 10 minutes ahead"));
  }
  c.exp_s = *exp;
  for (std::string_view early : {"nbf", "iat"}) {
    if (payload.contains(early)) {
      auto t = NumericDate(payload, early);
      if (!t || *t > now_s + kSsoLeewayS) {
        return tl::unexpected(Refused(std::string(early) + " is in the future"));
      }
    }
  }
  auto sub = BoundedClaim(payload, "sub", 255);
  auto jti = BoundedClaim(payload, "jti", 128);
  auto name = BoundedClaim(payload, "name", 1024);
  if (!sub) {
    return tl::unexpected(Refused("sub is missing"));
  }
  if (!jti) {
    return tl::unexpected(Refused("jti is missing"));
  }
  if (!name) {
    return tl::unexpected(Refused("name is missing"));
  }
  c.sub = std::move(*sub);
  c.jti = std::move(*jti);
  c.name = std::move(*name);
  if (auto email = BoundedClaim(payload, "email", 254)) {
    c.email = std::move(*email);
  }
  return c;
}

}  // namespace plaudit::domain
