#include "redis/client/resp.hpp"

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

char* PutBulk(char* p, std::string_view a) {
  p = PutHeader(p, '$', a.size());
  std::memcpy(p, a.data(), a.size());
  p += a.size();
  *p++ = '\r';
  *p++ = '\n';
  return p;
}

constexpr size_t kHeader = 1 + 20 + 2;

}  // namespace

void FormatEvalSha(std::string_view sha, const std::vector<std::string>& keys,
                   const std::vector<std::string>& args, std::string& out) {
  char digits[20];
  const char* end = std::to_chars(digits, digits + sizeof digits, keys.size()).ptr;
  const std::string_view nk(digits, static_cast<size_t>(end - digits));
  constexpr std::string_view kEvalSha = "EVALSHA";
  size_t bound = kHeader * 4 + kEvalSha.size() + sha.size() + nk.size() + 6;
  for (const auto& a : keys) {
    bound += kHeader + a.size() + 2;
  }
  for (const auto& a : args) {
    bound += kHeader + a.size() + 2;
  }
  out.resize(bound);
  char* const begin = out.data();
  char* p = PutHeader(begin, '*', 3 + keys.size() + args.size());
  p = PutBulk(p, kEvalSha);
  p = PutBulk(p, sha);
  p = PutBulk(p, nk);
  for (const auto& a : keys) {
    p = PutBulk(p, a);
  }
  for (const auto& a : args) {
    p = PutBulk(p, a);
  }
  out.resize(static_cast<size_t>(p - begin));
}

void FormatCommand(const std::vector<std::string>& argv, std::string& out) {
  // Sized once for the longest headers, written through a pointer, then cut to length:
  // appending piece by piece cost a capacity check per piece (~2k instructions a like).
  size_t bound = kHeader;
  for (const auto& a : argv) {
    bound += kHeader + a.size() + 2;
  }
  out.resize(bound);
  char* const begin = out.data();
  char* p = PutHeader(begin, '*', argv.size());
  for (const auto& a : argv) {
    p = PutBulk(p, a);
  }
  out.resize(static_cast<size_t>(p - begin));
}

std::string FrameArgs(std::span<const std::string> args) {
  size_t bound = 0;
  for (const auto& a : args) {
    bound += kHeader + a.size() + 2;
  }
  std::string out(bound, '\0');
  char* p = out.data();
  for (const auto& a : args) {
    p = PutBulk(p, a);
  }
  out.resize(static_cast<size_t>(p - out.data()));
  return out;
}

void FramedCommands::Begin(std::string_view name, size_t argc) {
  names_.emplace_back(name);
  const size_t at = resp_.size();
  resp_.resize(at + kHeader + kHeader + name.size() + 2);
  char* p = PutHeader(resp_.data() + at, '*', argc);
  p = PutBulk(p, name);
  resp_.resize(static_cast<size_t>(p - resp_.data()));
}

void FramedCommands::Arg(std::string_view arg) {
  const size_t at = resp_.size();
  resp_.resize(at + kHeader + arg.size() + 2);
  char* p = PutBulk(resp_.data() + at, arg);
  resp_.resize(static_cast<size_t>(p - resp_.data()));
}

}  // namespace plaudit::redis
