// Merging reports of separate processes: repetitions add up, derived figures are recomputed,
// and reports that do not belong together are refused with the offending source named.
#include <gtest/gtest.h>

#include <cmath>

#include "graphprof/compare/report_merge.hpp"
#include "graphprof/core/error.hpp"
#include "graphprof/compare/report_merge.hpp"
#include "graphprof/core/atomic_file.hpp"

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
  r.settings.repetitions = 1;
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
  EXPECT_EQ(m.settings.processes.value_or(-1), 3);
  EXPECT_EQ(m.settings.repetitions_total.value_or(-1), 3);
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
  EXPECT_EQ(two.settings.processes.value_or(-1), 2);
  const Report three = merge_reports({two, report(305, 99)}, {"ab", "c"});
  EXPECT_EQ(three.settings.processes.value_or(-1), 3);
  EXPECT_EQ(three.settings.repetitions_total.value_or(-1), 3);
}

Report probed(double before, double after) {
  Report r = report(300, 100);
  for (auto& res : r.results) res.sections.device_probe = DeviceProbeSection{256, before, after, "", {}, {}};
  return r;
}

// sections.device_probe of a merged result: the first process's probe where older readers look,
// every process's in `processes` (docs/report-schema.md), so compare sees a switch in any of them.
TEST(Merge, KeepsEveryProcessDeviceProbe) {
  Report no_probe = report(300, 100);
  const Report m = merge_reports({probed(508, 509), probed(685, 684), no_probe, probed(507, 690)}, {"a", "b", "c", "d"});
  const auto& p = m.results[1].sections.device_probe;
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->chain_kernels, 256);
  EXPECT_EQ(p->ns_per_kernel, 508);
  EXPECT_EQ(p->ns_per_kernel_after, 509);
  ASSERT_EQ(p->processes.size(), 4u);
  EXPECT_EQ(p->processes[1].ns_per_kernel, 685);
  EXPECT_EQ(p->processes[1].ns_per_kernel_after, 684);
  EXPECT_TRUE(std::isnan(p->processes[2].ns_per_kernel));
  EXPECT_EQ(p->processes[2].error, "not recorded");
  EXPECT_EQ(p->processes[3].ns_per_kernel_after, 690);
  // Written and read back.
  const nlohmann::json j = to_json(m);
  const nlohmann::json& jp = j["results"][1]["sections"]["device_probe"];
  EXPECT_EQ(jp["ns_per_kernel"], 508);
  ASSERT_EQ(jp["processes"].size(), 4u);
  EXPECT_EQ(jp["processes"][1]["ns_per_kernel"], 685);
  EXPECT_TRUE(jp["processes"][2]["ns_per_kernel"].is_null());
  const Report back = report_from_json(j, "m.json");
  ASSERT_EQ(back.results[1].sections.device_probe->processes.size(), 4u);
  EXPECT_EQ(back.results[1].sections.device_probe->processes[3].ns_per_kernel, 507);
  // A merged report merged again lists each process once, in order.
  const Report again = merge_reports({back, probed(600, 600)}, {"m", "e"});
  const auto& all = again.results[0].sections.device_probe->processes;
  ASSERT_EQ(all.size(), 5u);
  EXPECT_EQ(all[0].ns_per_kernel, 508);
  EXPECT_EQ(all[4].ns_per_kernel, 600);
  // One report, or none with a probe: nothing is added (the output of one process is unchanged).
  EXPECT_TRUE(merge_reports({probed(508, 509)}, {"a"}).results[0].sections.device_probe->processes.empty());
  EXPECT_FALSE(merge_reports({report(300, 100), report(300, 100)}, {"a", "b"}).results[0].sections.device_probe);
  EXPECT_FALSE(to_json(probed(508, 509))["results"][0]["sections"]["device_probe"].contains("processes"));
}

// The largest counts a report may hold add up without overflow (UBSan runs this test); reading the
// merged report back then refuses its out-of-range count with its path.
TEST(Merge, LargestCountsAddUpWithoutOverflow) {
  Report big = report(300, 100);
  big.settings.processes = 2147483647;
  big.settings.repetitions = 2147483647;
  const Report m = merge_reports({big, big}, {"a", "b"});
  EXPECT_EQ(m.settings.processes.value_or(-1), 2LL * 2147483647);
  EXPECT_EQ(m.settings.repetitions_total.value_or(-1), 2LL * 2147483647 * 2147483647);
  try {
    report_from_json(to_json(m), "m.json");
    FAIL() << "accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kBadInput);
    EXPECT_NE(std::string(e.what()).find("m.json: settings.repetitions_total"), std::string::npos) << e.what();
  }
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

// A copy under another name, or the same report rewritten with other spacing, is the same run:
// pooled twice it halved the noise. Told apart by content, not by path.
TEST(Merge, RefusesACopyOfAReportUnderAnotherName) {
  const std::string dir = ::testing::TempDir();
  const Report r = report(300, 100);
  write_report(r, dir + "/merge_a.json");
  write_file_atomic(dir + "/merge_copy.json", to_json(r).dump());  // same content, other spacing
  write_report(report(310, 100), dir + "/merge_b.json");
  try {
    read_distinct_reports({dir + "/merge_a.json", dir + "/merge_b.json", dir + "/merge_copy.json"});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kBadInput);
    EXPECT_NE(std::string(e.what()).find("merge_copy.json: the same report as " + dir + "/merge_a.json"), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(read_distinct_reports({dir + "/merge_a.json", dir + "/merge_b.json"}).size(), 2u);
}

// Byte-identical files are copies of one run: pooling them would count it twice.
TEST(Merge, RefusesCopiesOfOneRun) {
  const std::string dir = ::testing::TempDir();
  write_report(report(300, 100), dir + "/merge_copy_a.json");
  write_report(report(300, 100), dir + "/merge_copy_b.json");
  try {
    read_distinct_reports({dir + "/merge_copy_a.json", dir + "/merge_copy_b.json"});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kBadInput);
    EXPECT_NE(std::string(e.what()).find("merge_copy_b.json: the same bytes as"), std::string::npos) << e.what();
  }
}

// A profile is not a run of the suite, and profiles of two programs are not runs of one.
TEST(Merge, RefusesReportsOfAnotherKind) {
  auto profile_of = [](const std::string& program) {
    Report r = report(300, 100);
    ModeResult app;
    app.workload = program;
    app.mode = Mode::kApp;
    app.sections.profile = profile_section_from_json(nlohmann::json{{"program", program}});
    r.results = {app};
    return r;
  };
  EXPECT_EQ(report_kind(profile_of("train.py")), "a profile of train.py (graphprof profile)");
  EXPECT_EQ(report_kind(report(300, 100)), "a run report (graphprof run)");
  for (const auto& [a, b] : {std::pair{profile_of("train.py"), report(300, 100)},
                             std::pair{profile_of("train.py"), profile_of("serve.py")}}) {
    EXPECT_FALSE(same_kind(a, b));
    try {
      merge_reports({a, b}, {"a.json", "b.json"});
      FAIL() << "no error";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ExitCode::kBadInput);
      EXPECT_NE(std::string(e.what()).find("b.json is a "), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("a.json is a profile of train.py"), std::string::npos) << e.what();
    }
  }
  EXPECT_TRUE(same_kind(profile_of("train.py"), profile_of("train.py")));
}

}  // namespace
}  // namespace gp
