// Merging reports of separate processes: repetitions add up, derived figures are recomputed,
// and reports that do not belong together are refused with the offending source named.
#include <gtest/gtest.h>

#include "graphprof/compare_merge.hpp"
#include "graphprof/error.hpp"

namespace gp {
namespace {

ModeResult mode_result(const std::string& mode, double gpu_ns, const std::string& checksum = "aa") {
  ModeResult r;
  r.workload = "chain";
  r.mode = mode_from_string(mode).value();
  r.params = {{"kernels", "10"}};
  r.checksum = checksum;
  Metric m;
  m.unit = "ns";
  m.repetitions = {{gpu_ns, gpu_ns + 1, gpu_ns - 1}};
  m.resummarize();
  r.metrics["gpu_time_per_iter"] = m;
  return r;
}

Report report(double eager_ns, double graph_ns, const std::string& gpu = "NVIDIA H200") {
  Report r;
  r.git_revision = "abc";
  GpuInfo g;
  g.name = gpu;
  r.environment.gpu = g;
  r.settings["repetitions"] = 1;
  r.results = {mode_result("eager", eager_ns), mode_result("graph", graph_ns)};
  return r;
}

TEST(Merge, RepetitionsAccumulateAndDerivedFiguresAreRecomputed) {
  const Report m = merge_reports({report(300, 100), report(360, 120), report(330, 110)}, {"a", "b", "c"});
  ASSERT_EQ(m.results.size(), 2u);
  const Metric& g = m.results[1].metrics.at("gpu_time_per_iter");
  ASSERT_EQ(g.repetitions.size(), 3u);
  EXPECT_EQ(g.summary.n, 9u);
  EXPECT_DOUBLE_EQ(g.summary.median, 110.0);
  EXPECT_DOUBLE_EQ(m.results[1].derived.at("speedup_gpu_time_vs_eager"), 3.0);  // 330 / 110
  EXPECT_EQ(m.settings["processes"].get<int>(), 3);
  EXPECT_EQ(m.settings["repetitions_total"].get<int>(), 3);
  ASSERT_TRUE(m.results[1].checksum_matches_eager.has_value());
  EXPECT_TRUE(*m.results[1].checksum_matches_eager);
}

TEST(Merge, AFailureInAnyProcessMakesTheModeFailed) {
  Report b = report(300, 100);
  b.results[1].status = Status::kFailed;
  b.results[1].reason = "cudaGraphLaunch returned cudaErrorLaunchFailure";
  const Report m = merge_reports({report(300, 100), b}, {"first.json", "second.json"});
  EXPECT_EQ(m.results[1].status, Status::kFailed);
  EXPECT_NE(m.results[1].reason.find("second.json"), std::string::npos);
  EXPECT_TRUE(m.results[1].metrics.empty());
}

TEST(Merge, RefusesReportsThatDoNotBelongTogether) {
  try {
    merge_reports({report(300, 100), report(300, 100, "NVIDIA A100")}, {"x.json", "y.json"});
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kUntrusted);  // exit 5, as compare says of the same pair
    EXPECT_NE(std::string(e.what()).find("y.json"), std::string::npos);
  }
  Report other = report(300, 100);
  other.results[0].checksum = "bb";
  EXPECT_THROW(merge_reports({report(300, 100), other}, {"x.json", "y.json"}), Error);
  Report rev = report(300, 100);
  rev.git_revision = "def";
  EXPECT_THROW(merge_reports({report(300, 100), rev}, {"x.json", "y.json"}), Error);
  EXPECT_THROW(merge_reports({}, {}), Error);
}

TEST(Merge, ProcessesAddUpSoCompareCountsRuns) {
  Report two = merge_reports({report(300, 100), report(310, 101)}, {"a", "b"});
  EXPECT_EQ(two.settings.at("processes"), 2);
  const Report three = merge_reports({two, report(305, 99)}, {"ab", "c"});
  EXPECT_EQ(three.settings.at("processes"), 3);
  EXPECT_EQ(three.settings.at("repetitions_total"), 3);
}

TEST(Merge, RefusesTheSameFileTwice) {
  const std::string dir = ::testing::TempDir();
  Report r = report(300, 100);
  write_report(r, dir + "/merge_once.json");
  try {
    read_distinct_reports({dir + "/merge_once.json", dir + "/./merge_once.json"});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kBadInput);
    EXPECT_NE(std::string(e.what()).find("given twice"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace gp
