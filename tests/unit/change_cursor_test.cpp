// ParseChangeCursor: the change feed's cursors (decimal outbox ids), the Redis stream ids
// they replaced ("<ms>-<seq>"), and everything else refused.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "domain/cursor.hpp"

namespace plaudit::domain {
namespace {

TEST(ChangeCursor, EmptyIsTheStartAndDecimalIsAnOutboxId) {
  auto start = ParseChangeCursor("");
  ASSERT_TRUE(start);
  EXPECT_EQ(start->after_id, 0);
  EXPECT_FALSE(start->from_ms);
  const std::vector<std::pair<std::string, int64_t>> good{
      {"0", 0}, {"42", 42}, {"007", 7}, {"9223372036854775807", 9223372036854775807}};
  for (const auto& [text, id] : good) {
    auto c = ParseChangeCursor(text);
    ASSERT_TRUE(c) << text;
    EXPECT_EQ(c->after_id, id) << text;
    EXPECT_FALSE(c->from_ms) << text;
  }
}

TEST(ChangeCursor, AStreamIdResumesAtItsMillisecond) {
  auto c = ParseChangeCursor("1764590000123-4");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->from_ms, 1764590000123);
  EXPECT_FALSE(c->after_id);
  EXPECT_EQ(ParseChangeCursor("0-0")->from_ms, 0);
  // Redis stream ids are 64-bit unsigned; beyond int64 no change can be at or after it.
  EXPECT_EQ(ParseChangeCursor("18446744073709551615-18446744073709551615")->from_ms,
            9223372036854775807);
}

TEST(ChangeCursor, AnythingElseIsRefused) {
  for (const char* bad : {"bogus",
                          "-1",
                          "+1",
                          " 1",
                          "1 ",
                          "1.5",
                          "0x10",
                          "1e3",
                          "-",
                          "1-",
                          "-1-0",
                          "-0",
                          "1-2-3",
                          "1--1",
                          "1-x",
                          "x-1",
                          "9223372036854775808",
                          "99999999999999999999",
                          "18446744073709551616-0",
                          "1-18446744073709551616",
                          "\xc2\xb9"}) {
    EXPECT_FALSE(ParseChangeCursor(bad)) << bad;
  }
  EXPECT_FALSE(ParseChangeCursor(std::string("1\0", 2)));
}

}  // namespace
}  // namespace plaudit::domain
