#pragma once
// Site sign-in (API.md "Guests and sign-in from elsewhere"): the host site vouches for its
// reader with a JWT (RFC 7519) signed HS256 with the secret it shares with plauditd
// (--sso ORIGIN=SECRET). This checks one such token, and nothing else: the replay of its `jti`
// is refused by the caller (redis::OnceKeys), which must also know the token is good first.
//
// What is checked, each a kUnauthenticated with its reason: three base64url parts; a header
// whose "alg" is exactly "HS256" (never "none", never another algorithm a forger would choose);
// the HMAC-SHA256 of "header.payload" under the secret of the token's own `iss` (libsodium's
// crypto_auth_hmacsha256, compared in constant time with sodium_memcmp); `exp` in the future and
// at most kMaxLifetimeS ahead (a far-future token would be a password); `nbf`/`iat` not in the
// future beyond kLeewayS; `sub` (1–255 bytes), `name` and `jti` (1–128 bytes) present. The
// payload is parsed before the signature is checked only to find `iss`'s secret; nothing from
// it is used otherwise unless the signature holds.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "common/result.hpp"

namespace plaudit::domain {

struct SsoClaims {
  std::string iss;  // the site's origin, as configured
  std::string sub;
  std::string name;
  std::string email;  // "" when absent
  std::string jti;
  int64_t exp_s = 0;
};

inline constexpr int64_t kSsoMaxLifetimeS = 600;
inline constexpr int64_t kSsoLeewayS = 30;

// The secret of the site whose origin is `iss` (normalised as --sites are), or nullopt.
using SsoSecretOf = std::function<std::optional<std::string>(std::string_view iss)>;

Result<SsoClaims> VerifySsoToken(std::string_view token, const SsoSecretOf& secret_of,
                                 int64_t now_s);

}  // namespace plaudit::domain
