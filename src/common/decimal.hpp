#pragma once
// Decimal integers read from text another program wrote (Redis replies and hash fields).
#include <charconv>
#include <cstdint>
#include <limits>
#include <optional>
#include <string_view>

namespace plaudit {

// A whole decimal number of up to 19 digits after an optional '-' (every id and count Redis
// holds for us), as std::from_chars reads it; nullopt for anything else, out of range
// included, for the caller's from_chars to decide. from_chars checked every digit for
// overflow and base: ~170 instructions a number, a comment page reads ~1,000 of them.
inline std::optional<int64_t> ShortDecimal(std::string_view text) {
  const bool negative = !text.empty() && text[0] == '-';
  const size_t digits = text.size() - (negative ? 1 : 0);
  if (digits == 0 || digits > 19) {
    return std::nullopt;
  }
  uint64_t v = 0;
  for (size_t i = negative ? 1 : 0; i < text.size(); ++i) {
    const unsigned d = static_cast<unsigned>(static_cast<unsigned char>(text[i])) - '0';
    if (d > 9) {
      return std::nullopt;
    }
    v = v * 10 + d;  // 19 digits stay below 2^64
  }
  constexpr uint64_t kMax = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  if (v > kMax + (negative ? 1 : 0)) {
    return std::nullopt;
  }
  return negative ? static_cast<int64_t>(0 - v) : static_cast<int64_t>(v);
}

// A field's text as an integer; `fallback` when empty or not wholly a decimal number.
// from_chars, not stoll: no exception machinery on a bad value, and "12abc" is not 12.
inline int64_t ParseIntOr(std::string_view text, int64_t fallback) {
  if (text.empty()) {
    return fallback;
  }
  int64_t value = 0;
  const char* begin = text.data();
  const char* end = begin + text.size();
  auto [ptr, ec] = std::from_chars(begin, end, value);
  return ec == std::errc() && ptr == end ? value : fallback;
}

}  // namespace plaudit
