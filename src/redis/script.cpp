#include "redis/script.hpp"

#include <algorithm>
#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>

#include "common/embedded.hpp"

namespace plaudit::redis {

namespace {

// A script's source with each `--! include <file>` line replaced by that embedded file (one
// level: the lib_*.lua helpers that several scripts share).
std::string Expand(std::string_view source) {
  constexpr std::string_view kInclude = "--! include ";
  std::string out;
  out.reserve(source.size());
  while (!source.empty()) {
    const size_t end = source.find('\n');
    const std::string_view line = source.substr(0, end == std::string_view::npos ? end : end + 1);
    source.remove_prefix(line.size());
    if (!line.starts_with(kInclude)) {
      out += line;
      continue;
    }
    std::string_view name = line.substr(kInclude.size());
    while (!name.empty() && (name.back() == '\n' || name.back() == '\r' || name.back() == ' ')) {
      name.remove_suffix(1);
    }
    const auto files = lua::Files();
    auto it =
        std::find_if(files.begin(), files.end(), [&](const auto& f) { return f.name == name; });
    if (it == files.end()) {
      throw std::out_of_range("a Lua script includes " + std::string(name) +
                              ", which is not embedded");
    }
    out += it->content;
    if (!out.ends_with('\n')) {
      out += '\n';
    }
  }
  return out;
}

}  // namespace

const Script& GetScript(std::string_view file_name) {
  // Built once, never modified: safe to read from any thread.
  static const std::map<std::string, Script, std::less<>> scripts = [] {
    std::map<std::string, Script, std::less<>> m;
    for (const auto& f : lua::Files()) {
      m.emplace(std::string(f.name), Script(std::string(f.name), Expand(f.content)));
    }
    return m;
  }();
  auto it = scripts.find(file_name);
  if (it == scripts.end()) {
    throw std::out_of_range("no embedded Lua script named " + std::string(file_name));
  }
  return it->second;
}

}  // namespace plaudit::redis
