// Cached hash fields read into domain values (redis/fields.hpp): a value that is not wholly
// a number never passes as one.
#include "redis/fields.hpp"

#include <gtest/gtest.h>

namespace plaudit::redis {
namespace {

TEST(Fields, IntegersAreWholeDecimalNumbersOrTheFallback) {
  const CachedFields f = {{"n", "12"},         {"neg", "-3"},  {"max", "9223372036854775807"},
                          {"junk", "12abc"},   {"empty", ""},  {"over", "9223372036854775808"},
                          {"space", " 5"},     {"frac", "1.5"}};
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

TEST(Fields, TextIsTheValueOrEmpty) {
  const CachedFields f = {{"title", "Hello, world"}};
  EXPECT_EQ(FieldStr(f, "title"), "Hello, world");
  EXPECT_EQ(FieldStr(f, "summary"), "");
}

}  // namespace
}  // namespace plaudit::redis
