#include "domain/user.hpp"

#include "common/enum_names.hpp"
#include "text/unicode.hpp"
#include "text/utf8.hpp"

namespace plaudit::domain {
namespace {

constexpr NameTable<Role, 4> kRoleNames = {{
    {Role::kUser, "user"},
    {Role::kAuthor, "author"},
    {Role::kModerator, "moderator"},
    {Role::kAdmin, "admin"},
}};

}  // namespace

std::string_view RoleName(Role role) { return NameOf(kRoleNames, role, "user"); }

std::optional<Role> ParseRole(std::string_view name) { return ValueNamed(kRoleNames, name); }

Status ValidateUsername(std::string_view username) {
  if (username.size() < 3 || username.size() > 32) {
    return Fail(ErrorCode::kInvalidArgument, "username must be 3 to 32 characters");
  }
  for (char c : username) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '.' || c == '-';
    if (!ok) {
      return Fail(ErrorCode::kInvalidArgument,
                  "username may contain only letters, digits, '_', '.' and '-'");
    }
  }
  return {};
}

Status ValidatePassword(std::string_view password) {
  auto n = text::CodePoints(password);
  if (!n) {
    return Fail(ErrorCode::kInvalidArgument, "password must be valid UTF-8");
  }
  if (*n < 8 || *n > 256) {
    return Fail(ErrorCode::kInvalidArgument, "password must be 8 to 256 characters");
  }
  return {};
}

Result<std::string> NormalizeDisplayName(std::string_view display_name, std::string_view username) {
  std::string_view trimmed = text::Trim(display_name);
  auto n = text::CodePoints(trimmed);
  if (!n) {
    return Fail(ErrorCode::kInvalidArgument, "displayName must be valid UTF-8");
  }
  // Invisible-only is blank, as empty is: the username (text/unicode.hpp).
  if (trimmed.empty() || text::IsBlank(trimmed)) {
    return std::string(username);
  }
  if (text::HasBidiControl(trimmed)) {  // issue 41: it would reorder the text shown after it
    return Fail(ErrorCode::kInvalidArgument,
                "displayName must not contain bidi control characters");
  }
  if (*n > 64) {
    return Fail(ErrorCode::kInvalidArgument, "displayName must be at most 64 characters");
  }
  for (unsigned char c : trimmed) {
    if (c < 0x20 || c == 0x7F) {
      return Fail(ErrorCode::kInvalidArgument, "displayName must not contain control characters");
    }
  }
  return std::string(trimmed);
}

std::string UsernameKey(std::string_view username) {
  std::string key(username);
  for (char& c : key) {
    if (c >= 'A' && c <= 'Z') {
      c = static_cast<char>(c - 'A' + 'a');
    }
  }
  return key;
}

}  // namespace plaudit::domain
