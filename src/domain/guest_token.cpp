#include "domain/guest_token.hpp"

#include <sodium.h>

namespace plaudit::domain {
namespace {

constexpr size_t kTokenBytes = 32;
// base64url of 32 bytes, no padding.
constexpr size_t kTokenChars = 43;
constexpr size_t kHashBytes = 32;

}  // namespace

GuestToken NewGuestToken() {
  unsigned char raw[kTokenBytes];
  randombytes_buf(raw, sizeof(raw));
  char text[sodium_base64_ENCODED_LEN(kTokenBytes, sodium_base64_VARIANT_URLSAFE_NO_PADDING)];
  sodium_bin2base64(text, sizeof(text), raw, sizeof(raw), sodium_base64_VARIANT_URLSAFE_NO_PADDING);
  GuestToken t;
  t.token = text;
  t.hash = HashGuestToken(t.token);
  sodium_memzero(raw, sizeof(raw));
  return t;
}

std::string HashGuestToken(std::string_view token) {
  if (token.size() != kTokenChars) {
    return {};
  }
  unsigned char digest[kHashBytes];
  crypto_generichash(digest, sizeof(digest), reinterpret_cast<const unsigned char*>(token.data()),
                     token.size(), nullptr, 0);
  char hex[kHashBytes * 2 + 1];
  sodium_bin2hex(hex, sizeof(hex), digest, sizeof(digest));
  return hex;
}

bool GuestTokenMatches(std::string_view token, std::string_view stored_hash) {
  if (stored_hash.size() != kHashBytes * 2) {
    return false;
  }
  const std::string presented = HashGuestToken(token);
  if (presented.size() != stored_hash.size()) {
    return false;
  }
  return sodium_memcmp(presented.data(), stored_hash.data(), presented.size()) == 0;
}

}  // namespace plaudit::domain
