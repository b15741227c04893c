// The one batch rule of the measurement passes (graphprof/core/batch_rule.hpp): the GPU, launch and
// trace passes queue the same number of iterations per batch for the same iteration.
#include "graphprof/core/batch_rule.hpp"

#include <gtest/gtest.h>

namespace gp {
namespace {

TEST(BatchRule, AboutAThousandLaunchCallsAtMost64Iterations) {
  EXPECT_EQ(batch_size({1, 1e-6}, 0.5), 64);     // one graph launch: capped at 64
  EXPECT_EQ(batch_size({100, 1e-6}, 0.5), 10);   // 100 kernels launched eagerly: 1000 calls
  EXPECT_EQ(batch_size({5000, 1e-6}, 0.5), 1);   // more calls than a batch holds: one iteration
  EXPECT_EQ(batch_size({0, 1e-6}, 0.5), 64);     // no call counted is one call
}

TEST(BatchRule, ABatchIsAtMostAQuarterOfTheBudget) {
  EXPECT_EQ(batch_size({1, 0.01}, 0.5), 12);  // 10 ms iterations, 0.5 s budget: 12 fit in 125 ms
  EXPECT_EQ(batch_size({1, 1.0}, 0.5), 1);    // an iteration longer than the budget: still one
}

TEST(BatchRule, UnknownIterationTimeUsesTheCallCountAlone) {
  // The trace pass before the timing passes have measured the iteration.
  EXPECT_EQ(batch_size({1, 0}, 0.5), 64);
  EXPECT_EQ(batch_size({20, 0}, 0.01), 50);  // 1000 calls, the tiny budget not applied
}

TEST(BatchRule, LatchedBatchesHoldAbout256CallsAtMost32Iterations) {
  EXPECT_EQ(latched_batch_size(64, 1), 32);
  EXPECT_EQ(latched_batch_size(10, 1), 10);    // never more than the GPU pass's batch
  EXPECT_EQ(latched_batch_size(64, 100), 2);   // 256 / 101
  EXPECT_EQ(latched_batch_size(64, 1000), 1);  // at least one
}

TEST(TimeLimitShare, PassesOfAModeBegunNearTheLimitShareTheTimeLeft) {
  // Six seconds left, a 5 s --budget and the seven passes of a mode (one-off, warm-up, GPU,
  // latched, launch, latency, trace): taken one after another, each pass at most its share of
  // what is left, the mode's budgets add up to the six seconds, not to seven budgets (35 s).
  StoppingRule rule;
  rule.budget_seconds = 5.0;
  rule.min_seconds = 1.0;
  double left = 6.0, total = 0;
  for (int passes_left = 7; passes_left >= 1; --passes_left) {
    const StoppingRule r = rule_within_time_left(rule, left, passes_left);
    EXPECT_LE(r.min_seconds, r.budget_seconds);
    total += r.budget_seconds;
    left -= r.budget_seconds;  // a pass that spends all of its budget
  }
  EXPECT_NEAR(total, 6.0, 1e-9);
}

// The time left until a --time-limit: positive before it, zero or less once reached (then nothing
// new starts). An hour on either side: no timing is asserted.
TEST(TimeLimitShare, TimeLeftUntilTheLimit) {
  EXPECT_GT(seconds_left(deadline_after(3600.0)), 3000.0);
  EXPECT_LE(seconds_left(deadline_after(-3600.0)), -3000.0);
  EXPECT_LE(seconds_left(deadline_after(3600.0)), 3600.0);
}

TEST(TimeLimitShare, NeverMoreThanTheBudgetAndAtLeastTenMilliseconds) {
  StoppingRule rule;
  rule.budget_seconds = 0.5;
  EXPECT_DOUBLE_EQ(rule_within_time_left(rule, 100.0, 2).budget_seconds, 0.5);  // plenty of time: the rule's own
  EXPECT_DOUBLE_EQ(rule_within_time_left(rule, -3.0, 4).budget_seconds, 0.01);  // past the limit: the least
  EXPECT_DOUBLE_EQ(rule_within_time_left(rule, 0.2, 0).budget_seconds, 0.2);    // no pass count: all that is left
}

}  // namespace
}  // namespace gp

namespace gp {
namespace {

TEST(OneOffSequences, TheFirstInstantiateAndUploadAreKeptApartFromTheRepeatedOnes) {
  std::map<std::string, std::vector<double>> costs{{"capture_time", {5, 4, 4}},
                                                   {"instantiate_time", {300, 130, 140}},
                                                   {"upload_time", {60, 50, 52}},
                                                   {"upload_call_time", {40, 30, 31}},
                                                   {"first_launch_time", {9, 8, 8}}};
  split_first_one_off(costs);
  EXPECT_EQ(costs["instantiate_time_first"], std::vector<double>({300}));
  EXPECT_EQ(costs["instantiate_time"], std::vector<double>({130, 140}));
  EXPECT_EQ(costs["upload_time_first"], std::vector<double>({60}));
  EXPECT_EQ(costs["upload_time"], std::vector<double>({50, 52}));
  EXPECT_EQ(costs["upload_call_time_first"], std::vector<double>({40}));
  EXPECT_EQ(costs["upload_call_time"], std::vector<double>({30, 31}));
  // Capture and first launch are not split.
  EXPECT_EQ(costs["capture_time"], std::vector<double>({5, 4, 4}));
  EXPECT_EQ(costs.count("capture_time_first"), 0u);
  EXPECT_EQ(costs.count("first_launch_time_first"), 0u);
}

TEST(OneOffSequences, ASingleSampleOrAMissingKeyStaysAsItIs) {
  std::map<std::string, std::vector<double>> costs{{"instantiate_time", {300}}};
  split_first_one_off(costs);
  EXPECT_EQ(costs["instantiate_time"], std::vector<double>({300}));
  EXPECT_EQ(costs.count("instantiate_time_first"), 0u);
  EXPECT_EQ(costs.count("upload_time"), 0u);  // not created
  EXPECT_GE(kMinOneOffSequences, 2);
}

}  // namespace
}  // namespace gp
