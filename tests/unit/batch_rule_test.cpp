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

}  // namespace
}  // namespace gp
