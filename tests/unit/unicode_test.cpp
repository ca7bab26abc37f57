// Issue 41, item 14: invisible-only text, bidi controls and look-alike names (text/unicode.hpp).
#include "text/unicode.hpp"

#include <gtest/gtest.h>

namespace plaudit::text {
namespace {

TEST(UnicodeTest, InvisibleOnlyTextIsBlank) {
  for (const char* s : {"", " ", "\u200B", "\u200B\u200C\u200D\u2060\uFEFF", "\u00A0\u3000",
                        "\u0301", "\uFE0F", "\u3164", "\u2800", "\u202E\u200F"}) {
    EXPECT_TRUE(IsBlank(s)) << s;
  }
  for (const char* s : {"a", "\u200Bx", "\u00E9", "\u05D0", "\U0001F600", ".", "e\u0301"}) {
    EXPECT_FALSE(IsBlank(s)) << s;
  }
}

TEST(UnicodeTest, BidiControlsAreFoundAndEmbeddingsStripped) {
  EXPECT_FALSE(HasBidiControl("plain text, \u05E9\u05DC\u05D5\u05DD"));
  for (const char* s : {"a\u202Eb", "\u2066x", "x\u2069", "\u200E", "\u200F", "\u061C"}) {
    EXPECT_TRUE(HasBidiControl(s)) << s;
  }
  EXPECT_EQ(StripBidiEmbeddings("gnp.\u202Eexe\u202C and \u2067isolate\u2069"),
            "gnp.exe and isolate");
  // The marks carry no state: they stay.
  EXPECT_EQ(StripBidiEmbeddings("\u05D0 (1)\u200F \u200E!"), "\u05D0 (1)\u200F \u200E!");
}

TEST(UnicodeTest, LookAlikeNamesShareASkeleton) {
  const std::string admin = NameSkeleton("admin").value();
  for (const char* s : {"Admin", "ADMIN", "\u0430dmin", "adm\u0456n", "ad\u200Bmin", "  admin ",
                        "\uFF41\uFF44\uFF4D\uFF49\uFF4E"}) {
    EXPECT_EQ(NameSkeleton(s).value(), admin) << s;
  }
  EXPECT_EQ(NameSkeleton("g00gle").value(), NameSkeleton("google").value());
  EXPECT_EQ(NameSkeleton("pay pal").value(), NameSkeleton("pay   pal").value());
  EXPECT_NE(NameSkeleton("alice").value(), admin);
  EXPECT_NE(NameSkeleton("pay pal").value(), NameSkeleton("paypal").value());
  EXPECT_FALSE(NameSkeleton("\xC3\x28"));
}

}  // namespace
}  // namespace plaudit::text
