#include "redis/digest.hpp"

#include <sodium.h>

#include <array>

namespace plaudit::redis {

std::string ShortDigest(std::string_view value) {
  std::array<unsigned char, 16> digest{};
  crypto_generichash(digest.data(), digest.size(),
                     reinterpret_cast<const unsigned char*>(value.data()), value.size(), nullptr,
                     0);
  std::array<char, 33> hex{};
  sodium_bin2hex(hex.data(), hex.size(), digest.data(), digest.size());
  return std::string(hex.data(), 32);
}

}  // namespace plaudit::redis
