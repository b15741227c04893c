// Every measured result records the device-state probe (sections.device_probe): the device time
// per kernel of a chain of empty kernels by both device methods (back to back, latched), taken
// after the warm-up, right before the timing passes, around the GPU and latched passes, and again
// after the last pass (src/cuda/device_probe.hpp, docs/findings.md "Parity"). No timed assertion:
// the test checks that every figure is there and is a time, in every result.
#include <gtest/gtest.h>

#include "graphprof/cuda/suite.hpp"
#include "graphprof/core/report_sections.hpp"

namespace gp {
namespace {

TEST(DeviceProbe, EveryResultRecordsTheChainProbe) {
  RunRequest req;
  req.workloads = {"scaling"};
  req.modes = {Mode::kEager, Mode::kCapture};
  req.params = {{"length", "10"}};
  req.measure.rule.budget_seconds = 0.05;
  req.measure.rule.min_seconds = 0.01;
  req.measure.trace.level = TraceLevel::kNone;
  const Report rep = run_suite(req, {"test"}, nullptr);
  ASSERT_EQ(rep.results.size(), 2u);
  for (const ModeResult& r : rep.results) {
    SCOPED_TRACE(to_string(r.mode));
    ASSERT_EQ(r.status, Status::kOk) << r.reason;
    ASSERT_TRUE(r.sections.device_probe.has_value());
    const nlohmann::json probe = to_json(*r.sections.device_probe);  // the report's JSON form
    EXPECT_EQ(probe.at("chain_kernels").get<int>(), 256);
    EXPECT_TRUE(r.sections.device_probe->error.empty()) << r.sections.device_probe->error;
    for (const char* key : {"ns_per_kernel", "ns_per_kernel_after", "latched_ns_per_kernel", "latched_ns_per_kernel_after"}) {
      ASSERT_TRUE(probe.contains(key)) << key << ": " << probe.dump();
      EXPECT_GT(probe.at(key).get<double>(), 0.0) << key;
    }
    // Both methods around the two device passes, in order.
    const auto& points = r.sections.device_probe->points;
    ASSERT_EQ(points.size(), 3u) << probe.dump();
    EXPECT_EQ(points[0].at, "before GPU pass");
    EXPECT_EQ(points[1].at, "before latched pass");
    EXPECT_EQ(points[2].at, "after latched pass");
    for (const DeviceProbePoint& p : points) {
      EXPECT_GT(p.reading.back_to_back_ns, 0.0) << p.at;
      EXPECT_GT(p.reading.latched_ns, 0.0) << p.at;
    }
  }
}

}  // namespace
}  // namespace gp
