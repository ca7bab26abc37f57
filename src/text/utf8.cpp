#include "text/utf8.hpp"

#include <cstdint>

namespace plaudit::text {
namespace {

// Decodes one code point at s[i]; returns its length in bytes, or 0 when invalid.
size_t Decode(std::string_view s, size_t i, char32_t& cp) {
  auto b = [&](size_t k) { return static_cast<unsigned char>(s[i + k]); };
  unsigned char c = b(0);
  if (c < 0x80) {
    cp = c;
    return 1;
  }
  size_t len;
  char32_t min;
  if ((c & 0xE0) == 0xC0) {
    len = 2, cp = c & 0x1F, min = 0x80;
  } else if ((c & 0xF0) == 0xE0) {
    len = 3, cp = c & 0x0F, min = 0x800;
  } else if ((c & 0xF8) == 0xF0) {
    len = 4, cp = c & 0x07, min = 0x10000;
  } else {
    return 0;
  }
  if (i + len > s.size()) {
    return 0;
  }
  for (size_t k = 1; k < len; ++k) {
    if ((b(k) & 0xC0) != 0x80) {
      return 0;
    }
    cp = (cp << 6) | (b(k) & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
    return 0;
  }
  return len;
}

bool IsSpace(char32_t c) {
  return c == ' ' || (c >= 0x09 && c <= 0x0D) || c == 0x85 || c == 0xA0 || c == 0x1680 ||
         (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F ||
         c == 0x3000 || c == 0xFEFF;
}

}  // namespace

std::optional<size_t> CodePoints(std::string_view s) {
  size_t n = 0;
  for (size_t i = 0; i < s.size();) {
    char32_t cp;
    size_t len = Decode(s, i, cp);
    if (len == 0) {
      return std::nullopt;
    }
    i += len;
    ++n;
  }
  return n;
}

std::string_view PrefixCodePoints(std::string_view s, size_t n) {
  size_t i = 0;
  for (size_t k = 0; k < n && i < s.size(); ++k) {
    char32_t cp;
    size_t len = Decode(s, i, cp);
    i += len == 0 ? 1 : len;
  }
  return s.substr(0, i);
}

size_t CutPoint(std::string_view s, size_t n) {
  if (n >= s.size()) {
    return s.size();
  }
  // A continuation byte (10xxxxxx) at the cut belongs to the character before it.
  while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) {
    --n;
  }
  return n;
}

std::string_view Trim(std::string_view s) {
  size_t start = 0;
  while (start < s.size()) {
    char32_t cp;
    size_t len = Decode(s, start, cp);
    if (len == 0 || !IsSpace(cp)) {
      break;
    }
    start += len;
  }
  size_t end = s.size();
  while (end > start) {
    // Step back to the start of the last code point.
    size_t k = end - 1;
    while (k > start && (static_cast<unsigned char>(s[k]) & 0xC0) == 0x80) {
      --k;
    }
    char32_t cp;
    size_t len = Decode(s, k, cp);
    if (len == 0 || k + len != end || !IsSpace(cp)) {
      break;
    }
    end = k;
  }
  return s.substr(start, end - start);
}

}  // namespace plaudit::text
