// An OpenID Connect ID token (domain/id_token.hpp), checked against keys made here with
// OpenSSL: the provider's key, another key under the same kid, tokens with the wrong issuer,
// audience, time or nonce, and the algorithm swaps a forger tries.
#include "domain/id_token.hpp"

#include <gtest/gtest.h>
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/rsa.h>

#include <boost/json.hpp>

#include "support/jwt.hpp"

namespace plaudit::domain {
namespace {

constexpr int64_t kNow = 1800000000;

struct RsaKey {
  std::shared_ptr<EVP_PKEY> pkey;
  explicit RsaKey(int bits = 2048)
      : pkey(EVP_RSA_gen(static_cast<unsigned>(bits)), EVP_PKEY_free) {}
  std::string Param(const char* name) const {
    BIGNUM* bn = nullptr;
    EVP_PKEY_get_bn_param(pkey.get(), name, &bn);
    std::string bytes(static_cast<size_t>(BN_num_bytes(bn)), '\0');
    BN_bn2bin(bn, reinterpret_cast<unsigned char*>(bytes.data()));
    BN_free(bn);
    return bytes;
  }
  std::string Jwk(const std::string& kid) const {
    return R"({"kty":"RSA","use":"sig","alg":"RS256","kid":")" + kid + R"(","n":")" +
           test::Base64Url(Param(OSSL_PKEY_PARAM_RSA_N)) + R"(","e":")" +
           test::Base64Url(Param(OSSL_PKEY_PARAM_RSA_E)) + R"("})";
  }
  std::string Sign(const std::string& header, const std::string& claims) const {
    const std::string signing = test::Base64Url(header) + "." + test::Base64Url(claims);
    std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> md(EVP_MD_CTX_new(), EVP_MD_CTX_free);
    EVP_DigestSignInit(md.get(), nullptr, EVP_sha256(), nullptr, pkey.get());
    size_t len = 0;
    EVP_DigestSign(md.get(), nullptr, &len, reinterpret_cast<const unsigned char*>(signing.data()),
                   signing.size());
    std::string sig(len, '\0');
    EVP_DigestSign(md.get(), reinterpret_cast<unsigned char*>(sig.data()), &len,
                   reinterpret_cast<const unsigned char*>(signing.data()), signing.size());
    sig.resize(len);
    return signing + "." + test::Base64Url(sig);
  }
};

const RsaKey& ProviderKey() {
  static const RsaKey key;
  return key;
}

KeySet Keys(const std::string& jwks) {
  auto k = KeySet::Parse(jwks);
  EXPECT_TRUE(k);
  return k ? *k : KeySet{};
}

std::string Claims(const std::string& extra = {}) {
  std::string c = R"({"iss":"https://idp.example","aud":"plaudit","sub":"u-1","name":"Ada",)"
                  R"("nonce":"n-123","iat":1800000000,"exp":1800000600)";
  return c + (extra.empty() ? "" : "," + extra) + "}";
}

constexpr IdTokenCheck kCheck{"https://idp.example", "plaudit", "n-123", kNow};
constexpr std::string_view kHeader = R"({"alg":"RS256","kid":"k1"})";

std::string Why(const Result<IdTokenClaims>& r) { return r ? "accepted" : r.error().message; }

TEST(IdToken, AcceptsTheProvidersTokenForThisClientAndSignIn) {
  const KeySet keys = Keys(R"({"keys":[)" + ProviderKey().Jwk("k1") + "]}");
  auto c = VerifyIdToken(
      ProviderKey().Sign(std::string(kHeader), Claims(R"("email":"a@x.example")")), keys, kCheck);
  ASSERT_TRUE(c) << Why(c);
  EXPECT_EQ(c->sub, "u-1");
  EXPECT_EQ(c->name, "Ada");
  EXPECT_EQ(c->email, "a@x.example");
  // Several audiences: azp must name this client.
  EXPECT_TRUE(VerifyIdToken(
      ProviderKey().Sign(std::string(kHeader),
                         Claims().replace(Claims().find(R"("aud":"plaudit")"), 15,
                                          R"("aud":["x","plaudit"],"azp":"plaudit")")),
      keys, kCheck));
}

TEST(IdToken, RefusesTokensOfAnotherKeyOrAlgorithm) {
  const KeySet keys = Keys(R"({"keys":[)" + ProviderKey().Jwk("k1") + "]}");
  const RsaKey forger;
  EXPECT_EQ(Why(VerifyIdToken(forger.Sign(std::string(kHeader), Claims()), keys, kCheck)),
            "id token: bad signature");
  // A kid the provider does not list: kNotFound, so the caller reads the keys once more.
  auto unknown =
      VerifyIdToken(forger.Sign(R"({"alg":"RS256","kid":"k9"})", Claims()), keys, kCheck);
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error().code, ErrorCode::kNotFound);
  // HS256 with the public key's bytes as the secret (the classic confusion), and none.
  const std::string hs =
      test::SignHs256(R"({"alg":"HS256","kid":"k1"})", Claims(), ProviderKey().Jwk("k1"));
  EXPECT_EQ(Why(VerifyIdToken(hs, keys, kCheck)), "id token: alg must be RS256");
  const std::string none =
      test::Base64Url(R"({"alg":"none"})") + "." + test::Base64Url(Claims()) + ".";
  EXPECT_EQ(Why(VerifyIdToken(none, keys, kCheck)), "id token: alg must be RS256");
  // A payload changed under a good signature.
  std::string good = ProviderKey().Sign(std::string(kHeader), Claims());
  const std::string evil = test::Base64Url(Claims().replace(Claims().find("u-1"), 3, "u-2"));
  const size_t d1 = good.find('.');
  const size_t d2 = good.rfind('.');
  EXPECT_EQ(Why(VerifyIdToken(good.substr(0, d1 + 1) + evil + good.substr(d2), keys, kCheck)),
            "id token: bad signature");
}

TEST(IdToken, RefusesTokensForAnotherIssuerClientTimeOrSignIn) {
  const KeySet keys = Keys(R"({"keys":[)" + ProviderKey().Jwk("k1") + "]}");
  const auto with = [&](std::string claims) {
    return Why(VerifyIdToken(ProviderKey().Sign(std::string(kHeader), claims), keys, kCheck));
  };
  std::string c = Claims();
  EXPECT_EQ(with(std::string(c).replace(c.find("https://idp.example"), 19, "https://evil.example")),
            "id token: wrong issuer");
  EXPECT_EQ(with(std::string(c).replace(c.find(R"("aud":"plaudit")"), 15, R"("aud":"someone")")),
            "id token: not for this client (aud)");
  EXPECT_EQ(
      with(std::string(c).replace(c.find(R"("aud":"plaudit")"), 15, R"("aud":["plaudit","x"])")),
      "id token: not for this client (azp)");
  EXPECT_EQ(with(std::string(c).replace(c.find("1800000600"), 10, "1799999000")),
            "id token: expired");
  EXPECT_EQ(with(std::string(c).replace(c.find("1800000000"), 10, "1800001000")),
            "id token: iat is missing or in the future");
  EXPECT_EQ(with(std::string(c).replace(c.find("n-123"), 5, "n-999")),
            "id token: nonce does not match this sign-in");
  EXPECT_EQ(with(std::string(c).replace(c.find(R"("sub":"u-1",)"), 12, "")),
            "id token: sub is missing");
}

TEST(IdToken, KeySetsKeepOnlyRsaSigningKeysOfUsefulSize) {
  const RsaKey small(1024);
  auto keys = KeySet::Parse(
      R"({"keys":[)" + ProviderKey().Jwk("a") + "," + small.Jwk("b") +
      R"(,{"kty":"EC","kid":"c"},{"kty":"RSA","use":"enc","kid":"d","n":"AQAB","e":"AQAB"}]})");
  ASSERT_TRUE(keys);
  EXPECT_EQ(keys->size(), 1u);
  EXPECT_NE(keys->Find("a"), nullptr);
  EXPECT_EQ(keys->Find("b"), nullptr);
  EXPECT_NE(keys->Find(""), nullptr);  // no kid: the only key
  EXPECT_FALSE(KeySet::Parse("[]"));
  EXPECT_FALSE(KeySet::Parse("not json"));
}

}  // namespace
}  // namespace plaudit::domain
