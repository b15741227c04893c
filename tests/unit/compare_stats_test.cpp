// The statistics behind compare: Student t and normal quantiles against tables, Welch's
// standard error and degrees of freedom against hand-worked values, and the runs-needed rule.
#include <gtest/gtest.h>

#include <cmath>

#include "graphprof/compare/compare_stats.hpp"

namespace gp {
namespace {

TEST(StudentT, KnownQuantiles) {
  EXPECT_NEAR(student_t_quantile(0.975, 1), 12.706, 0.002);
  EXPECT_NEAR(student_t_quantile(0.995, 3), 5.841, 0.002);
  EXPECT_NEAR(student_t_quantile(0.995, 9), 3.250, 0.002);
  EXPECT_NEAR(student_t_quantile(0.95, 7), 1.895, 0.002);
  EXPECT_NEAR(student_t_quantile(0.975, 30), 2.042, 0.002);
  EXPECT_NEAR(student_t_quantile(0.025, 30), -2.042, 0.002);
  EXPECT_NEAR(student_t_quantile(0.995, 1000), 2.5758, 0.001);  // the normal limit
  EXPECT_NEAR(normal_quantile(0.995), 2.5758, 0.0001);
}

TEST(Normal, KnownQuantiles) {
  EXPECT_NEAR(normal_quantile(0.975), 1.95996, 1e-4);
  EXPECT_NEAR(normal_quantile(0.8), 0.84162, 1e-4);
  EXPECT_NEAR(normal_quantile(1 - 0.01 / 36), 3.4519, 1e-3);
}

TEST(Welch, StandardErrorAndDegreesOfFreedom) {
  // x: mean 2, var 1 (m=3); y: mean 5, var 4 (n=3). se^2 = 1/3 + 4/3; df = (5/3)^2 / ((1/3)^2/2 + (4/3)^2/2).
  const WelchResult w = welch({1, 2, 3}, {3, 5, 7});
  EXPECT_DOUBLE_EQ(w.diff, 3.0);
  EXPECT_NEAR(w.std_error, std::sqrt(5.0 / 3.0), 1e-12);
  EXPECT_NEAR(w.df, (25.0 / 9.0) / ((1.0 / 9.0) / 2 + (16.0 / 9.0) / 2), 1e-12);
  EXPECT_NEAR(w.sd_x, 1.0, 1e-12);
  EXPECT_NEAR(w.sd_y, 2.0, 1e-12);
  const WelchResult flat = welch({1, 1, 1}, {1, 1, 1});
  EXPECT_EQ(flat.std_error, 0.0);
  EXPECT_EQ(flat.df, 0.0);  // no spread at all: the caller uses normal quantiles
}

TEST(RunsToDetect, GrowsWithTheSquareOfTheNoise) {
  const double T = std::log(1.05), F = std::log(1.01), z = normal_quantile(1 - 0.01 / 36);
  const std::size_t small = runs_to_detect(0.005, T, F, z);
  const std::size_t large = runs_to_detect(0.02, T, F, z);
  EXPECT_EQ(small, 2u);  // device series on the H200: a couple of runs
  // 2 ((3.452 + 0.842) * 0.02 / (log 1.05 - log 1.01))^2 = 9.7
  EXPECT_EQ(large, 10u);
  EXPECT_EQ(runs_to_detect(0.02, F, F, z), 0u);  // nothing to detect
  EXPECT_GE(runs_to_detect(0.25, T, F, z), 400u);  // host launch cost: hundreds
}

}  // namespace
}  // namespace gp
