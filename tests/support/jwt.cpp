#include "jwt.hpp"

#include <sodium.h>

#include <array>

namespace plaudit::test {

std::string Base64Url(std::string_view bytes) {
  std::string out(sodium_base64_ENCODED_LEN(bytes.size(), sodium_base64_VARIANT_URLSAFE_NO_PADDING),
                  '\0');
  sodium_bin2base64(out.data(), out.size(), reinterpret_cast<const unsigned char*>(bytes.data()),
                    bytes.size(), sodium_base64_VARIANT_URLSAFE_NO_PADDING);
  out.resize(out.find('\0'));
  return out;
}

std::string SignHs256(std::string_view header_json, std::string_view claims_json,
                      std::string_view secret) {
  const std::string signing = Base64Url(header_json) + "." + Base64Url(claims_json);
  crypto_auth_hmacsha256_state state;
  std::array<unsigned char, crypto_auth_hmacsha256_BYTES> mac{};
  crypto_auth_hmacsha256_init(&state, reinterpret_cast<const unsigned char*>(secret.data()),
                              secret.size());
  crypto_auth_hmacsha256_update(&state, reinterpret_cast<const unsigned char*>(signing.data()),
                                signing.size());
  crypto_auth_hmacsha256_final(&state, mac.data());
  return signing + "." +
         Base64Url(std::string_view(reinterpret_cast<const char*>(mac.data()), mac.size()));
}

}  // namespace plaudit::test
