#include "domain/cursor.hpp"

#include <sodium.h>

#include <vector>

namespace plaudit::domain {

std::string EncodeCursor(std::string_view raw) {
  std::vector<char> out(
      sodium_base64_ENCODED_LEN(raw.size(), sodium_base64_VARIANT_URLSAFE_NO_PADDING));
  sodium_bin2base64(out.data(), out.size(), reinterpret_cast<const unsigned char*>(raw.data()),
                    raw.size(), sodium_base64_VARIANT_URLSAFE_NO_PADDING);
  return out.data();
}

std::optional<std::string> DecodeCursor(std::string_view cursor) {
  if (cursor.empty() || cursor.size() > 256) return std::nullopt;
  std::vector<unsigned char> out(cursor.size());
  size_t len = 0;
  if (sodium_base642bin(out.data(), out.size(), cursor.data(), cursor.size(), nullptr, &len,
                        nullptr, sodium_base64_VARIANT_URLSAFE_NO_PADDING) != 0) {
    return std::nullopt;
  }
  return std::string(out.begin(), out.begin() + static_cast<long>(len));
}

}  // namespace plaudit::domain
