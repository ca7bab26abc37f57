#pragma once
// Reading cached Redis hash fields (name → value) into values (the stores' codecs).
#include <charconv>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace plaudit::redis {

// std::less<>: a lookup by a field's literal name compares in place, building no std::string
// (an article-list page looks up 17 names in each of 20 articles).
using CachedFields = std::map<std::string, std::string, std::less<>>;

// A whole decimal number of up to 19 digits after an optional '-' (every id and count Redis
// holds for us), as std::from_chars reads it; nullopt for anything else, out of range
// included, for the caller's from_chars to decide. from_chars checked every digit for
// overflow and base: ~170 instructions a number, a comment page reads ~1,000 of them.
inline std::optional<int64_t> ShortDecimal(std::string_view text) {
  const bool negative = !text.empty() && text[0] == '-';
  const size_t digits = text.size() - (negative ? 1 : 0);
  if (digits == 0 || digits > 19) return std::nullopt;
  uint64_t v = 0;
  for (size_t i = negative ? 1 : 0; i < text.size(); ++i) {
    const unsigned d = static_cast<unsigned>(static_cast<unsigned char>(text[i])) - '0';
    if (d > 9) return std::nullopt;
    v = v * 10 + d;  // 19 digits stay below 2^64
  }
  constexpr uint64_t kMax = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  if (v > kMax + (negative ? 1 : 0)) return std::nullopt;
  return negative ? static_cast<int64_t>(0 - v) : static_cast<int64_t>(v);
}

// A field's text as an integer; `fallback` when empty or not wholly a decimal number.
// from_chars, not stoll: no exception machinery on a bad value, and "12abc" is not 12.
inline int64_t ParseIntOr(std::string_view text, int64_t fallback) {
  if (text.empty()) return fallback;
  int64_t value = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  return ec == std::errc() && ptr == end ? value : fallback;
}

// The field as an integer; `fallback` when absent, empty or not a number.
inline int64_t FieldInt(const CachedFields& f, const char* name, int64_t fallback = 0) {
  auto it = f.find(name);
  return it == f.end() ? fallback : ParseIntOr(it->second, fallback);
}

// The field's text; empty when absent.
inline std::string FieldStr(const CachedFields& f, const char* name) {
  auto it = f.find(name);
  return it == f.end() ? std::string() : it->second;
}

}  // namespace plaudit::redis
