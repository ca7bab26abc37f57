// Sign-in tokens from strangers: a site's sign-in JWT (domain/sso_token.hpp), an OpenID
// provider's key set (JWKS) and ID token (domain/id_token.hpp). The first byte picks:
//   0: the bytes as a site sign-in token, under a known secret;
//   1: the bytes as a token's claims, signed with that secret (a header of HS256): if it is
//      accepted, what comes back is what was signed and within the documented bounds, and the
//      same token with its signature altered is refused;
//   2: the bytes as a JWKS document;
//   3: the bytes as an ID token against a fixed key set of one RSA key whose private half is
//      nowhere here: nothing may be accepted (a token with no valid signature getting through
//      "alg": "none", HS256 keyed with the public key, a kid trick).
// Findings: a crash or sanitizer report, and a broken promise above.
#include <sodium.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "domain/id_token.hpp"
#include "domain/sso_token.hpp"
#include "support/jwt.hpp"

namespace plaudit::fuzz {
namespace {

constexpr std::string_view kSecret = "a-secret-the-site-shares-with-plauditd";
constexpr std::string_view kSite = "https://blog.example";
constexpr int64_t kNowS = 1'800'000'000;

void Require(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "broken promise: %s\n", what);
    std::abort();
  }
}

std::optional<std::string> SecretOf(std::string_view iss) {
  if (iss == kSite) {
    return std::string(kSecret);
  }
  return std::nullopt;
}

void SignedClaims(std::string_view claims) {
  const std::string token = test::SignHs256(claims, kSecret);
  const auto got = domain::VerifySsoToken(token, SecretOf, kNowS);
  if (!got) {
    return;
  }
  Require(got->iss == kSite, "a token of another site accepted");
  Require(!got->sub.empty() && got->sub.size() <= 255, "a sub outside 1-255 bytes");
  Require(!got->jti.empty() && got->jti.size() <= 128, "a jti outside 1-128 bytes");
  Require(got->exp_s > kNowS - domain::kSsoLeewayS &&
              got->exp_s <= kNowS + domain::kSsoMaxLifetimeS + domain::kSsoLeewayS,
          "an exp outside now .. now + the lifetime");
  std::string altered = token;
  altered.back() = altered.back() == 'A' ? 'B' : 'A';
  Require(!domain::VerifySsoToken(altered, SecretOf, kNowS), "an altered signature accepted");
}

const domain::KeySet& Keys() {
  static const domain::KeySet keys = *domain::KeySet::Parse(
      R"({"keys":[{"kty":"RSA","use":"sig","alg":"RS256","kid":"k1","e":"AQAB","n":"rbzoEies2I_az2wZ1LKTEQdSfug9w84PKVT9BpoSFMD1youig8JBe4xcDkin26Vqt-skPxJFv0Dmj16RfWd8dfF7zsVolnsfvba-U8-Egfd_0z-LaZmAsBqg28OwhTv6GujOtfEMIQE5KUHMTaDZGsU9pqKzOv77Wii0IdlS-urD1k-dkA_OBL4NwO67J9JMlbJ7Xq2V1mO-4pxIHpMKhhY8rG0g180EgbXu_R3pXzed3vGZX4kG8uxrN1ECekjxYhUGk-yxrmgObjeJQ7D86QRl7MuDJouyvWsQCEIalaJub2fKL6FOMT2mMTOGvAPb7b5Z-FLrv0EFHwjstbLaQQ"}]})");
  return keys;
}

}  // namespace
}  // namespace plaudit::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace plaudit;
  static const bool ready = sodium_init() >= 0 && fuzz::Keys().size() == 1;
  if (!ready) {
    std::abort();
  }
  if (size < 1) {
    return 0;
  }
  const std::string_view rest(reinterpret_cast<const char*>(data + 1), size - 1);
  switch (data[0] % 4) {
    case 0:
      (void)domain::VerifySsoToken(rest, fuzz::SecretOf, fuzz::kNowS);
      break;
    case 1:
      fuzz::SignedClaims(rest);
      break;
    case 2:
      (void)domain::KeySet::Parse(rest);
      break;
    default: {
      const domain::IdTokenCheck check{.issuer = "https://id.example",
                                       .client_id = "plaudit",
                                       .nonce = "n-0S6_WzA2Mj",
                                       .now_s = fuzz::kNowS};
      fuzz::Require(!domain::VerifyIdToken(rest, fuzz::Keys(), check),
                    "an ID token accepted without the private key");
    }
  }
  return 0;
}
