// `profile --step-range NAME`: a step is one NVTX range NAME for every per-step figure, on the H200
// records of tests/apps/call_site_app.cu (40 loop steps of 2 eager launches, 1 copy and 1 sync each)
// with the range lines added (step_range_records.hpp); a NAME that never occurred falls back to the
// graph rule with a warning; unreadable range lines are counted, not fatal.
#include <gtest/gtest.h>

#include <map>
#include <sstream>

#include "graphprof/core/profile_fields.hpp"
#include "graphprof/profile/profile.hpp"
#include "../../src/report/profile_sites_text.hpp"
#include "step_range_records.hpp"
#include "unit_test_helpers.hpp"

namespace gp {
namespace {

const std::string kStepRangeApp = "in graphprof_call_site_app";


TEST(ProfileStepRange, TheFixtureHasTheLoopsLaunches) {
  ASSERT_EQ(test::graph_launch_starts().size(), 44u);
  EXPECT_EQ(test::loop_step_ranges().size(), 40u);
}

// The graph rule counts from the first step's launch to the end of the last one's: 78 of the 80
// eager launches (1.95 per step). With a range around each whole step every call is counted: 2.0.
TEST(ProfileStepRange, EveryPerStepFigureUsesTheRanges) {
  const ProcessProfile p = analyze_process(test::records_with_ranges(test::loop_step_ranges()));
  EXPECT_EQ(p.sites.step.from, "nvtx range");
  EXPECT_EQ(p.sites.step.range_name, "step");
  EXPECT_EQ(p.sites.step.steps, 40u);
  EXPECT_TRUE(p.sites.step.range_missing.empty());
  const EagerSite* scale = test::eager_site_at(p, "eager_scale " + kStepRangeApp);
  ASSERT_NE(scale, nullptr);
  EXPECT_EQ(scale->calls_in_steps, 80u);
  EXPECT_DOUBLE_EQ(scale->per_step.value_or(0), 2.0);
  EXPECT_NE(scale->hint.find("would remove 2 launches per step"), std::string::npos) << scale->hint;
  const EagerSite* copy = test::eager_site_at(p, "eager_copy " + kStepRangeApp);
  ASSERT_NE(copy, nullptr);
  EXPECT_DOUBLE_EQ(copy->per_step.value_or(0), 1.0);
  const EagerSite* sync = test::eager_site_at(p, "step_sync " + kStepRangeApp);
  ASSERT_NE(sync, nullptr);
  EXPECT_DOUBLE_EQ(sync->per_step.value_or(0), 1.0);
  // The report says which step it used; compare's per-step rows divide by its steps.
  const nlohmann::json j = profile_process_json(p, 1);
  EXPECT_EQ(j["step"]["from"], "nvtx range");
  EXPECT_EQ(j["step"]["range"], "step");
  EXPECT_EQ(j["step_range"]["used"], true);
  EXPECT_EQ(j["step_range"]["ranges"], 40);
  EXPECT_TRUE(j["step_range"]["missing"].is_null());
  EXPECT_DOUBLE_EQ(profile_fields::steps(profile_process_from_json(j)).count, 40.0);
  EXPECT_EQ(profile_fields::steps(profile_process_from_json(j)).from, "nvtx range");
  std::ostringstream out;
  step_text(out, profile_process_from_json(j));
  EXPECT_EQ(out.str(), "  step = NVTX range 'step' (40 ranges): 2.00 eager kernel launches and 1.00 host waits per step\n");
}

// Calls between two ranges are in no step: ranges around each graph launch call alone hold none
// of the loop's eager calls (they come after the launch returned).
TEST(ProfileStepRange, CallsBetweenRangesAreInNoStep) {
  const std::vector<std::uint64_t> s = test::graph_launch_starts();
  test::Ranges launch_only;
  for (std::size_t i = 3; i + 1 < s.size(); ++i) launch_only.emplace_back(s[i], s[i] + 1);
  const ProcessProfile p = analyze_process(test::records_with_ranges(launch_only));
  ASSERT_EQ(p.sites.step.steps, 40u);
  const EagerSite* scale = test::eager_site_at(p, "eager_scale " + kStepRangeApp);
  ASSERT_NE(scale, nullptr);
  EXPECT_EQ(scale->calls_in_steps, 0u);
  EXPECT_FALSE(p.sites.step.contains(s[3] + 2));
  EXPECT_TRUE(p.sites.step.contains(s[3]));
  EXPECT_TRUE(p.sites.step.contains(s[42] + 1));
  EXPECT_FALSE(p.sites.step.contains(s[2]));
}

// Overlapping ranges (two threads) are one window for the in-step test but each counts as a step.
TEST(ProfileStepRange, OverlappingRangesCountEach) {
  const test::Ranges r = test::loop_step_ranges();
  test::Ranges doubled = r;
  for (const auto& w : r) doubled.emplace_back(w.first + 10, w.second - 10);
  const ProcessProfile p = analyze_process(test::records_with_ranges(doubled));
  EXPECT_EQ(p.sites.step.steps, 80u);
  EXPECT_EQ(p.sites.step.windows.size(), 40u);
  const EagerSite* scale = test::eager_site_at(p, "eager_scale " + kStepRangeApp);
  ASSERT_NE(scale, nullptr);
  EXPECT_EQ(scale->calls_in_steps, 80u);
  EXPECT_DOUBLE_EQ(scale->per_step.value_or(0), 1.0);
}

// A NAME that never occurred: the graph rule, and a warning that says why (not a silent 0).
TEST(ProfileStepRange, ANameThatNeverOccurredFallsBackWithAWarning) {
  const ProcessProfile p = analyze_process(test::records_with_ranges({}, "{\"t\":\"nvtx_end\",\"inits\":2,\"others\":7,\"open\":0}"));
  EXPECT_EQ(p.sites.step.from, "most-launched graph");
  EXPECT_EQ(p.sites.step.steps, 40u);
  EXPECT_EQ(p.sites.step.range_missing, "the NVTX range 'step' never occurred (7 ranges of other names)");
  ASSERT_FALSE(p.warnings.empty());
  EXPECT_EQ(p.warnings.back(),
            "--step-range step: the NVTX range 'step' never occurred (7 ranges of other names); a step is one launch of graph_4 instead");
  const EagerSite* scale = test::eager_site_at(p, "eager_scale " + kStepRangeApp);
  ASSERT_NE(scale, nullptr);
  EXPECT_DOUBLE_EQ(scale->per_step.value_or(0), 78.0 / 40.0);
  const nlohmann::json j = profile_process_json(p, 1);
  EXPECT_EQ(j["step_range"]["used"], false);
  EXPECT_EQ(j["step_range"]["ranges"], 0);
  EXPECT_EQ(j["step"]["from"], "most-launched graph");
  EXPECT_FALSE(j["step"].contains("range"));
  std::ostringstream out;
  step_text(out, profile_process_from_json(j));
  EXPECT_EQ(out.str(), "  step = one launch of graph_4 (40 steps): the NVTX range 'step' never occurred in this process\n");

  const ProcessProfile silent = analyze_process(test::records_with_ranges({}, "{\"t\":\"nvtx_end\",\"inits\":0,\"others\":0,\"open\":0}"));
  EXPECT_EQ(silent.sites.step.range_missing, "the NVTX range 'step' never occurred: the process made no NVTX call");
  const ProcessProfile unflushed = analyze_process(test::records_with_ranges({}, ""));
  EXPECT_NE(unflushed.sites.step.range_missing.find("ended before writing its ranges"), std::string::npos);
  const ProcessProfile open = analyze_process(test::records_with_ranges({}, "{\"t\":\"nvtx_end\",\"inits\":1,\"others\":0,\"open\":3}"));
  EXPECT_EQ(open.sites.step.range_missing, "the NVTX range 'step' never occurred (0 ranges of other names, 3 ranges named so never ended)");
}

// Without --step-range nothing changes: no step_range in the report, no console line.
TEST(ProfileStepRange, WithoutTheOptionTheReportHasNoStepRange) {
  const ProcessProfile p = analyze_process(read_process_records(test::kCallSiteRecords));
  EXPECT_TRUE(p.sites.step.range_name.empty());
  const nlohmann::json j = profile_process_json(p, 1);
  EXPECT_TRUE(j["step_range"].is_null());
  std::ostringstream out;
  step_text(out, profile_process_from_json(j));
  EXPECT_EQ(out.str(), "");
}

TEST(ProfileStepRange, UnreadableRangeLinesAreCountedNotFatal) {
  std::istringstream in(
      "{\"t\":\"process\",\"pid\":7,\"ppid\":1,\"ts\":100,\"cupti\":1,\"level\":2,\"cmdline\":\"app\"}\n"
      "{\"t\":\"step_range\",\"name\":\"decode\"}\n"
      "{\"t\":\"nvtx\",\"r\":[[200,300],[500,400]]}\n"
      "{\"t\":\"nvtx\",\"r\":[[200,\"x\"]]}\n"
      "{\"t\":\"nvtx\",\"r\":[[600,700],[800,900]]}\n"
      "{\"t\":\"nvtx_end\",\"inits\":1,\"others\":0,\"open\":1}\n");
  const ProcessRecords r = parse_process_records(in, "test");
  EXPECT_EQ(r.malformed_lines, 2u);
  EXPECT_EQ(r.sites.step_ranges.name, "decode");
  ASSERT_EQ(r.sites.step_ranges.ranges.size(), 2u);  // a bad line adds none of its ranges
  EXPECT_EQ(r.sites.step_ranges.ranges[0].first, 600u);
  EXPECT_EQ(r.sites.step_ranges.open_ranges, 1u);
  EXPECT_TRUE(r.sites.step_ranges.ended);
}

}  // namespace
}  // namespace gp

namespace gp {
namespace {

// Recorded on the H200: `profile --step-range serve_step -- python serving_buckets.py --steps 24
// --buckets 1,4,16 --hidden 1024 --nvtx-step serve_step` (torch.cuda.nvtx.range_push/pop around
// each step; tests/data/profile/README.md). The ranges came from PyTorch's own NVTX: 24 steps,
// each with its argmax and sum (2 launches), the request copy and the .item() wait.
TEST(ProfileStepRange, PyTorchRangesFromTheH200) {
  const ProcessProfile p =
      analyze_process(read_process_records(std::string(GRAPHPROF_TEST_DATA) + "/profile/h200/serving_buckets_nvtx/proc-12161.jsonl"));
  ASSERT_EQ(p.sites.step.from, "nvtx range");
  EXPECT_EQ(p.sites.step.range_name, "serve_step");
  EXPECT_EQ(p.sites.step.steps, 24u);
  EXPECT_EQ(p.sites.step.windows.size(), 24u);  // one thread: no two overlap
  std::map<std::pair<std::string, std::string>, const EagerSite*> by;
  for (const auto& s : p.sites.eager_sites) by[{s.site.where, s.kind}] = &s;
  const EagerSite* pick = by[{"serving_buckets.py:70 in serve", "kernel launch"}];
  ASSERT_NE(pick, nullptr);
  EXPECT_EQ(pick->calls, 48u);
  EXPECT_DOUBLE_EQ(pick->per_step.value_or(0), 2.0);
  const EagerSite* copy = by[{"serving_buckets.py:68 in serve", "copy"}];
  ASSERT_NE(copy, nullptr);
  EXPECT_DOUBLE_EQ(copy->per_step.value_or(0), 1.0);
  const EagerSite* wait = by[{"at::native::_local_scalar_dense_cuda in libtorch_cuda.so", "sync"}];
  ASSERT_NE(wait, nullptr);
  EXPECT_DOUBLE_EQ(wait->per_step.value_or(0), 1.0);
  // The model's set-up and the captures' warm-up are in no step.
  const EagerSite* setup = by[{"serving_buckets.py:40 in capture_buckets", "kernel launch"}];
  ASSERT_NE(setup, nullptr);
  EXPECT_EQ(setup->calls_in_steps, 0u);
  EXPECT_TRUE(p.warnings.empty()) << p.warnings.front();
}

}  // namespace
}  // namespace gp
