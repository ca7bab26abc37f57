#include "domain/guest_author.hpp"

#include "common/enum_names.hpp"
#include "text/unicode.hpp"
#include "text/utf8.hpp"

namespace plaudit::domain {
namespace {

constexpr NameTable<GuestMode, 3> kGuestModeNames = {{
    {GuestMode::kOff, "off"},
    {GuestMode::kModerated, "moderated"},
    {GuestMode::kOn, "on"},
}};

}  // namespace

std::optional<GuestMode> ParseGuestMode(std::string_view name) {
  return ValueNamed(kGuestModeNames, name);
}

std::string_view GuestModeName(GuestMode m) { return NameOf(kGuestModeNames, m, "off"); }

namespace {

bool HasControl(std::string_view s) {
  for (unsigned char c : s) {
    if (c < 0x20 || c == 0x7F) {
      return true;
    }
  }
  return false;
}

}  // namespace

Status CheckEmail(std::string_view email, std::string_view field) {
  const auto fail = [field] {
    return Fail(ErrorCode::kInvalidArgument, std::string(field) + " is not an e-mail address");
  };
  if (email.size() > 254 || HasControl(email)) {
    return fail();
  }
  const size_t at = email.find('@');
  if (at == 0 || at == std::string_view::npos || at + 1 == email.size() ||
      email.find('@', at + 1) != std::string_view::npos) {
    return fail();
  }
  for (char c : email) {
    if (c == ' ' || c == '<' || c == '>' || c == ',' || c == ';') {
      return fail();
    }
  }
  if (!text::CodePoints(email)) {
    return fail();
  }
  return {};
}

Result<GuestIdentity> NormalizeGuest(std::string_view name, std::string_view email) {
  const std::string_view trimmed = text::Trim(name);
  auto n = text::CodePoints(trimmed);
  if (!n) {
    return Fail(ErrorCode::kInvalidArgument, "guest.name must be valid UTF-8");
  }
  if (trimmed.empty() || text::IsBlank(trimmed)) {
    return Fail(ErrorCode::kInvalidArgument, "guest.name is required");
  }
  if (*n > 50) {
    return Fail(ErrorCode::kInvalidArgument, "guest.name must be at most 50 characters");
  }
  if (HasControl(trimmed)) {
    return Fail(ErrorCode::kInvalidArgument, "guest.name must not contain control characters");
  }
  if (text::HasBidiControl(trimmed)) {
    return Fail(ErrorCode::kInvalidArgument, "guest.name must not contain bidi control characters");
  }
  GuestIdentity g;
  g.name = std::string(trimmed);
  PL_TRY(auto key, text::NameSkeleton(g.name));
  g.name_key = std::move(key);
  const std::string_view mail = text::Trim(email);
  if (!mail.empty()) {
    PL_CHECK(CheckEmail(mail, "guest.email"));
    g.email = std::string(mail);
  }
  return g;
}

}  // namespace plaudit::domain
