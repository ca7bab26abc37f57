#include "common/rate_limit.hpp"

#include <charconv>
#include <optional>
#include <system_error>

namespace plaudit {
namespace {

struct Unit {
  std::string_view name;
  int64_t ms;
};
// Largest first: FormatRateLimit picks the first that divides the period.
constexpr Unit kUnits[] = {
    {"h", int64_t{3600} * 1000}, {"m", int64_t{60} * 1000}, {"s", 1000}, {"ms", 1}};

tl::unexpected<Error> InvalidLimit(std::string_view text) {
  return Fail(ErrorCode::kInvalidArgument,
              "invalid rate limit \"" + std::string(text) +
                  "\": expected <count>/<n><unit> with unit ms, s, m or h (e.g. 10/15m), or off");
}

// Parses a plain run of decimal digits (no sign, no spaces) into [1, max].
std::optional<int64_t> ParsePositive(std::string_view digits, int64_t max) {
  if (digits.empty() || digits.front() < '0' || digits.front() > '9') {
    return std::nullopt;
  }
  uint64_t value = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (ec != std::errc() || end != digits.data() + digits.size() || value == 0 ||
      value > static_cast<uint64_t>(max)) {
    return std::nullopt;
  }
  return static_cast<int64_t>(value);
}

}  // namespace

Result<RateLimit> ParseRateLimit(std::string_view text) {
  if (text == "off" || text == "0") {
    return RateLimit{};
  }
  auto slash = text.find('/');
  if (slash == std::string_view::npos) {
    return InvalidLimit(text);
  }
  auto count = ParsePositive(text.substr(0, slash), kMaxLimitCount);
  std::string_view span = text.substr(slash + 1);
  size_t unit_at = 0;
  while (unit_at < span.size() && span[unit_at] >= '0' && span[unit_at] <= '9') {
    ++unit_at;
  }
  std::string_view unit = span.substr(unit_at);
  int64_t unit_ms = 0;
  for (const Unit& u : kUnits) {
    if (unit == u.name) {
      unit_ms = u.ms;
    }
  }
  if (!count || unit_ms == 0) {
    return InvalidLimit(text);
  }
  // Bounding the number by the maximum period in this unit also rules out overflow.
  auto amount = ParsePositive(span.substr(0, unit_at), kMaxLimitPeriodMs / unit_ms);
  if (!amount) {
    return InvalidLimit(text);
  }
  return RateLimit{*count, *amount * unit_ms};
}

std::string FormatRateLimit(const RateLimit& limit) {
  if (!limit.enabled()) {
    return "off";
  }
  for (const Unit& u : kUnits) {
    if (limit.period_ms % u.ms == 0) {
      return std::to_string(limit.count) + "/" + std::to_string(limit.period_ms / u.ms) +
             std::string(u.name);
    }
  }
  return "off";  // unreachable: every period is a whole number of ms
}

}  // namespace plaudit
