// The rank statistics behind `graphprof compare`: exact null distribution, interval ranks
// and their coverage, the Hodges-Lehmann estimate.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "graphprof/compare_stats.hpp"

namespace gp {
namespace {

// P(U <= u) by enumerating every way to place m x's among m+n ranks.
std::vector<double> brute_force_cdf(std::size_t m, std::size_t n) {
  std::vector<double> counts(m * n + 1, 0.0);
  const std::size_t total = m + n;
  double all = 0;
  for (unsigned mask = 0; mask < (1u << total); ++mask) {
    if (static_cast<std::size_t>(__builtin_popcount(mask)) != m) continue;
    // U = number of (x, y) pairs with y above x: for each y, count the x's below it.
    std::size_t u = 0, xs_below = 0;
    for (std::size_t pos = 0; pos < total; ++pos) {
      if (mask & (1u << pos)) ++xs_below;
      else u += xs_below;
    }
    counts[u] += 1;
    all += 1;
  }
  std::vector<double> cdf(counts.size());
  double run = 0;
  for (std::size_t u = 0; u < counts.size(); ++u) cdf[u] = (run += counts[u]) / all;
  return cdf;
}

TEST(MannWhitney, ExactCdfMatchesEnumeration) {
  for (std::size_t m = 1; m <= 6; ++m) {
    for (std::size_t n = 1; n <= 7; ++n) {
      const auto want = brute_force_cdf(m, n);
      const auto got = mann_whitney_cdf(m, n);
      ASSERT_EQ(got.size(), want.size()) << m << "x" << n;
      for (std::size_t u = 0; u < want.size(); ++u) EXPECT_NEAR(got[u], want[u], 1e-12) << m << "x" << n << " u=" << u;
    }
  }
}

TEST(MannWhitney, CdfIsSymmetricAndEndsAtOne) {
  const auto cdf = mann_whitney_cdf(12, 9);
  const std::size_t mn = 12 * 9;
  EXPECT_DOUBLE_EQ(cdf[mn], 1.0);
  // U is symmetric around mn/2: P(U <= u) = P(U >= mn - u) = 1 - P(U <= mn - u - 1).
  for (std::size_t u = 0; u + 1 < mn; ++u) EXPECT_NEAR(cdf[u], 1.0 - cdf[mn - u - 1], 1e-9) << u;
}

TEST(ShiftCiRank, KnownRanks) {
  double cov = 0;
  // 5 vs 5: P(U = 0) = 1/252 < 0.005, so the widest interval [min, max] is the 99% one.
  EXPECT_EQ(shift_ci_rank(5, 5, 0.99, &cov), 1u);
  EXPECT_NEAR(cov, 1.0 - 2.0 / 252.0, 1e-12);
  // 4 vs 4 cannot reach 99% (1/70 per tail); 4 vs 6 can (1/210).
  EXPECT_EQ(shift_ci_rank(4, 4, 0.99, &cov), 0u);
  EXPECT_EQ(cov, 0.0);
  EXPECT_EQ(shift_ci_rank(4, 6, 0.99), 1u);
  // 7 vs 7 (tables of the Mann-Whitney critical values).
  EXPECT_EQ(shift_ci_rank(7, 7, 0.99), 5u);
  EXPECT_EQ(shift_ci_rank(7, 7, 0.90), 12u);
  // 3 vs 3 at 90%: P(U = 0) = 1/20 is exactly the tail.
  EXPECT_EQ(shift_ci_rank(3, 3, 0.90, &cov), 1u);
  EXPECT_NEAR(cov, 0.9, 1e-12);
  EXPECT_EQ(shift_ci_rank(1, 1, 0.90), 0u);
  EXPECT_EQ(shift_ci_rank(0, 5, 0.90), 0u);
}

TEST(ShiftCiRank, CoverageNeverBelowLevelAndApproximationIsClose) {
  for (std::size_t m = 5; m <= 40; m += 7) {
    for (std::size_t n = 5; n <= 40; n += 5) {
      double cov = 0;
      ASSERT_GT(shift_ci_rank(m, n, 0.99, &cov), 0u);
      EXPECT_GE(cov, 0.99);
      EXPECT_LT(cov, 0.999);  // the largest k: not needlessly wide
    }
  }
  double exact_cov = 0, approx_cov = 0;
  const std::size_t k_exact = shift_ci_rank(100, 100, 0.99, &exact_cov);  // m + n = 200: exact
  const std::size_t k_approx = shift_ci_rank(101, 101, 0.99, &approx_cov);  // normal approximation
  EXPECT_NEAR(static_cast<double>(k_approx), static_cast<double>(k_exact) * (101.0 * 101.0) / (100.0 * 100.0), 60.0);
  EXPECT_NEAR(approx_cov, 0.99, 0.002);
}

TEST(HodgesLehmann, EstimateAndInterval) {
  const ShiftEstimate e = hodges_lehmann({1, 2, 3}, {4, 5, 6}, 0.99, 0.90);
  EXPECT_DOUBLE_EQ(e.estimate, 3.0);  // differences 1,2,2,3,3,3,4,4,5
  EXPECT_FALSE(e.ci_gate.available);  // 3 vs 3 is too few for 99%
  ASSERT_TRUE(e.ci_same.available);
  EXPECT_DOUBLE_EQ(e.ci_same.low, 1.0);
  EXPECT_DOUBLE_EQ(e.ci_same.high, 5.0);

  const ShiftEstimate same = hodges_lehmann({0, 0, 0, 0, 0}, {0, 0, 0, 0, 0}, 0.99, 0.90);
  EXPECT_EQ(same.estimate, 0.0);
  ASSERT_TRUE(same.ci_gate.available);
  EXPECT_EQ(same.ci_gate.low, 0.0);
  EXPECT_EQ(same.ci_gate.high, 0.0);
}

TEST(HodgesLehmann, OneOutlierDoesNotMoveTheEstimate) {
  const std::vector<double> x{0.00, 0.01, -0.01, 0.005, -0.005, 0.002, -0.002};
  std::vector<double> y = x;
  y[3] = 0.5;  // one repetition 65% slower
  const ShiftEstimate e = hodges_lehmann(x, y, 0.99, 0.90);
  EXPECT_LT(std::fabs(e.estimate), 0.01);
  EXPECT_LT(e.ci_gate.low, 0.0);  // no evidence of a shift
}

// The interval's coverage is a property of the method, so a simulation can check it: with
// no shift, the 90% interval of 5 vs 5 values must contain 0 in about 90.5% of the draws.
TEST(HodgesLehmann, SimulatedCoverageMatchesTheLevel) {
  std::mt19937_64 rng(12345);
  std::lognormal_distribution<double> noise(0.0, 0.5);
  int covered = 0;
  const int trials = 4000;
  for (int i = 0; i < trials; ++i) {
    std::vector<double> x(5), y(5);
    for (auto& v : x) v = std::log(noise(rng));
    for (auto& v : y) v = std::log(noise(rng));
    const ShiftEstimate e = hodges_lehmann(x, y, 0.99, 0.90);
    if (e.ci_same.low <= 0 && 0 <= e.ci_same.high) ++covered;
  }
  const double rate = static_cast<double>(covered) / trials;
  double cov = 0;
  shift_ci_rank(5, 5, 0.90, &cov);
  EXPECT_NEAR(rate, cov, 0.02);
}

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

TEST(ScreenedSd, PlainSdWithoutOutliersAndIgnoresAFewRealChanges) {
  std::mt19937_64 rng(7);
  std::normal_distribution<double> z(0.0, 0.05);
  std::vector<double> v(2000);
  for (auto& x : v) x = z(rng);
  std::size_t kept = 0;
  EXPECT_NEAR(screened_sd(v, &kept), 0.05, 0.003);
  EXPECT_GE(kept, 1990u);  // a normal sample loses almost nothing
  // Ten values, two of them real 25% changes: those two are set aside, the rest is plain.
  const std::vector<double> group{0.01, -0.01, 0.005, -0.005, 0.0, 0.02, -0.02, 0.015, 0.22, 0.25};
  const double sd = screened_sd(group, &kept);
  EXPECT_EQ(kept, 8u);
  EXPECT_NEAR(sd, std::sqrt((4 * 0.0001 + 2 * 0.000025 + 0.0004 * 2 + 0.000225 - 0.0004) / 7.0), 0.01);
  EXPECT_LT(sd, 0.02);
  // No more than a fifth is ever set aside.
  const std::vector<double> three{0, 0.001, -0.001, 0.002, -0.002, 0.003, -0.003, 0.5, 0.6, 0.7};
  screened_sd(three, &kept);
  EXPECT_EQ(kept, 8u);
  EXPECT_EQ(screened_sd({1.0}), 0.0);
}

TEST(RobustSd, ScaledMad) {
  EXPECT_EQ(robust_sd({}), 0.0);
  EXPECT_EQ(robust_sd({3.0}), 0.0);
  EXPECT_NEAR(robust_sd({1, 2, 3, 4, 100}), 1.4826, 1e-12);  // MAD = 1, the outlier ignored
}

}  // namespace
}  // namespace gp
