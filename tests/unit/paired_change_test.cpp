// The paired change of `profile --overhead N` (paired_change.hpp): values worked out by hand.
#include <gtest/gtest.h>

#include <cmath>

#include "graphprof/compare/paired_change.hpp"

namespace gp {
namespace {

TEST(PairedChange, AConstantRatioIsTheChangeWithAZeroWidthInterval) {
  const auto c = paired_change({100, 200, 50}, {110, 220, 55});
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->pairs, 3u);
  EXPECT_NEAR(c->change, 0.10, 1e-12);
  EXPECT_NEAR(c->low, 0.10, 1e-12);
  EXPECT_NEAR(c->high, 0.10, 1e-12);
  EXPECT_FALSE(c->wider_than_effect);
}

TEST(PairedChange, TheIntervalIsStudentsTOverTheLogRatios) {
  // log ratios ln(1.1), ln(1.0), ln(1.2): mean m, sd s, t(0.975, 2) = 4.3027.
  const auto c = paired_change({100, 100, 100}, {110, 100, 120});
  ASSERT_TRUE(c.has_value());
  const double a = std::log(1.1), b = 0.0, e = std::log(1.2);
  const double m = (a + b + e) / 3;
  const double s = std::sqrt(((a - m) * (a - m) + (b - m) * (b - m) + (e - m) * (e - m)) / 2);
  const double half = 4.302652729911275 * s / std::sqrt(3.0);
  EXPECT_NEAR(c->change, std::exp(m) - 1, 1e-12);
  EXPECT_NEAR(c->low, std::exp(m - half) - 1, 1e-6);
  EXPECT_NEAR(c->high, std::exp(m + half) - 1, 1e-6);
  EXPECT_TRUE(c->wider_than_effect) << "the interval holds no change";
}

TEST(PairedChange, DriftThatMovesBothRunsOfAPairCancels) {
  // The machine gets 2x slower halfway; the profiled run is 3 % slower than its plain partner.
  const auto c = paired_change({100, 101, 200, 202, 99}, {103, 104.03, 206, 208.06, 101.97});
  ASSERT_TRUE(c.has_value());
  EXPECT_NEAR(c->change, 0.03, 1e-9);
  EXPECT_FALSE(c->wider_than_effect);
}

TEST(PairedChange, UnusableValuesAreSkippedAndNoPairIsNoResult) {
  EXPECT_FALSE(paired_change({}, {}).has_value());
  EXPECT_FALSE(paired_change({0, -1}, {5, 5}).has_value());
  const auto one = paired_change({0, 100, 7}, {5, 150});
  ASSERT_TRUE(one.has_value());
  EXPECT_EQ(one->pairs, 1u);
  EXPECT_NEAR(one->change, 0.5, 1e-12);
  EXPECT_TRUE(one->wider_than_effect) << "one pair has no interval";
}

}  // namespace
}  // namespace gp
