// --budget bounds every pass whatever an iteration costs: a heavy decode (tens of ms an
// iteration) with a 0.05 s budget gets fewer samples, flagged in sections.budget, instead of
// running for minutes. No timed assertion: the test checks the flags and sample counts.
#include <gtest/gtest.h>

#include "graphprof/cuda/suite.hpp"

namespace gp {
namespace {

TEST(Budget, SlowIterationsGiveFewerSamplesFlagged) {
  RunRequest req;
  req.workloads = {"decode"};
  req.modes = {Mode::kGraph};
  req.params = {{"batch", "64"}, {"hidden", "4096"}, {"ffn", "16384"}, {"layers", "4"}};
  req.measure.rule.budget_seconds = 0.05;
  req.measure.rule.min_seconds = 0.01;
  req.measure.trace.level = TraceLevel::kNone;
  const Report rep = run_suite(req, {"test"}, nullptr);
  ASSERT_EQ(rep.results.size(), 1u);
  const ModeResult& r = rep.results[0];
  ASSERT_EQ(r.status, Status::kOk) << r.reason;
  ASSERT_TRUE(r.sections.budget);
  const double iteration = r.sections.budget->iteration_seconds;
  if (iteration <= 0.05 / 4) GTEST_SKIP() << "decode with these parameters takes only " << iteration << " s an iteration";
  ASSERT_FALSE(r.sections.budget->passes_cut_short.empty()) << to_json(*r.sections.budget).dump();
  EXPECT_LT(r.metrics.at("gpu_time_per_iter").summary.n, req.measure.rule.min_samples);
  EXPECT_GE(r.metrics.at("gpu_time_per_iter").summary.n, 1u);
}

}  // namespace
}  // namespace gp
