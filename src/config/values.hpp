#pragma once
// The typed values of plauditd's settings that have no home in a lower layer, and their text
// forms. Each parser returns kInvalidArgument with a message that names the problem and quotes
// the value, not the flag: config::Parse puts the flag in front.
#include <spdlog/common.h>

#include <boost/asio/ip/address.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

#include "common/result.hpp"

namespace plaudit::config {

// Argon2id cost (--password-hash): interactive (64 MiB, ~0.1 s) or minimal (tests only).
enum class PasswordCost { kInteractive, kMinimal };

// --bootstrap-admin "name:password": split at the first colon. Whether the name and password
// follow the account rules is domain's to say (app::CheckInvocation, before anything starts).
struct Credentials {
  std::string name;
  std::string password;

  friend bool operator==(const Credentials&, const Credentials&) = default;
};

// An IP address as make_address reads it (127.0.0.1, ::1, 0.0.0.0); no host names.
Result<boost::asio::ip::address> ParseHost(std::string_view text);

// debug, info, warn or error.
Result<spdlog::level::level_enum> ParseLogLevel(std::string_view text);
std::string_view LogLevelName(spdlog::level::level_enum level);

Result<PasswordCost> ParsePasswordCost(std::string_view text);
std::string_view PasswordCostName(PasswordCost cost);

// on or off.
Result<bool> ParseOnOff(std::string_view text);
// --proxy-header: x-forwarded (false) or forwarded (true).
Result<bool> ParseProxyHeader(std::string_view text);

Result<Credentials> ParseCredentials(std::string_view text);

// Wraps a parser so that "" (an empty flag, PLAUDIT_* variable or TOML string) gives nullopt:
// for the settings whose absence means "the default kind" (--redis: embedded, ...).
template <class Parser>
auto EmptyMeansNone(Parser parse) {
  using T = typename std::invoke_result_t<Parser, std::string_view>::value_type;
  return [parse](std::string_view text) -> Result<std::optional<T>> {
    if (text.empty()) {
      return std::nullopt;
    }
    auto value = parse(text);
    PL_CHECK(value);
    return *std::move(value);
  };
}

}  // namespace plaudit::config
