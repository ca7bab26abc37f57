#pragma once
// An enum's names (as the API, SQL and Redis spell its values) in one table read both ways, so
// that the name written and the name parsed cannot drift apart:
//   constexpr NameTable<Role, 4> kRoleNames = {{{Role::kUser, "user"}, ...}};
//   NameOf(kRoleNames, role, "user"); ValueNamed(kRoleNames, text);
#include <array>
#include <cstddef>
#include <optional>
#include <string_view>
#include <utility>

namespace plaudit {

template <class E, size_t N>
using NameTable = std::array<std::pair<E, std::string_view>, N>;

// The name `table` gives `value`; `fallback` for a value it does not list.
template <class E, size_t N>
constexpr std::string_view NameOf(const NameTable<E, N>& table, E value,
                                  std::string_view fallback) {
  for (const auto& [v, name] : table) {
    if (v == value) {
      return name;
    }
  }
  return fallback;
}

// The value `table` names `name` (exactly, case and all); nullopt for any other text.
template <class E, size_t N>
constexpr std::optional<E> ValueNamed(const NameTable<E, N>& table, std::string_view name) {
  for (const auto& [v, n] : table) {
    if (n == name) {
      return v;
    }
  }
  return std::nullopt;
}

}  // namespace plaudit
