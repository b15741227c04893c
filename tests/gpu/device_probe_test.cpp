// Every measured result records the device-state probe (sections.device_probe): the device time
// per kernel of a chain of empty kernels, taken after the warm-up, right before the timing passes,
// and again after the last pass (src/cuda/device_probe.hpp, docs/findings.md "Parity"). No timed
// assertion: the test checks that both figures are there and are times, in every result.
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
    for (const char* key : {"ns_per_kernel", "ns_per_kernel_after"}) {
      ASSERT_TRUE(probe.contains(key)) << key << ": " << probe.dump();
      EXPECT_GT(probe.at(key).get<double>(), 0.0) << key;
    }
  }
}

}  // namespace
}  // namespace gp
