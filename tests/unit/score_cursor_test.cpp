// Score cursors (domain/cursor.hpp) decode only in the spelling they are written in: one
// position is one cursor (the page cache keys pages by it).
#include <gtest/gtest.h>

#include "domain/cursor.hpp"

namespace plaudit::domain {
namespace {

TEST(ScoreCursor, RoundTripsAndRefusesOtherSpellingsOfAPosition) {
  const std::string c = EncodeScoreCursor('n', 5, 7);
  EXPECT_EQ(DecodeScoreCursor(c, 'n'), (std::pair<int64_t, int64_t>{5, 7}));
  EXPECT_EQ(DecodeScoreCursor(EncodeScoreCursor('h', -3, 9), 'h'),
            (std::pair<int64_t, int64_t>{-3, 9}));
  EXPECT_FALSE(DecodeScoreCursor(c, 'o'));                        // another order's
  EXPECT_FALSE(DecodeScoreCursor(EncodeCursor("n5.7xxx"), 'n'));  // trailing bytes
  EXPECT_FALSE(DecodeScoreCursor(EncodeCursor("n 5.7"), 'n'));    // a space
  EXPECT_FALSE(DecodeScoreCursor(EncodeCursor("n+5.7"), 'n'));    // a sign
  EXPECT_FALSE(DecodeScoreCursor(EncodeCursor("n5.07"), 'n'));    // a leading zero
  EXPECT_FALSE(DecodeScoreCursor(EncodeCursor("n5.0"), 'n'));     // no id
  EXPECT_FALSE(DecodeScoreCursor("not base64!", 'n'));
}

}  // namespace
}  // namespace plaudit::domain
