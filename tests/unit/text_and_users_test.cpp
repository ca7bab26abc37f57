#include <gtest/gtest.h>

#include "api/guard.hpp"
#include "common/time.hpp"
#include "domain/user.hpp"
#include "text/utf8.hpp"

namespace plaudit {
namespace {

TEST(Utf8, CountsCodePointsAndRejectsInvalid) {
  EXPECT_EQ(text::CodePoints("abc"), 3u);
  EXPECT_EQ(text::CodePoints("é漢🙂"), 3u);
  EXPECT_EQ(text::CodePoints(""), 0u);
  EXPECT_FALSE(text::CodePoints("\xC3"));              // truncated
  EXPECT_FALSE(text::CodePoints("\xC0\xAF"));          // overlong '/'
  EXPECT_FALSE(text::CodePoints("\xED\xA0\x80"));      // surrogate
  EXPECT_FALSE(text::CodePoints("\xF4\x90\x80\x80"));  // above U+10FFFF
  EXPECT_FALSE(text::CodePoints("\xFF"));
}

TEST(Utf8, PrefixNeverSplitsACodePoint) {
  EXPECT_EQ(text::PrefixCodePoints("é漢🙂x", 2), "é漢");
  EXPECT_EQ(text::PrefixCodePoints("ab", 5), "ab");
  EXPECT_EQ(text::PrefixCodePoints("abc", 0), "");
}

TEST(Utf8, CutPointFallsBetweenCharacters) {
  const std::string s = "a\xc3\xa9\xe6\xbc\xa2\xf0\x9f\x99\x82";  // a é 漢 🙂: 1, 2, 3, 4 bytes
  EXPECT_EQ(text::CutPoint(s, 0), 0u);
  EXPECT_EQ(text::CutPoint(s, 1), 1u);
  EXPECT_EQ(text::CutPoint(s, 2), 1u);  // inside é
  EXPECT_EQ(text::CutPoint(s, 3), 3u);
  EXPECT_EQ(text::CutPoint(s, 5), 3u);  // inside 漢
  EXPECT_EQ(text::CutPoint(s, 6), 6u);
  EXPECT_EQ(text::CutPoint(s, 9), 6u);  // inside 🙂
  EXPECT_EQ(text::CutPoint(s, 10), 10u);
  EXPECT_EQ(text::CutPoint(s, 99), 10u);
}

TEST(Utf8, TrimsUnicodeWhiteSpace) {
  EXPECT_EQ(text::Trim("  a b \n\t"), "a b");
  EXPECT_EQ(text::Trim("\u3000\u00A0x\u2003"), "x");
  EXPECT_EQ(text::Trim(" \n "), "");
  EXPECT_EQ(text::Trim("漢"), "漢");
}

TEST(Time, FormatsRfc3339WithMilliseconds) {
  EXPECT_EQ(FormatTimeMs(0), "1970-01-01T00:00:00.000Z");
  EXPECT_EQ(FormatTimeMs(1795987800123), "2026-11-29T21:30:00.123Z");
  EXPECT_EQ(FormatTimeMs(-1), "1969-12-31T23:59:59.999Z");
  EXPECT_EQ(FormatTimeMs(951782400000), "2000-02-29T00:00:00.000Z");   // leap day
  EXPECT_EQ(FormatTimeMs(1798761599999), "2026-12-31T23:59:59.999Z");  // last ms of a year
  EXPECT_EQ(FormatTimeMs(253402300799999), "9999-12-31T23:59:59.999Z");
  EXPECT_EQ(FormatTimeMs(-62135596800000), "0001-01-01T00:00:00.000Z");
}

TEST(Time, AppendsTheSameDayAndTheNextAlike) {
  // AppendTimeMs keeps the last day's date: the same day again, another day, and back.
  std::string out = "x";
  for (int64_t ms : {1795987800123, 1795987800124, 1796074200000, 1795987800123}) {
    AppendTimeMs(out, ms);
  }
  EXPECT_EQ(out,
            "x2026-11-29T21:30:00.123Z2026-11-29T21:30:00.124Z2026-11-30T21:30:00.000Z"
            "2026-11-29T21:30:00.123Z");
}

TEST(UserRules, Usernames) {
  for (const char* ok : {"abc", "a_b.c-d", "ABC123", "x23456789012345678901234567890yz"}) {
    EXPECT_TRUE(domain::ValidateUsername(ok)) << ok;
  }
  for (const char* bad :
       {"ab", "", "a b", "ümlaut", "a/b", "x234567890123456789012345678901yz", "semi;colon"}) {
    EXPECT_FALSE(domain::ValidateUsername(bad)) << bad;
  }
  EXPECT_EQ(domain::UsernameKey("MiXeD.Case"), "mixed.case");
}

TEST(UserRules, PasswordsCountCharactersNotBytes) {
  EXPECT_FALSE(domain::ValidatePassword("1234567"));
  EXPECT_TRUE(domain::ValidatePassword("12345678"));
  EXPECT_TRUE(domain::ValidatePassword("éééééééé"));  // 8 characters, 16 bytes
  EXPECT_FALSE(domain::ValidatePassword(std::string(257, 'x')));
  EXPECT_TRUE(domain::ValidatePassword(std::string(256, 'x')));
  EXPECT_FALSE(domain::ValidatePassword("1234567\xFF"));
}

TEST(UserRules, DisplayNames) {
  EXPECT_EQ(*domain::NormalizeDisplayName("  Ann  ", "ann"), "Ann");
  EXPECT_EQ(*domain::NormalizeDisplayName("   ", "ann"), "ann");
  EXPECT_FALSE(domain::NormalizeDisplayName("a\x01", "ann"));
  EXPECT_FALSE(domain::NormalizeDisplayName(std::string(65, 'x'), "ann"));
}

TEST(UserRules, RolesNest) {
  using domain::Role;
  EXPECT_TRUE(domain::HasRole(Role::kAdmin, Role::kAuthor));
  EXPECT_TRUE(domain::HasRole(Role::kAuthor, Role::kUser));
  EXPECT_FALSE(domain::HasRole(Role::kUser, Role::kAuthor));
  EXPECT_FALSE(domain::HasRole(Role::kAuthor, Role::kAdmin));
  EXPECT_EQ(domain::ParseRole("author"), Role::kAuthor);
  EXPECT_FALSE(domain::ParseRole("Admin"));
}

TEST(Credentials, BearerAndCookieParsing) {
  EXPECT_EQ(api::BearerToken("Bearer abc"), "abc");
  EXPECT_EQ(api::BearerToken("bearer   abc  "), "abc");
  EXPECT_EQ(api::BearerToken("Basic abc"), "");  // present but not a bearer token
  EXPECT_FALSE(api::BearerToken(""));
  EXPECT_EQ(api::CookieValue("a=1; plaudit_session=tok; b=2", "plaudit_session"), "tok");
  EXPECT_EQ(api::CookieValue("plaudit_session=\"tok\"", "plaudit_session"), "tok");
  EXPECT_FALSE(api::CookieValue("xplaudit_session=tok", "plaudit_session"));
  EXPECT_FALSE(api::CookieValue("", "plaudit_session"));
}

}  // namespace
}  // namespace plaudit
