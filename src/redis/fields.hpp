#pragma once
// Reading cached Redis hash fields (name → value) into values (the stores' codecs).
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "common/decimal.hpp"

namespace plaudit::redis {

// std::less<>: a lookup by a field's literal name compares in place, building no std::string
// (an article-list page looks up 17 names in each of 20 articles).
using CachedFields = std::map<std::string, std::string, std::less<>>;

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
