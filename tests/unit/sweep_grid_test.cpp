// Sweep parameter specs: lists, ranges, geometric steps, the grid product and its errors.
#include <gtest/gtest.h>

#include "graphprof/core/error.hpp"
#include "graphprof/core/sweep_grid.hpp"

namespace gp {
namespace {

using V = std::vector<std::string>;

TEST(SweepGrid, ListsRangesAndSteps) {
  EXPECT_EQ(expand_param_values("k", "1,10,100"), (V{"1", "10", "100"}));
  EXPECT_EQ(expand_param_values("k", "7"), (V{"7"}));
  EXPECT_EQ(expand_param_values("k", "1:4"), (V{"1", "2", "3", "4"}));
  EXPECT_EQ(expand_param_values("k", "1:10000:*10"), (V{"1", "10", "100", "1000", "10000"}));
  EXPECT_EQ(expand_param_values("k", "0:100:+25"), (V{"0", "25", "50", "75", "100"}));
  EXPECT_EQ(expand_param_values("k", "0.5:1.5:+0.5"), (V{"0.5", "1", "1.5"}));
}

TEST(SweepGrid, MalformedSpecsAreUsageErrors) {
  for (const char* bad : {"1,,2", "a:b", "5:1", "1:10:10", "1:10:*1", "0:10:*2", "1:10:+0", "1:2:3:4"}) {
    try {
      expand_param_values("kernels", bad);
      FAIL() << bad;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ExitCode::kUsage) << bad;
      EXPECT_NE(std::string(e.what()).find("--param kernels="), std::string::npos) << e.what();
    }
  }
  EXPECT_THROW(expand_param_values("k", "1:100000"), Error);
}

TEST(SweepGrid, GridIsTheCartesianProductInStableOrder) {
  const auto g = expand_grid({{"a", "1,2"}, {"b", "x,y,z"}});
  ASSERT_EQ(g.size(), 6u);
  EXPECT_EQ(g[0].at("a"), "1");
  EXPECT_EQ(g[0].at("b"), "x");
  EXPECT_EQ(g[1].at("b"), "y");
  EXPECT_EQ(g[3].at("a"), "2");
  EXPECT_EQ(expand_grid({}).size(), 1u);
}

}  // namespace
}  // namespace gp
