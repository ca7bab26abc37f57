#pragma once
// A rate limit as the operator writes it: "<count>/<n><unit>" or "off" (--limit-* flags).
// Parsed once at start-up (src/config); redis/rate_limiter enforces it.
#include <cstdint>
#include <string>
#include <string_view>

#include "common/result.hpp"

namespace plaudit {

struct RateLimit {
  int64_t count = 0;  // requests allowed per period (burst up to `count`)
  int64_t period_ms = 0;
  bool enabled() const { return count > 0 && period_ms > 0; }

  friend bool operator==(const RateLimit&, const RateLimit&) = default;
};

// Bounds ParseRateLimit enforces, so the limiter script's double arithmetic stays exact in the
// ms range.
inline constexpr int64_t kMaxLimitPeriodMs = int64_t{31} * 24 * 3600 * 1000;  // 31 days
inline constexpr int64_t kMaxLimitCount = 1'000'000'000;

// Parses "<count>/<n><unit>" with unit ms, s, m or h ("10/15m", "120/1m", "50/900s", "5/2h",
// "3/500ms"); "off" or "0" give a disabled RateLimit. Anything else (including a zero count or
// period, signs, spaces, or more than kMaxLimitPeriodMs / kMaxLimitCount) is kInvalidArgument.
Result<RateLimit> ParseRateLimit(std::string_view text);

// The text ParseRateLimit reads back as `limit`, in the largest unit that divides the period
// ("10/15m"); "off" for a disabled limit.
std::string FormatRateLimit(const RateLimit& limit);

}  // namespace plaudit
