// The three modes on `chain`: equal outputs, sane timings, a complete report, and a clear
// diagnosis for the capture-unsafe variant. Runs only where a GPU exists (else exit 77).
#include <gtest/gtest.h>

#include <cmath>

#include "graphprof/cuda/suite.hpp"

namespace gp {
namespace {

RunRequest quick(const std::map<std::string, std::string>& params) {
  RunRequest req;
  req.workloads = {"chain"};
  req.params = params;
  req.measure.rule.budget_seconds = 0.2;
  req.measure.one_off_samples = 2;
  return req;
}

double med(const ModeResult& r, const char* k) { return r.metrics.at(k).summary.median; }

TEST(ChainModes, AllModesAgreeAndTimingsAreSane) {
  const Report rep = run_suite(quick({{"kernels", "50"}}), {"test"}, nullptr);
  ASSERT_EQ(rep.results.size(), 3u);
  ASSERT_TRUE(rep.environment.gpu.has_value());
  for (const auto& r : rep.results) {
    SCOPED_TRACE(r.mode);
    ASSERT_EQ(r.status, Status::kOk) << r.reason;
    ASSERT_TRUE(r.checksum_matches_eager.has_value());
    EXPECT_TRUE(*r.checksum_matches_eager);
    EXPECT_EQ(r.checksum, rep.results[0].checksum);
    for (const char* k : {"gpu_time_per_iter", "wall_time_per_iter", "launch_cpu_per_call", "launch_cpu_per_iter",
                          "launch_cpu_isolated"}) {
      ASSERT_TRUE(r.metrics.count(k)) << k;
      EXPECT_GT(med(r, k), 0) << k;
      EXPECT_GE(r.metrics.at(k).summary.n, 3u) << k;
    }
    // An iteration of 50 kernels cannot finish faster than a few hundred ns, nor take a second.
    EXPECT_GT(med(r, "gpu_time_per_iter"), 500.0);
    EXPECT_LT(med(r, "gpu_time_per_iter"), 1e9);
    // Waiting for the GPU takes at least as long as enqueuing the work.
    EXPECT_GE(med(r, "wall_time_per_iter"), med(r, "launch_cpu_isolated"));
  }
  const ModeResult& eager = rep.results[0];
  EXPECT_DOUBLE_EQ(eager.derived.at("launch_calls_per_iter"), 50.0);
  for (std::size_t i = 1; i < 3; ++i) {
    const ModeResult& g = rep.results[i];
    EXPECT_DOUBLE_EQ(g.derived.at("launch_calls_per_iter"), 1.0);
    EXPECT_EQ(g.sections.graph.value().nodes, 50);
    EXPECT_EQ(g.sections.graph.value().edges, 49);
    for (const char* k : {"instantiate_time", "upload_time", "first_launch_time"}) EXPECT_GT(med(g, k), 0) << k;
    // One cudaGraphLaunch must cost less host time than 50 cudaLaunchKernel calls.
    EXPECT_LT(med(g, "launch_cpu_per_iter"), med(eager, "launch_cpu_per_iter"));
    EXPECT_TRUE(g.derived.count("break_even_replays"));
  }
  EXPECT_TRUE(rep.results[1].metrics.count("capture_time"));
  EXPECT_TRUE(rep.results[2].metrics.count("build_time"));
  // The report survives JSON.
  const Report back = report_from_json(to_json(rep), "memory");
  EXPECT_EQ(to_json(back).dump(), to_json(rep).dump());
}

TEST(ChainModes, SyncInsideCaptureIsDiagnosedAndTheSuiteGoesOn) {
  const Report rep = run_suite(quick({{"kernels", "10"}, {"sync_inside", "1"}}), {"test"}, nullptr);
  ASSERT_EQ(rep.results.size(), 3u);
  EXPECT_EQ(rep.results[0].status, Status::kOk);  // eager may synchronize
  const ModeResult& cap = rep.results[1];
  ASSERT_EQ(cap.status, Status::kFailed);
  ASSERT_TRUE(cap.failure.has_value());
  EXPECT_EQ(cap.failure->api, "cudaStreamSynchronize");
  EXPECT_EQ(cap.failure->error, "cudaErrorStreamCaptureUnsupported");
  EXPECT_NE(cap.failure->hint.find("captured region"), std::string::npos);
  EXPECT_EQ(rep.results[2].status, Status::kOk);  // the explicit graph has no sync; the suite went on
}

TEST(ChainModes, WaitingOnAnEventInsideCaptureFailsButRecordingItDoesNot) {
  // cudaEventRecord is legal in a capture (it becomes a dependency, or an event record node with
  // cudaEventRecordExternal); synchronizing on or querying the captured event is not.
  for (const char* variant : {"event", "query"}) {
    SCOPED_TRACE(variant);
    const Report rep = run_suite(quick({{"kernels", "10"}, {"sync_inside", variant}}), {"test"}, nullptr);
    ASSERT_EQ(rep.results.size(), 3u);
    EXPECT_EQ(rep.results[0].status, Status::kOk);
    const ModeResult& cap = rep.results[1];
    ASSERT_EQ(cap.status, Status::kFailed);
    ASSERT_TRUE(cap.failure.has_value());
    EXPECT_EQ(cap.failure->api, std::string(variant) == "event" ? "cudaEventSynchronize" : "cudaEventQuery");
    EXPECT_NE(cap.failure->error, "cudaSuccess");
    EXPECT_EQ(rep.results[2].status, Status::kOk);
  }
}

}  // namespace
}  // namespace gp
