// --metrics-allow's address sets: what parses, and who is in.
#include "common/address_set.hpp"

#include <gtest/gtest.h>

namespace plaudit {
namespace {

TEST(AddressSet, LoopbackByDefaultMatchesBothFamiliesAndMappedIpv4) {
  auto set = AddressSet::Parse("127.0.0.0/8,::1/128");
  ASSERT_TRUE(set) << set.error().message;
  EXPECT_TRUE(set->Contains("127.0.0.1"));
  EXPECT_TRUE(set->Contains("127.255.0.9"));
  EXPECT_TRUE(set->Contains("::1"));
  EXPECT_TRUE(set->Contains("::ffff:127.0.0.1"));  // IPv4 on a dual-stack listener
  EXPECT_FALSE(set->Contains("128.0.0.1"));
  EXPECT_FALSE(set->Contains("::2"));
  EXPECT_FALSE(set->Contains("::ffff:10.0.0.1"));
  EXPECT_FALSE(set->Contains(""));
  EXPECT_FALSE(set->Contains("localhost"));  // only addresses, never names
}

TEST(AddressSet, NetworksAndPlainAddressesWithSpaces) {
  auto set = AddressSet::Parse(" 10.0.0.0/8 , 192.0.2.7, fd00::/8 ,2001:db8::5");
  ASSERT_TRUE(set) << set.error().message;
  EXPECT_TRUE(set->Contains("10.200.3.4"));
  EXPECT_TRUE(set->Contains("192.0.2.7"));
  EXPECT_FALSE(set->Contains("192.0.2.8"));
  EXPECT_TRUE(set->Contains("fd12:3456::1"));
  EXPECT_TRUE(set->Contains("2001:db8::5"));
  EXPECT_FALSE(set->Contains("2001:db8::6"));
  // A host part in the network is accepted and means the network.
  auto loose = AddressSet::Parse("10.1.2.3/8");
  ASSERT_TRUE(loose);
  EXPECT_TRUE(loose->Contains("10.9.9.9"));
  auto all = AddressSet::Parse("0.0.0.0/0,::/0");
  ASSERT_TRUE(all);
  EXPECT_TRUE(all->Contains("203.0.113.1"));
  EXPECT_TRUE(all->Contains("2001:db8::1"));
}

TEST(AddressSet, EmptyAllowsNoneAndGarbageIsRefusedByName) {
  auto none = AddressSet::Parse("");
  ASSERT_TRUE(none);
  EXPECT_FALSE(none->Contains("127.0.0.1"));
  for (const char* bad : {"10.0.0.0/33", "::1/129", "10.0.0", "localhost", "10.0.0.0/8,,::1",
                          "10.0.0.0/-1", "1.2.3.4/8/8", "*"}) {
    auto r = AddressSet::Parse(bad);
    EXPECT_FALSE(r) << bad;
    if (!r) {
      EXPECT_EQ(r.error().code, ErrorCode::kInvalidArgument) << bad;
    }
  }
  auto r = AddressSet::Parse("127.0.0.1, bogus");
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("'bogus'"), std::string::npos) << r.error().message;
}

TEST(AddressSet, RateLimitsCountAnIpv6ClientByItsSlash64) {
  EXPECT_EQ(RateLimitClient("203.0.113.9"), "203.0.113.9");
  EXPECT_EQ(RateLimitClient("::ffff:203.0.113.9"), "203.0.113.9");
  EXPECT_EQ(RateLimitClient("2001:db8:1:2:aaaa::1"), "2001:db8:1:2::/64");
  EXPECT_EQ(RateLimitClient("2001:db8:1:2:ffff:ffff:ffff:ffff"), "2001:db8:1:2::/64");
  EXPECT_NE(RateLimitClient("2001:db8:1:3::1"), RateLimitClient("2001:db8:1:2::1"));
  EXPECT_EQ(RateLimitClient("::1"), "::/64");
  EXPECT_EQ(RateLimitClient("not an address"), "not an address");
}

}  // namespace
}  // namespace plaudit
