#pragma once
// The parts of a JWT in compact form (RFC 7519, RFC 7515 7.1), as the verifiers of site sign-in
// tokens (domain/sso_token.hpp) and ID tokens (domain/id_token.hpp) read them: three base64url
// parts (libsodium's strict decoder: no padding, no other alphabet), a JSON header and claims,
// and the signed text. Nothing here checks a signature or trusts a claim.
#include <boost/json.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/result.hpp"

namespace plaudit::domain {

struct JwtParts {
  boost::json::object header;
  boost::json::object claims;
  std::string signature;         // decoded
  std::string_view signed_part;  // "header.payload" of the token as given
};

// kUnauthenticated "<what>: …" for a token over `max_size` bytes, not of three parts, not
// base64url, or whose header or claims are no JSON object.
Result<JwtParts> SplitJwt(std::string_view token, size_t max_size, std::string_view what);

// base64url without padding; nullopt for anything else.
std::optional<std::string> Base64UrlDecode(std::string_view text);
// A claim's string ("" when absent or not a string).
std::string StringClaim(const boost::json::object& o, std::string_view name);
// A NumericDate claim (RFC 7519 2: seconds, integer or not); nullopt when absent or not one.
std::optional<int64_t> NumericDate(const boost::json::object& o, std::string_view name);

}  // namespace plaudit::domain
