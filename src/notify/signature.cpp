#include "notify/signature.hpp"

#include <sodium.h>

namespace plaudit::notify {

std::string SignatureHeader(std::string_view secret, std::string_view body) {
  crypto_auth_hmacsha256_state state;
  crypto_auth_hmacsha256_init(&state, reinterpret_cast<const unsigned char*>(secret.data()),
                              secret.size());
  crypto_auth_hmacsha256_update(&state, reinterpret_cast<const unsigned char*>(body.data()),
                                body.size());
  unsigned char mac[crypto_auth_hmacsha256_BYTES];
  crypto_auth_hmacsha256_final(&state, mac);
  char hex[crypto_auth_hmacsha256_BYTES * 2 + 1];
  sodium_bin2hex(hex, sizeof hex, mac, sizeof mac);
  return std::string("sha256=") + hex;
}

}  // namespace plaudit::notify
