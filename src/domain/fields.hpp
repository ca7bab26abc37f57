#pragma once
// Reading cached Redis hash fields (name → value) into domain values.
#include <cstdint>
#include <map>
#include <string>

namespace plaudit::domain {

using CachedFields = std::map<std::string, std::string>;

// The field as an integer; `fallback` when absent, empty or not a number.
inline int64_t FieldInt(const CachedFields& f, const char* name, int64_t fallback = 0) {
  auto it = f.find(name);
  if (it == f.end() || it->second.empty()) return fallback;
  try {
    return std::stoll(it->second);
  } catch (...) {
    return fallback;
  }
}

// The field's text; empty when absent.
inline std::string FieldStr(const CachedFields& f, const char* name) {
  auto it = f.find(name);
  return it == f.end() ? std::string() : it->second;
}

}  // namespace plaudit::domain
