#pragma once
// An OpenID Connect ID token (OpenID Connect Core 3.1.3.7), checked against its provider's
// keys (JWKS, RFC 7517): signature, issuer, audience, expiry, nonce. RS256 only — the algorithm
// every OpenID provider must support (Core 15.1) — so a token whose header names another
// ("none", HS256 with the public key as its secret) is refused before any key is used. The
// signature is OpenSSL's (EVP_DigestVerify over SHA-256, RSASSA-PKCS1-v1_5). Nothing of the
// claims is used unless the signature holds.
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.hpp"

using EVP_PKEY = struct evp_pkey_st;

namespace plaudit::domain {

// The RSA signing keys of a JWKS document.
class KeySet {
 public:
  // Keys of kty RSA whose use is "sig" or absent and whose alg is RS256 or absent; others are
  // skipped. kInvalidArgument for a document that is not a JWKS.
  static Result<KeySet> Parse(std::string_view jwks_json);
  // The key of `kid`; with an empty kid, the only key (nullptr when there are several).
  EVP_PKEY* Find(std::string_view kid) const;
  size_t size() const { return keys_.size(); }

 private:
  struct Key {
    std::string kid;
    std::shared_ptr<EVP_PKEY> pkey;
  };
  std::vector<Key> keys_;
};

struct IdTokenClaims {
  std::string sub;
  std::string name;                // "" when absent
  std::string preferred_username;  // "" when absent
  std::string email;               // "" when absent
};

struct IdTokenCheck {
  std::string_view issuer;     // the provider's, exactly as its discovery document says
  std::string_view client_id;  // plauditd's at that provider
  std::string_view nonce;      // sent with the authorization request
  int64_t now_s = 0;
};

inline constexpr int64_t kIdTokenLeewayS = 60;

// kUnauthenticated with the reason ("id token: …"); kNotFound when no key of the set has the
// token's kid (the caller may fetch the provider's keys again once, then gives up).
Result<IdTokenClaims> VerifyIdToken(std::string_view token, const KeySet& keys,
                                    const IdTokenCheck& check);

}  // namespace plaudit::domain
