#include "redis/resp.hpp"

#include <charconv>

namespace plaudit::redis {
namespace {

void AppendHeader(char kind, size_t n, std::string& out) {
  char digits[24];
  auto end = std::to_chars(digits, digits + sizeof(digits), n).ptr;
  out.push_back(kind);
  out.append(digits, end);
  out.append("\r\n", 2);
}

}  // namespace

void FormatCommand(const std::vector<std::string>& argv, std::string& out) {
  size_t size = 16;
  for (const auto& a : argv) size += a.size() + 16;
  out.clear();
  out.reserve(size);
  AppendHeader('*', argv.size(), out);
  for (const auto& a : argv) {
    AppendHeader('$', a.size(), out);
    out.append(a);
    out.append("\r\n", 2);
  }
}

}  // namespace plaudit::redis
