#include "common/percent_encoding.hpp"

namespace plaudit {
namespace {

int HexValue(char c) {
  if (c >= '0' && c <= '9') {
    return c - '0';
  }
  if (c >= 'a' && c <= 'f') {
    return c - 'a' + 10;
  }
  if (c >= 'A' && c <= 'F') {
    return c - 'A' + 10;
  }
  return -1;
}

std::string Decode(std::string_view s, bool plus_is_space) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    const int byte = PercentEscapeAt(s, i);
    if (byte >= 0) {
      out += static_cast<char>(byte);
      i += 2;
    } else if (plus_is_space && s[i] == '+') {
      out += ' ';
    } else {
      out += s[i];
    }
  }
  return out;
}

}  // namespace

int PercentEscapeAt(std::string_view s, size_t i) {
  const int hi = s[i] == '%' && i + 2 < s.size() ? HexValue(s[i + 1]) : -1;
  const int lo = hi >= 0 ? HexValue(s[i + 2]) : -1;
  return lo < 0 ? -1 : hi * 16 + lo;
}

std::string PercentDecode(std::string_view s) { return Decode(s, false); }

std::string FormDecode(std::string_view s) { return Decode(s, true); }

void AppendPercentEscape(std::string& out, unsigned char byte) {
  constexpr char kHex[] = "0123456789ABCDEF";
  out += '%';
  out += kHex[byte >> 4];
  out += kHex[byte & 15];
}

}  // namespace plaudit
