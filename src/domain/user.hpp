#pragma once
// Users and roles. Roles nest: admin ⊃ moderator ⊃ author ⊃ user.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/result.hpp"

namespace plaudit::domain {

// In rank order (HasRole compares them); stored by name, never by number.
enum class Role { kUser = 0, kAuthor = 1, kModerator = 2, kAdmin = 3 };

std::string_view RoleName(Role role);
std::optional<Role> ParseRole(std::string_view name);
// Whether `have` includes the rights of `need`.
inline bool HasRole(Role have, Role need) {
  return static_cast<int>(have) >= static_cast<int>(need);
}

struct User {
  int64_t id = 0;
  std::string username;
  std::string display_name;
  Role role = Role::kUser;
  int64_t created_at_ms = 0;
  int64_t banned_until_ms = 0;  // 0: not banned (kBannedForever: until lifted)
  std::string ban_reason;
};

// A ban with no end (API.md: `PUT /users/{id}/ban` without "until"), as stored.
inline constexpr int64_t kBannedForever = int64_t{1} << 53;

// The authenticated caller of a request, as the session knows it.
struct Principal {
  int64_t id = 0;
  std::string username;
  std::string display_name;
  Role role = Role::kUser;
  int64_t created_at_ms = 0;    // how new the account is (limits for new writers)
  int64_t banned_until_ms = 0;  // 0: not banned; writes are refused before this time
  bool Banned(int64_t now_ms) const { return banned_until_ms > now_ms; }
};

// Validation rules of API.md "Users and sessions". Each returns kInvalidArgument with a
// message naming the field.
Status ValidateUsername(std::string_view username);  // 3–32 of [A-Za-z0-9_.-]
Status ValidatePassword(std::string_view password);  // 8–256 code points of valid UTF-8
// Trimmed display name, 1–64 code points, no control characters; empty → username.
Result<std::string> NormalizeDisplayName(std::string_view display_name, std::string_view username);
// The case-insensitive identity of a username.
std::string UsernameKey(std::string_view username);

}  // namespace plaudit::domain
