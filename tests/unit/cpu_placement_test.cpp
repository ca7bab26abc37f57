#include "app/cpu_placement.hpp"

#include <gtest/gtest.h>

namespace plaudit::app {
namespace {

TEST(CpuPlacement, NeedsTwoCpusAndTakesTheFirstTwoAllowed) {
  EXPECT_FALSE(PlanCpuPlacement({}).valid());
  EXPECT_FALSE(PlanCpuPlacement({3}).valid());
  CpuPlacement two = PlanCpuPlacement({0, 1});
  ASSERT_TRUE(two.valid());
  EXPECT_EQ(two.redis, 0);
  EXPECT_EQ(two.io, 1);
  // A cpuset (container) that leaves out CPUs: its own first two.
  CpuPlacement sparse = PlanCpuPlacement({2, 5, 7});
  EXPECT_EQ(sparse.redis, 2);
  EXPECT_EQ(sparse.io, 5);
}

TEST(CpuPlacement, CpuListIsRedisSyntax) {
  EXPECT_EQ(CpuList({}), "");
  EXPECT_EQ(CpuList({0}), "0");
  EXPECT_EQ(CpuList({0, 1}), "0-1");
  EXPECT_EQ(CpuList({0, 1, 2, 3, 6, 8, 9}), "0-3,6,8-9");
}

TEST(CpuPlacement, AllowedCpusIsThisProcesssSet) {
  std::vector<int> cpus = AllowedCpus();
  ASSERT_FALSE(cpus.empty());
  for (size_t i = 1; i < cpus.size(); ++i) EXPECT_LT(cpus[i - 1], cpus[i]);
}

TEST(CpuPlacement, PinningRefusesANonexistentCpu) {
  EXPECT_FALSE(PinCallingThread(-1));
  EXPECT_FALSE(PinCallingThread(1 << 20));
}

}  // namespace
}  // namespace plaudit::app
