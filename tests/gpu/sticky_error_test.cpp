// A sticky CUDA error (an illegal address in a kernel) ends the suite after the mode that caused
// it: that result says so, what ran before it is kept, nothing after it runs. Its own binary:
// the CUDA context of this process is dead afterwards. Exit 77 without a GPU. The kernel:
// sticky_error_kernels.cu.
#include <gtest/gtest.h>

#include "graphprof/cuda/suite.hpp"
#include "graphprof/core/run_outcome.hpp"

namespace gp {

void launch_wild_write(LaunchContext& ctx);  // sticky_error_kernels.cu: writes to address 16

namespace {

// Registered only in this test binary: writes to address 16, which is never mapped.
class WildWrite : public Workload {
 public:
  void setup(const Params&) override {}
  void reset(cudaStream_t) override {}
  void enqueue(LaunchContext& ctx) override { launch_wild_write(ctx); }
  void build_graph(cudaGraph_t) override {}
  std::string checksum(cudaStream_t) override { return "0"; }
};

}  // namespace

GP_REGISTER_WORKLOAD(WildWrite, WorkloadInfo{"test-wild-write", "writes to an unmapped address (tests only)", {}})

namespace {

TEST(StickyError, SuiteStopsAfterTheModeThatBrokeTheContext) {
  RunRequest req;
  req.workloads = {"chain", "test-wild-write", "fork-join"};
  req.modes = {Mode::kEager};
  req.measure.rule.budget_seconds = 0.05;
  req.measure.rule.min_seconds = 0.01;
  req.measure.one_off_samples = 1;
  req.measure.trace.level = TraceLevel::kNone;
  const Report rep = run_suite(req, {"test"}, nullptr);
  ASSERT_EQ(rep.results.size(), 2u) << "fork-join must not run after the context is lost";
  EXPECT_EQ(rep.results[0].workload, "chain");
  EXPECT_EQ(rep.results[0].status, Status::kOk) << rep.results[0].reason;
  EXPECT_FALSE(rep.results[0].metrics.empty());
  const ModeResult& broken = rep.results[1];
  EXPECT_EQ(broken.status, Status::kFailed);
  ASSERT_TRUE(broken.failure.has_value());
  EXPECT_EQ(broken.failure->error, "cudaErrorIllegalAddress");
  EXPECT_TRUE(lost_cuda_context(broken));
  const std::string m = lost_context_message(rep);
  EXPECT_NE(m.find("workload test-wild-write, mode eager broke the CUDA context"), std::string::npos) << m;
}

}  // namespace
}  // namespace gp
