// Rate limits as the --limit-* flags write them: what parses, to what, and back.
#include "common/rate_limit.hpp"

#include <gtest/gtest.h>

#include <string>
#include <string_view>

namespace plaudit {
namespace {

TEST(RateLimitParse, AcceptsCountPerPeriodAndOff) {
  struct Case {
    std::string_view text;
    RateLimit want;
  };
  const Case cases[] = {
      {"10/15m", {10, 15 * 60'000}},
      {"120/1m", {120, 60'000}},
      {"50/900s", {50, 900'000}},
      {"5/2h", {5, 2 * 3'600'000}},
      {"3/500ms", {3, 500}},
      {"1/1ms", {1, 1}},
      {"1000000000/744h", {kMaxLimitCount, kMaxLimitPeriodMs}},
      {"off", {}},
      {"0", {}},
  };
  for (const auto& c : cases) {
    auto got = ParseRateLimit(c.text);
    ASSERT_TRUE(got) << c.text << ": " << got.error().message;
    EXPECT_EQ(*got, c.want) << c.text;
    EXPECT_EQ(got->enabled(), c.want.count > 0) << c.text;
  }
}

TEST(RateLimitParse, RejectsAnythingElse) {
  const std::string_view cases[] = {
      // Not the shape <count>/<n><unit>.
      "", "on", "Off", "00", "10", "10/", "/1m", "10/m", "10/1", "10//1m", "10/1m/1s",
      // Zero, signs, fractions, other bases, spaces, unknown units.
      "0/1m", "10/0s", "-1/1m", "+1/1m", "10/-1m", "10/+1m", "10/1.5m", "1.5/1m", "0x10/1m",
      " 10/1m", "10/1m ", "10 /1m", "10/1 m", "10/1x", "10/1M", "10/1d",
      // Out of range.
      "10/745h", "1000000001/1h", "99999999999999999999/1m", "10/99999999999999999999ms"};
  for (auto text : cases) {
    auto got = ParseRateLimit(text);
    ASSERT_FALSE(got) << '"' << text << "\" parsed";
    EXPECT_EQ(got.error().code, ErrorCode::kInvalidArgument) << text;
  }
}

TEST(RateLimitParse, FormatReadsBackAsTheSameLimit) {
  for (std::string_view text : {"10/15m", "120/1m", "50/900s", "5/2h", "3/500ms", "7/1500ms"}) {
    auto limit = ParseRateLimit(text);
    ASSERT_TRUE(limit) << text;
    EXPECT_EQ(ParseRateLimit(FormatRateLimit(*limit)), limit) << text;
  }
  EXPECT_EQ(FormatRateLimit({10, 15 * 60'000}), "10/15m");
  EXPECT_EQ(FormatRateLimit({50, 900'000}), "50/15m");
  EXPECT_EQ(FormatRateLimit({3, 1500}), "3/1500ms");
  EXPECT_EQ(FormatRateLimit({}), "off");
}

}  // namespace
}  // namespace plaudit
