#include "redis/resp.hpp"

#include <charconv>
#include <cstring>

namespace plaudit::redis {
namespace {

// "<kind><n>\r\n" at p; returns the end. Callers size the buffer for 20 digits.
char* PutHeader(char* p, char kind, size_t n) {
  *p++ = kind;
  p = std::to_chars(p, p + 20, n).ptr;
  *p++ = '\r';
  *p++ = '\n';
  return p;
}

}  // namespace

void FormatCommand(const std::vector<std::string>& argv, std::string& out) {
  // Sized once for the longest headers, written through a pointer, then cut to length:
  // appending piece by piece cost a capacity check per piece (~2k instructions a like).
  constexpr size_t kHeader = 1 + 20 + 2;
  size_t bound = kHeader;
  for (const auto& a : argv) bound += kHeader + a.size() + 2;
  out.resize(bound);
  char* const begin = out.data();
  char* p = PutHeader(begin, '*', argv.size());
  for (const auto& a : argv) {
    p = PutHeader(p, '$', a.size());
    std::memcpy(p, a.data(), a.size());
    p += a.size();
    *p++ = '\r';
    *p++ = '\n';
  }
  out.resize(static_cast<size_t>(p - begin));
}

}  // namespace plaudit::redis
