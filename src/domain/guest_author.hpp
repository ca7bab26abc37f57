#pragma once
// Guests (API.md "Guests and sign-in from elsewhere"): who may comment without an account, and
// what a guest's name and e-mail must be. A guest's name may not look like a registered user's
// (its confusable skeleton, text::NameSkeleton, is checked against their name keys when the
// comment is stored), and guests are also marked as such wherever they are shown
// ("guest": true), so a reader can always tell an account from a passer-by.
#include <optional>
#include <string>
#include <string_view>

#include "common/result.hpp"

namespace plaudit::domain {

enum class GuestMode {
  kOff,        // every comment needs a session
  kModerated,  // guests' comments wait for a moderator
  kOn,         // guests' comments are judged as a first-time writer's
};
std::optional<GuestMode> ParseGuestMode(std::string_view name);
std::string_view GuestModeName(GuestMode m);

// What a guest gave, checked: the name trimmed (1–50 code points, no control or bidi control
// characters, not blank), its name key, and the e-mail (trimmed, at most 254 bytes, one '@'
// with text on both sides, no spaces or controls) or "".
struct GuestIdentity {
  std::string name;
  std::string name_key;
  std::string email;
};
Result<GuestIdentity> NormalizeGuest(std::string_view name, std::string_view email);

// kInvalidArgument ("<field> is not an e-mail address") unless `email` has that shape: one '@'
// with text on both sides, at most 254 bytes, no spaces, controls, commas or angle brackets.
// Not a proof that it is anyone's: only a link mailed to it is (API.md "Notifications").
Status CheckEmail(std::string_view email, std::string_view field);

}  // namespace plaudit::domain
