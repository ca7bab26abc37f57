// A guest's name and e-mail (domain/guest_author.hpp).
#include "domain/guest_author.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace plaudit::domain {
namespace {

TEST(GuestAuthor, NamesAreTrimmedAndKeyedAsAccountsNamesAre) {
  auto g = NormalizeGuest("  Wanderer ", " w@mail.example ");
  ASSERT_TRUE(g);
  EXPECT_EQ(g->name, "Wanderer");
  EXPECT_EQ(g->email, "w@mail.example");
  // Look-alikes share a key (the check against registered users' keys relies on it).
  EXPECT_EQ(NormalizeGuest("alice", "")->name_key, NormalizeGuest("\xD0\x90LICE", "")->name_key);
  EXPECT_EQ(NormalizeGuest("alice", "")->name_key, NormalizeGuest("a1ice", "")->name_key);
  EXPECT_EQ(NormalizeGuest(std::string(50, 'x'), "")->name.size(), 50u);
  EXPECT_EQ(NormalizeGuest("A", "")->email, "");
}

TEST(GuestAuthor, RefusesWhatNoOneShouldBeShownAs) {
  for (std::string bad : std::vector<std::string>{std::string(), std::string("  "),
                                                  std::string(51, 'x'), std::string("a\x07"),
                                                  std::string("a\xE2\x80\xAE"
                                                              "b"),
                                                  std::string("\xFF")}) {
    auto g = NormalizeGuest(bad, "");
    ASSERT_FALSE(g) << bad;
    EXPECT_EQ(g.error().code, ErrorCode::kInvalidArgument);
  }
  for (std::string mail : std::vector<std::string>{"nope", "@x", "x@", "a@b@c", "a b@c",
                                                   std::string(250, 'a') + "@b.cd", "a\n@b"}) {
    EXPECT_FALSE(NormalizeGuest("A", mail)) << mail;
  }
}

TEST(GuestAuthor, ModesHaveTheirNames) {
  for (GuestMode m : {GuestMode::kOff, GuestMode::kModerated, GuestMode::kOn}) {
    EXPECT_EQ(ParseGuestMode(GuestModeName(m)), m);
  }
  EXPECT_FALSE(ParseGuestMode("maybe"));
}

}  // namespace
}  // namespace plaudit::domain
