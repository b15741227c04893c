// Statistics on synthetic samples: quantiles, MAD, the median's CI and the stopping rule.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "graphprof/core/stats.hpp"

namespace gp {
namespace {

TEST(Stats, QuantilesInterpolateLikeNumpy) {
  const std::vector<double> v{1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  EXPECT_DOUBLE_EQ(quantile_sorted(v, 0.5), 5.5);
  EXPECT_DOUBLE_EQ(quantile_sorted(v, 0.1), 1.9);
  EXPECT_DOUBLE_EQ(quantile_sorted(v, 0.9), 9.1);
  EXPECT_DOUBLE_EQ(quantile_sorted(v, 0.0), 1.0);
  EXPECT_DOUBLE_EQ(quantile_sorted(v, 1.0), 10.0);
}

TEST(Stats, MedianOrGivesTheMedianOrTheValueForNoSamples) {
  EXPECT_DOUBLE_EQ(median_or({3.0, 1.0, 2.0, 10.0}, -1.0), 2.5);
  EXPECT_DOUBLE_EQ(median_or({7.0}, -1.0), 7.0);
  EXPECT_DOUBLE_EQ(median_or({}, -1.0), -1.0);
}

TEST(Stats, MedianAbsoluteDeviation) {
  EXPECT_DOUBLE_EQ(median_absolute_deviation({1, 1, 2, 2, 4, 6, 9}), 1.0);
  EXPECT_DOUBLE_EQ(median_absolute_deviation({5, 5, 5}), 0.0);
}

TEST(Stats, MedianCiRanksAreTheExactBinomialInterval) {
  // n = 10 at 95%: P(Bin(10, .5) <= 1) = 11/1024, coverage 1 - 22/1024 = 0.9785 -> ranks 2..9.
  const RankInterval r = median_ci_ranks(10, 0.95);
  EXPECT_EQ(r.lo, 2u);
  EXPECT_EQ(r.hi, 9u);
  EXPECT_NEAR(r.coverage, 1.0 - 22.0 / 1024.0, 1e-12);
  // n = 5 cannot reach 95% (max coverage 1 - 2/32 = 0.9375): the full range.
  const RankInterval small = median_ci_ranks(5, 0.95);
  EXPECT_EQ(small.lo, 1u);
  EXPECT_EQ(small.hi, 5u);
  EXPECT_LT(small.coverage, 0.95);
  EXPECT_EQ(median_ci_ranks(1, 0.95).hi, 0u);
}

TEST(Stats, MedianCiCoversTheTrueMedianAtTheStatedRate) {
  // Simulation: the 95% interval must contain the true median of an exponential distribution in
  // about 95% of trials (at least 93% with 2000 trials), and not trivially in all of them.
  std::mt19937_64 rng(42);
  std::exponential_distribution<double> dist(1.0);
  const double true_median = std::log(2.0);
  int covered = 0;
  const int trials = 2000;
  for (int t = 0; t < trials; ++t) {
    std::vector<double> s(51);
    for (auto& x : s) x = dist(rng);
    const Summary sum = summarize(s);
    covered += (sum.ci_low <= true_median && true_median <= sum.ci_high);
  }
  const double rate = static_cast<double>(covered) / trials;
  EXPECT_GT(rate, 0.93);
  EXPECT_LT(rate, 0.99);
}

TEST(Stats, SummaryIgnoresNonFiniteSamples) {
  const Summary s = summarize({1.0, NAN, 3.0, INFINITY, 2.0});
  EXPECT_EQ(s.n, 3u);
  EXPECT_DOUBLE_EQ(s.median, 2.0);
  EXPECT_DOUBLE_EQ(s.min, 1.0);
  EXPECT_DOUBLE_EQ(s.max, 3.0);
  EXPECT_EQ(summarize({}).n, 0u);
}

TEST(Stats, StoppingRuleConvergesOnQuietData) {
  StoppingRule rule;
  rule.min_samples = 20;
  rule.target_rel_ci = 0.01;
  std::vector<double> quiet(30, 100.0);
  quiet[3] = 100.5;
  EXPECT_FALSE(should_stop(rule, quiet, 0.001).stop);  // before min_seconds
  const StopDecision d = should_stop(rule, quiet, rule.min_seconds);
  EXPECT_TRUE(d.stop);
  EXPECT_TRUE(d.converged);
}

TEST(Stats, StoppingRuleWaitsForMinSamplesAndStopsNoisyDataAtTheBudget) {
  StoppingRule rule;
  rule.min_samples = 20;
  rule.budget_seconds = 1.0;
  std::vector<double> few(10, 100.0);
  EXPECT_FALSE(should_stop(rule, few, 0.01).stop);

  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> wide(50, 150);
  std::vector<double> noisy(40);
  for (auto& x : noisy) x = wide(rng);
  EXPECT_FALSE(should_stop(rule, noisy, 0.5).stop);  // budget left, CI too wide
  const StopDecision at_budget = should_stop(rule, noisy, 1.5);
  EXPECT_TRUE(at_budget.stop);
  EXPECT_FALSE(at_budget.converged);
}

TEST(Stats, StoppingRuleHonoursTheSampleCap) {
  StoppingRule rule;
  rule.max_samples = 50;
  std::mt19937_64 rng(9);
  std::uniform_real_distribution<double> wide(1, 1000);
  std::vector<double> v(50);
  for (auto& x : v) x = wide(rng);
  const StopDecision d = should_stop(rule, v, 0.0);
  EXPECT_TRUE(d.stop);
  EXPECT_FALSE(d.converged);
}

}  // namespace
}  // namespace gp
