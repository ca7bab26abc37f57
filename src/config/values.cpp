#include "config/values.hpp"

#include <span>
#include <utility>

namespace plaudit::config {
namespace {

template <class T>
using Name = std::pair<std::string_view, T>;

constexpr Name<spdlog::level::level_enum> kLogLevels[] = {{"debug", spdlog::level::debug},
                                                          {"info", spdlog::level::info},
                                                          {"warn", spdlog::level::warn},
                                                          {"error", spdlog::level::err}};
constexpr Name<PasswordCost> kPasswordCosts[] = {{"interactive", PasswordCost::kInteractive},
                                                 {"minimal", PasswordCost::kMinimal}};
constexpr Name<bool> kOnOff[] = {{"on", true}, {"off", false}};
constexpr Name<bool> kProxyHeaders[] = {{"x-forwarded", false}, {"forwarded", true}};

template <class T>
Result<T> OneOf(std::string_view text, std::span<const Name<T>> names) {
  std::string choices;
  for (const auto& [name, value] : names) {
    if (name == text) {
      return value;
    }
    choices += choices.empty() ? "" : ", ";
    choices += name;
  }
  return Fail(ErrorCode::kInvalidArgument,
              "\"" + std::string(text) + "\" is not one of " + choices);
}

template <class T>
std::string_view NameOf(T value, std::span<const Name<T>> names) {
  for (const auto& [name, v] : names) {
    if (v == value) {
      return name;
    }
  }
  return "?";
}

}  // namespace

Result<boost::asio::ip::address> ParseHost(std::string_view text) {
  boost::system::error_code ec;
  auto address = boost::asio::ip::make_address(std::string(text), ec);
  if (ec) {
    return Fail(ErrorCode::kInvalidArgument,
                "\"" + std::string(text) + "\" is not an IP address (e.g. 127.0.0.1, ::)");
  }
  return address;
}

Result<spdlog::level::level_enum> ParseLogLevel(std::string_view text) {
  return OneOf<spdlog::level::level_enum>(text, kLogLevels);
}

std::string_view LogLevelName(spdlog::level::level_enum level) {
  return NameOf<spdlog::level::level_enum>(level, kLogLevels);
}

Result<PasswordCost> ParsePasswordCost(std::string_view text) {
  return OneOf<PasswordCost>(text, kPasswordCosts);
}

std::string_view PasswordCostName(PasswordCost cost) {
  return NameOf<PasswordCost>(cost, kPasswordCosts);
}

Result<bool> ParseOnOff(std::string_view text) { return OneOf<bool>(text, kOnOff); }

Result<bool> ParseProxyHeader(std::string_view text) { return OneOf<bool>(text, kProxyHeaders); }

Result<Credentials> ParseCredentials(std::string_view text) {
  const size_t colon = text.find(':');
  if (colon == std::string_view::npos) {
    return Fail(ErrorCode::kInvalidArgument, "want name:password (no colon found)");
  }
  return Credentials{std::string(text.substr(0, colon)), std::string(text.substr(colon + 1))};
}

}  // namespace plaudit::config
