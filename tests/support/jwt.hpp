#pragma once
// Signs test JWTs (HS256) the way a host site's sign-in does, with libsodium's HMAC-SHA256.
// The verifier uses the same primitive, so tests also check a token signed by Python's hmac
// module (sso_token_test.cpp, KnownToken): both agreeing on it rules out a shared mistake.
#include <string>
#include <string_view>

namespace plaudit::test {

std::string Base64Url(std::string_view bytes);
// header and claims are JSON texts.
std::string SignHs256(std::string_view header_json, std::string_view claims_json,
                      std::string_view secret);
inline std::string SignHs256(std::string_view claims_json, std::string_view secret) {
  return SignHs256(R"({"alg":"HS256","typ":"JWT"})", claims_json, secret);
}

}  // namespace plaudit::test
