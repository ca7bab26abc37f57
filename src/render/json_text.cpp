#include "render/json_text.hpp"

#include <algorithm>
#include <charconv>
#include <cstring>

#include "common/time.hpp"

namespace plaudit::render::json_text {

namespace {

// Whether any of the 8 bytes in `w` must be escaped: below 0x20, '"' or '\\'. Exact about
// "any" (the zero-byte test of Bit Twiddling Hacks has no false negatives, and a false
// positive costs only the byte-by-byte loop), whatever the byte order.
bool AnyToEscape(uint64_t w) {
  constexpr uint64_t kOnes = 0x0101010101010101ULL;
  constexpr uint64_t kHigh = kOnes * 0x80;
  auto zero_byte = [](uint64_t v) { return (v - kOnes) & ~v & kHigh; };
  return (((w - kOnes * 0x20) & ~w & kHigh) | zero_byte(w ^ (kOnes * '"')) |
          zero_byte(w ^ (kOnes * '\\'))) != 0;
}

}  // namespace

void String(std::string& out, std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  out.push_back('"');
  const char* const s = text.data();
  const size_t n = text.size();
  size_t clean = 0;  // start of the run not yet copied
  size_t i = 0;
  while (i < n) {
    // Eight bytes at a time while none needs escaping (most text): a page's bodies and names
    // were a tenth of its render's instructions when read byte by byte.
    if (i + 8 <= n) {
      uint64_t w;
      std::memcpy(&w, s + i, 8);
      if (!AnyToEscape(w)) {
        i += 8;
        continue;
      }
    }
    for (const size_t stop = std::min(n, i + 8); i < stop; ++i) {
      const auto c = static_cast<unsigned char>(s[i]);
      if (c >= 0x20 && c != '"' && c != '\\') {
        continue;
      }
      out.append(s + clean, i - clean);
      clean = i + 1;
      switch (c) {
        case '"':
          out.append("\\\"");
          break;
        case '\\':
          out.append("\\\\");
          break;
        case '\b':
          out.append("\\b");
          break;
        case '\f':
          out.append("\\f");
          break;
        case '\n':
          out.append("\\n");
          break;
        case '\r':
          out.append("\\r");
          break;
        case '\t':
          out.append("\\t");
          break;
        default:
          out.append("\\u00");
          out.push_back(kHex[c >> 4]);
          out.push_back(kHex[c & 0xf]);
      }
    }
  }
  out.append(s + clean, n - clean);
  out.push_back('"');
}

void TimeMs(std::string& out, int64_t epoch_ms) {
  out.push_back('"');
  AppendTimeMs(out, epoch_ms);  // digits and "-:.TZ": nothing to escape
  out.push_back('"');
}

void Int(std::string& out, int64_t n) {
  char digits[24];
  auto [end, ec] = std::to_chars(digits, digits + sizeof digits, n);
  out.append(digits, end);
}

}  // namespace plaudit::render::json_text
