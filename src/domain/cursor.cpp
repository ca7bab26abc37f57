#include "domain/cursor.hpp"

#include <sodium.h>

#include <cstdio>
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

std::string EncodeScoreCursor(char tag, int64_t score, int64_t id) {
  return EncodeCursor(std::string(1, tag) + std::to_string(score) + "." + std::to_string(id));
}

std::optional<std::pair<int64_t, int64_t>> DecodeScoreCursor(std::string_view cursor, char tag) {
  auto raw = DecodeCursor(cursor);
  long long score = 0, id = 0;
  char got = 0;
  if (!raw || std::sscanf(raw->c_str(), "%c%lld.%lld", &got, &score, &id) != 3 || got != tag ||
      id <= 0) {
    return std::nullopt;
  }
  return std::pair<int64_t, int64_t>{score, id};
}

}  // namespace plaudit::domain
