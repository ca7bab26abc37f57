#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>

#include "common/embedded.hpp"
#include "redis/client.hpp"

namespace plaudit::redis {

Script::Script(std::string name, std::string source)
    : name(std::move(name)),
      source(std::move(source)),
      source_hash(std::hash<std::string>{}(this->source)) {}

const Script& GetScript(std::string_view file_name) {
  // Built once, never modified: safe to read from any thread.
  static const std::map<std::string, Script, std::less<>> scripts = [] {
    std::map<std::string, Script, std::less<>> m;
    for (const auto& f : lua::Files()) {
      m.emplace(std::string(f.name), Script(std::string(f.name), std::string(f.content)));
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
