// Cached hash fields read into domain values (redis/fields.hpp): a value that is not wholly
// a number never passes as one.
#include "redis/fields.hpp"

#include <gtest/gtest.h>

namespace plaudit::redis {
namespace {

TEST(Fields, IntegersAreWholeDecimalNumbersOrTheFallback) {
  const CachedFields f = {{"n", "12"},       {"neg", "-3"},  {"max", "9223372036854775807"},
                          {"junk", "12abc"}, {"empty", ""},  {"over", "9223372036854775808"},
                          {"space", " 5"},   {"frac", "1.5"}};
  EXPECT_EQ(FieldInt(f, "n"), 12);
  EXPECT_EQ(FieldInt(f, "neg"), -3);
  EXPECT_EQ(FieldInt(f, "max"), INT64_MAX);
  EXPECT_EQ(FieldInt(f, "junk", -1), -1);
  EXPECT_EQ(FieldInt(f, "empty", 7), 7);
  EXPECT_EQ(FieldInt(f, "over", -1), -1);
  EXPECT_EQ(FieldInt(f, "space", -1), -1);
  EXPECT_EQ(FieldInt(f, "frac", -1), -1);
  EXPECT_EQ(FieldInt(f, "absent", 4), 4);
}

// ShortDecimal is a fast path: where it answers, it must answer what std::from_chars does
// when it reads the whole text; where it does not, from_chars decides.
TEST(Fields, ShortDecimalsReadAsFromCharsReadsThem) {
  for (std::string_view t : {"0",
                             "7",
                             "-0",
                             "-1",
                             "12",
                             "0000000000000005121",
                             "1796226948319",
                             "9223372036854775807",
                             "-9223372036854775808",
                             "9223372036854775808",
                             "-9223372036854775809",
                             "9999999999999999999",
                             "18446744073709551616",
                             "12345678901234567890",
                             "",
                             "-",
                             "+1",
                             " 5",
                             "5 ",
                             "12abc",
                             "1.5",
                             "0x10",
                             "--1",
                             "1-"}) {
    int64_t want = 0;
    const auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), want);
    const bool whole = !t.empty() && ec == std::errc() && ptr == t.data() + t.size();
    const std::optional<int64_t> got = ShortDecimal(t);
    if (got) {
      EXPECT_TRUE(whole) << t;
      EXPECT_EQ(*got, want) << t;
    } else {
      EXPECT_FALSE(whole && t.size() <= 20) << t;
    }
  }
}

TEST(Fields, TextIsTheValueOrEmpty) {
  const CachedFields f = {{"title", "Hello, world"}};
  EXPECT_EQ(FieldStr(f, "title"), "Hello, world");
  EXPECT_EQ(FieldStr(f, "summary"), "");
}

}  // namespace
}  // namespace plaudit::redis
