// A host site's sign-in token (domain/sso_token.hpp): what a forger, a replayer with an old
// token, or a careless host site could send, each refused before any of its claims is used.
#include "domain/sso_token.hpp"

#include <gtest/gtest.h>

#include "support/jwt.hpp"

namespace plaudit::domain {
namespace {

constexpr std::string_view kSecret = "0123456789abcdef0123456789abcdef-site-secret";
constexpr std::string_view kOther = "another-site-secret-of-32-bytes-or-more!!";
constexpr int64_t kNow = 1800000000;

SsoSecretOf Sites() {
  return [](std::string_view iss) -> std::optional<std::string> {
    if (iss == "https://blog.example") {
      return std::string(kSecret);
    }
    if (iss == "https://other.example") {
      return std::string(kOther);
    }
    return std::nullopt;
  };
}

std::string Claims(std::string_view extra = {}, int64_t exp = kNow + 300) {
  std::string c = R"({"iss":"https://blog.example","sub":"u-42","name":"Ada","jti":"j-1","exp":)" +
                  std::to_string(exp);
  if (!extra.empty()) {
    c += std::string(",") + std::string(extra);
  }
  return c + "}";
}

std::string Why(const Result<SsoClaims>& r) {
  return r ? std::string("accepted") : r.error().message;
}

TEST(SsoToken, AcceptsATokenSignedByPythonsHmac) {
  // Signed by Python's hmac module (not libsodium), header {"alg":"HS256","typ":"JWT"}.
  const std::string token =
      "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJpc3MiOiJodHRwczovL2Jsb2cuZXhhbXBsZSIsInN1YiI6InU"
      "tNDIiLCJuYW1lIjoiQWRhIExvdmVsYWNlIiwiZW1haWwiOiJhZGFAYmxvZy5leGFtcGxlIiwianRpIjoia2F0LTEi"
      "LCJpYXQiOjE4MDAwMDAwMDAsImV4cCI6MTgwMDAwMDMwMH0.lQJ5bl10YPzky4ZfJnRBKXW7VijDAGDFONgfS6rzSLU";
  auto c = VerifySsoToken(token, Sites(), kNow + 10);
  ASSERT_TRUE(c) << Why(c);
  EXPECT_EQ(c->iss, "https://blog.example");
  EXPECT_EQ(c->sub, "u-42");
  EXPECT_EQ(c->name, "Ada Lovelace");
  EXPECT_EQ(c->email, "ada@blog.example");
  EXPECT_EQ(c->jti, "kat-1");
  EXPECT_EQ(c->exp_s, 1800000300);
  // One character of the signature changed (not the last, whose low bits are padding).
  std::string forged = token;
  char& flip = forged[forged.size() - 10];
  flip = flip == 'A' ? 'B' : 'A';
  EXPECT_EQ(Why(VerifySsoToken(forged, Sites(), kNow + 10)), "sso token: bad signature");
}

TEST(SsoToken, RefusesWhatAForgerWouldTry) {
  // Claims changed after signing (the same signature on another payload).
  const std::string good = test::SignHs256(Claims(), kSecret);
  const std::string evil =
      test::SignHs256(Claims().replace(Claims().find("u-42"), 4, "u-1"), kOther);
  const std::string spliced =
      good.substr(0, good.find('.') + 1) +
      evil.substr(evil.find('.') + 1, evil.rfind('.') - evil.find('.') - 1) +
      good.substr(good.rfind('.'));
  EXPECT_EQ(Why(VerifySsoToken(spliced, Sites(), kNow)), "sso token: bad signature");
  // Signed with another site's secret while claiming this site.
  EXPECT_EQ(Why(VerifySsoToken(test::SignHs256(Claims(), kOther), Sites(), kNow)),
            "sso token: bad signature");
  // alg none (unsigned), another algorithm, a lower-case name.
  for (std::string_view header : {R"({"alg":"none"})", R"({"alg":"HS512"})", R"({"alg":"RS256"})",
                                  R"({"alg":"hs256"})", R"({"typ":"JWT"})"}) {
    EXPECT_EQ(Why(VerifySsoToken(test::SignHs256(header, Claims(), kSecret), Sites(), kNow)),
              "sso token: alg must be HS256")
        << header;
  }
  const std::string unsigned_token =
      test::Base64Url(R"({"alg":"none"})") + "." + test::Base64Url(Claims()) + ".";
  EXPECT_FALSE(VerifySsoToken(unsigned_token, Sites(), kNow));
  // A site that has no secret here, and one that is no origin at all.
  const std::string stranger = Claims().replace(1, 28, R"("iss":"https://evil.example")");
  EXPECT_EQ(Why(VerifySsoToken(test::SignHs256(stranger, kSecret), Sites(), kNow)),
            "sso token: iss is not a site with sign-in");
  EXPECT_EQ(
      Why(VerifySsoToken(
          test::SignHs256(R"({"iss":"blog","sub":"a","name":"a","jti":"a","exp":1})", kSecret),
          Sites(), kNow)),
      "sso token: iss is not an origin");
  // The same origin spelt otherwise is the same site.
  const std::string spelt = Claims().replace(1, 28, R"("iss":"HTTPS://Blog.Example:443")");
  EXPECT_TRUE(VerifySsoToken(test::SignHs256(spelt, kSecret), Sites(), kNow));
}

TEST(SsoToken, RefusesTokensOutOfTheirTime) {
  EXPECT_TRUE(VerifySsoToken(test::SignHs256(Claims(), kSecret), Sites(), kNow));
  EXPECT_EQ(Why(VerifySsoToken(test::SignHs256(Claims({}, kNow - 31), kSecret), Sites(), kNow)),
            "sso token: expired");
  // More than 10 minutes ahead (a lasting token is a password the host site handed out).
  EXPECT_EQ(Why(VerifySsoToken(test::SignHs256(Claims({}, kNow + 700), kSecret), Sites(), kNow)),
            "sso token: exp is more than 10 minutes ahead");
  EXPECT_EQ(
      Why(VerifySsoToken(test::SignHs256(Claims({}, int64_t{1} << 40), kSecret), Sites(), kNow)),
      "sso token: exp is more than 10 minutes ahead");
  EXPECT_EQ(
      Why(VerifySsoToken(test::SignHs256(Claims(R"("nbf":1800000100)"), kSecret), Sites(), kNow)),
      "sso token: nbf is in the future");
  EXPECT_EQ(Why(VerifySsoToken(test::SignHs256(Claims(R"("iat":"soon")"), kSecret), Sites(), kNow)),
            "sso token: iat is in the future");
  const std::string no_exp = R"({"iss":"https://blog.example","sub":"u","name":"A","jti":"j"})";
  EXPECT_EQ(Why(VerifySsoToken(test::SignHs256(no_exp, kSecret), Sites(), kNow)),
            "sso token: exp is missing");
}

TEST(SsoToken, NeedsWhoAndWhichToken) {
  const std::string base = R"("iss":"https://blog.example","exp":1800000300)";
  EXPECT_EQ(Why(VerifySsoToken(test::SignHs256("{" + base + R"(,"name":"A","jti":"j"})", kSecret),
                               Sites(), kNow)),
            "sso token: sub is missing");
  EXPECT_EQ(Why(VerifySsoToken(test::SignHs256("{" + base + R"(,"sub":"u","name":"A"})", kSecret),
                               Sites(), kNow)),
            "sso token: jti is missing");
  EXPECT_EQ(Why(VerifySsoToken(test::SignHs256("{" + base + R"(,"sub":"u","jti":"j"})", kSecret),
                               Sites(), kNow)),
            "sso token: name is missing");
  EXPECT_EQ(Why(VerifySsoToken(
                test::SignHs256("{" + base + R"(,"sub":42,"name":"A","jti":"j"})", kSecret),
                Sites(), kNow)),
            "sso token: sub is missing");
}

TEST(SsoToken, RefusesWhatIsNoJwt) {
  const std::string good = test::SignHs256(Claims(), kSecret);
  EXPECT_EQ(Why(VerifySsoToken("", Sites(), kNow)), "sso token: not a JWT (three base64url parts)");
  EXPECT_EQ(Why(VerifySsoToken(good + ".x", Sites(), kNow)),
            "sso token: not a JWT (three base64url parts)");
  EXPECT_EQ(Why(VerifySsoToken(good + "=", Sites(), kNow)), "sso token: not base64url");
  EXPECT_EQ(Why(VerifySsoToken("a.b.c", Sites(), kNow)), "sso token: not base64url");
  EXPECT_EQ(Why(VerifySsoToken(test::Base64Url("[]") + "." + test::Base64Url("{}") + ".AA", Sites(),
                               kNow)),
            "sso token: header or claims are not JSON objects");
  EXPECT_EQ(Why(VerifySsoToken(std::string(9000, 'a'), Sites(), kNow)), "sso token: too long");
}

}  // namespace
}  // namespace plaudit::domain
