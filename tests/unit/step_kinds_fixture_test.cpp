// Steps by kind on the H100 records of tests/apps/python/serving_gate.py (tests/data/profile/h100/
// README.md): the counts against the program's own (it printed them), the eager steps' shapes at
// --trace node, PyTorch 2.11's own log of a skipped function, and the console section's goldens.
#include <gtest/gtest.h>

#include <sstream>

#include "graphprof/core/step_kinds.hpp"
#include "graphprof/profile/framework_logs.hpp"
#include "graphprof/profile/profile.hpp"
#include "graphprof/report/html_report.hpp"
#include "../../src/report/profile_steps_text.hpp"
#include "golden.hpp"

namespace gp {
namespace {

const std::string kStepKindsData = std::string(GRAPHPROF_TEST_DATA) + "/profile/h100/";
const std::string kGolden = std::string(GRAPHPROF_TEST_DATA) + "/golden/";

ProcessProfile profile_of(const std::string& file) { return analyze_process(read_process_records(kStepKindsData + file)); }

std::size_t steps_of(const StepKinds& s, const std::string& kind) {
  for (const StepKind& k : s.kinds)
    if (k.name() == kind) return k.steps;
  return 0;
}

std::string section_text(const ProcessProfile& p) {
  std::ostringstream out;
  step_kinds_text(out, profile_process_from_json(profile_process_json(p, 1)), false);
  return out.str();
}

// serving_gate.py --variant as-is printed: 400 steps: 310 graph steps, 90 eager steps (90 above the
// largest bucket, 0 at a captured size); replays {1: 6, 2: 11, 4: 18, 8: 46, 16: 84, 32: 145}. Its
// buckets were captured largest first: graph_1 is bucket 32, graph_16 bucket 1.
TEST(StepKindsFixture, ServingLoopAsIsCountsMatchTheProgramsOwn) {
  const ProcessProfile p = profile_of("serving_gate_asis/proc-3676.jsonl");
  ASSERT_TRUE(p.step_kinds);
  const StepKinds& s = *p.step_kinds;
  EXPECT_EQ(s.from, "sync");
  EXPECT_EQ(s.steps, 400u);
  EXPECT_EQ(s.eager_steps(), 90u);
  EXPECT_EQ(steps_of(s, "graph_1"), 145u);
  EXPECT_EQ(steps_of(s, "graph_4"), 84u);
  EXPECT_EQ(steps_of(s, "graph_7"), 46u);
  EXPECT_EQ(steps_of(s, "graph_10"), 18u);
  EXPECT_EQ(steps_of(s, "graph_13"), 11u);
  EXPECT_EQ(steps_of(s, "graph_16"), 6u);
  EXPECT_EQ(s.eager_where, "serving_gate.py:91 in serve");  // out = model(requests[:n])
  std::size_t in_strip = 0;
  for (const auto& [kind, n] : s.strip) in_strip += n;
  EXPECT_EQ(in_strip, 400u);
  // The default level records no kernel shapes: one group, and the note says what would.
  ASSERT_EQ(s.clusters.size(), 1u);
  EXPECT_EQ(s.clusters[0].verdict, "not_recorded");
  EXPECT_EQ(s.clusters[0].steps, 90u);
  expect_golden_file(kGolden + "profile_steps_serving_gate_asis.txt", section_text(p));
}

// --variant dispatch-bug printed: 299 graph steps, 101 eager steps (90 above the largest bucket, 11
// at a captured size); replays {1: 6, 2: 11, 4: 18, 8: 35, 16: 84, 32: 145}.
TEST(StepKindsFixture, ServingLoopWithTheDispatchBugCountsMatchTheProgramsOwn) {
  const ProcessProfile p = profile_of("serving_gate_dispatch/proc-3706.jsonl");
  ASSERT_TRUE(p.step_kinds);
  const StepKinds& s = *p.step_kinds;
  EXPECT_EQ(s.steps, 400u);
  EXPECT_EQ(s.eager_steps(), 101u);
  EXPECT_EQ(steps_of(s, "graph_7"), 35u);
  EXPECT_EQ(steps_of(s, "graph_1"), 145u);
  expect_golden_file(kGolden + "profile_steps_serving_gate_dispatch.txt", section_text(p));
}

// The same at --trace node, its first 60 steps: the eager steps' kernels and grids tell the sizes
// above bucket 32 (larger grids than graph_1's) from the size-8 requests the dispatch sent eagerly
// (graph_7's kernels and grids exactly).
TEST(StepKindsFixture, KernelShapesTellTheMissingBucketFromTheDispatchBug) {
  const ProcessProfile p = profile_of("serving_gate_dispatch_node/proc-3740.jsonl");
  ASSERT_TRUE(p.step_kinds);
  const StepKinds& s = *p.step_kinds;
  EXPECT_EQ(s.steps, 60u);
  ASSERT_EQ(s.clusters.size(), 2u);
  EXPECT_EQ(s.clusters[0].verdict, "larger_than_graphs");
  EXPECT_EQ(s.clusters[0].graph, 1u);
  EXPECT_TRUE(s.clusters[0].largest);
  EXPECT_EQ(s.clusters[1].verdict, "matches_graph");
  EXPECT_EQ(s.clusters[1].graph, 7u);
  EXPECT_EQ(s.clusters[0].steps + s.clusters[1].steps, s.eager_steps());
  ASSERT_EQ(s.plan_clusters.size(), 2u);
  EXPECT_EQ(s.plan_clusters[0].verdict, "capture");
  EXPECT_EQ(s.plan_clusters[1].verdict, "fix the dispatch");
  // Eager GPU time is known at this level: every kind has a GPU time per step.
  for (const StepKind& k : s.kinds) EXPECT_TRUE(k.gpu_ns()) << k.name();
  expect_golden_file(kGolden + "profile_steps_serving_gate_dispatch_node.txt", section_text(p));
  // The page: the answer, the strip of steps by kind, the shapes and the plan.
  ProfileRun run;
  run.program = "serving_gate.py";
  const std::string page = render_html_report(profile_report(run, {p}));
  EXPECT_NE(page.find("id=\"steps-strip-p1\""), std::string::npos);
  EXPECT_NE(page.find("ran without a graph at serving_gate.py:91 in serve"), std::string::npos);
  EXPECT_NE(page.find("match graph_7 but ran eagerly"), std::string::npos);
  EXPECT_NE(page.find("id=\"list-plan-p1\""), std::string::npos);
}

// PyTorch 2.11's log (TORCH_LOGS_OUT) of tests/apps/python/compile_skip.py: the skip reason, its
// lines each with the header repeated, among the artifacts' other lines (34 lines; lines of one
// header, the same millisecond and logging line, are one record: 25).
TEST(StepKindsFixture, PyTorchsOwnSkipReasonIsRead) {
  const FrameworkLog log = read_torch_log(kStepKindsData + "compile_skip/torch-logs.txt");
  EXPECT_EQ(log.records, 25u);
  ASSERT_EQ(log.entries.size(), 1u);
  const FrameworkLogEntry& e = log.entries[0];
  EXPECT_EQ(e.pid, 3776);
  EXPECT_EQ(e.kind, "skip");
  EXPECT_EQ(e.reason, "mutated inputs (1 instances)");
  EXPECT_EQ(e.file.substr(e.file.rfind('/') + 1), "compile_skip.py");
  EXPECT_EQ(e.line, 42);
  EXPECT_EQ(e.function, "update_cache");
}

}  // namespace
}  // namespace gp
