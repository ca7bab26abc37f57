// A guest's edit token (domain/guest_token.hpp): random, stored only as its hash, matched
// only by itself.
#include "domain/guest_token.hpp"

#include <gtest/gtest.h>

#include <set>

namespace plaudit::domain {
namespace {

TEST(GuestToken, EachTokenIsNewAndOnlyItsHashIsKept) {
  std::set<std::string> seen;
  for (int i = 0; i < 100; ++i) {
    const GuestToken t = NewGuestToken();
    EXPECT_EQ(t.token.size(), 43u);  // base64url of 32 bytes, no padding
    EXPECT_EQ(t.token.find_first_not_of(
                  "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"),
              std::string::npos);
    EXPECT_EQ(t.hash.size(), 64u);
    EXPECT_EQ(t.hash.find(t.token), std::string::npos);
    EXPECT_TRUE(seen.insert(t.token).second);
  }
}

TEST(GuestToken, MatchesItsOwnHashAndNothingElse) {
  const GuestToken a = NewGuestToken();
  const GuestToken b = NewGuestToken();
  EXPECT_TRUE(GuestTokenMatches(a.token, a.hash));
  EXPECT_FALSE(GuestTokenMatches(b.token, a.hash));
  EXPECT_FALSE(GuestTokenMatches(a.hash, a.hash));  // the stored hash is no token
  EXPECT_FALSE(GuestTokenMatches("", a.hash));
  EXPECT_FALSE(GuestTokenMatches(a.token, ""));  // a comment with no token: nothing matches
  EXPECT_FALSE(GuestTokenMatches(a.token.substr(1), a.hash));
  std::string flipped = a.token;
  flipped.back() = flipped.back() == 'A' ? 'B' : 'A';
  EXPECT_FALSE(GuestTokenMatches(flipped, a.hash));
  EXPECT_EQ(HashGuestToken("short"), "");
}

}  // namespace
}  // namespace plaudit::domain
