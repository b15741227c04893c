// The trace pass on a real GPU: for chain, fork-join and while (its WHILE body too) in capture
// and graph modes every kernel is attributed to a node of the DOT dump, graph-level tracing gives
// one span per launch, NVTX ranges reach the records, and the Chrome trace is well formed. Exit 77
// without a GPU.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <set>

#include "graphprof/core/atomic_file.hpp"
#include "graphprof/cuda/suite.hpp"
#include "graphprof/report/chrome_trace.hpp"
#include "graphprof/trace/cupti_session.hpp"

namespace gp {
namespace {

using nlohmann::json;

// NVTX must find CUPTI before the first NVTX call of the process, as the CLI arranges.
class TraceEnvironment : public ::testing::Environment {
 public:
  void SetUp() override {
    const std::string lib = nvtx_injection_library();
    if (!lib.empty()) setenv("NVTX_INJECTION64_PATH", lib.c_str(), 0);
  }
  void TearDown() override { trace_shutdown(); }
};
::testing::Environment* const kEnv = ::testing::AddGlobalTestEnvironment(new TraceEnvironment);

struct Traced {
  Report report;
  std::vector<std::pair<std::string, TraceData>> records;  // "workload mode" -> records
  json chrome;
};

constexpr int kReplays = 30;

Traced run_traced(const std::string& workload, const std::map<std::string, std::string>& params, TraceLevel level,
                  std::vector<Mode> modes = {kAllModes.begin(), kAllModes.end()}, bool detach_each = true) {
  Traced t;
  RunRequest req;
  req.workloads = {workload};
  req.params = params;
  req.modes = std::move(modes);
  req.measure.rule.budget_seconds = 0.2;
  req.measure.one_off_samples = 2;
  req.measure.dot_dir = (std::filesystem::temp_directory_path() / ("gp_trace_test_" + workload)).string();
  req.measure.trace.level = level;
  req.measure.trace.iterations = kReplays;
  req.measure.trace.detach_after_each_pass = detach_each;
  // Keeps each trace pass's records and builds the Chrome trace, as graphprof run does.
  struct Keep final : MeasureObserver {
    Traced& t;
    ChromeTraceBuilder chrome;
    explicit Keep(Traced& into) : t(into) {}
    void trace_recorded(const ModeResult& r, const TraceData& d, const NodeJoin& j) override {
      t.records.emplace_back(r.workload + " " + to_string(r.mode), d);
      chrome.add(r.workload + " " + to_string(r.mode), d, &j);
    }
  } keep(t);
  t.report = run_suite(req, {"test"}, &keep);
  t.chrome = keep.chrome.to_json();
  return t;
}

// sections.trace as the report writes it.
json trace_json(const ModeResult& r) { return r.sections.trace ? to_json(*r.sections.trace) : json::object(); }

// Every GPU record of the graph modes' replays sits on a node that the DOT dump has.
void expect_all_attributed(const ModeResult& r, std::size_t expected_nodes) {
  SCOPED_TRACE(r.workload + " " + to_string(r.mode));
  ASSERT_EQ(r.status, Status::kOk) << r.reason;
  ASSERT_TRUE(r.sections.trace.has_value());
  const json t = trace_json(r);
  ASSERT_EQ(t["status"], "ok") << t["reason"];
  EXPECT_EQ(t["level"], "node");
  EXPECT_EQ(t["replays"], kReplays);
  EXPECT_EQ(t["dropped_records"], 0);
  EXPECT_EQ(t["unattributed_records"], 0);
  EXPECT_EQ(t["unassigned_records"], 0);
  EXPECT_EQ(t["join"]["dot_name_mismatches"], 0);
  const std::string how = t["join"]["dot_status"];
  EXPECT_TRUE(how == "same graph" || how == "matched by node position") << how;
  ASSERT_EQ(t["nodes"].size(), expected_nodes);
  const std::string dot = read_file(r.sections.graph.value().dot);
  std::set<std::string> names;
  for (const json& n : t["nodes"]) {
    const std::string name = n["dot_name"];
    names.insert(name);
    EXPECT_NE(dot.find("\"" + name + "\""), std::string::npos) << name << " is not in the dump";
    EXPECT_EQ(n["count"], kReplays) << name;
    EXPECT_GT(n["median_ns"].get<double>(), 0.0) << name;
    EXPECT_LE(n["p10_ns"].get<double>(), n["p90_ns"].get<double>()) << name;
  }
  EXPECT_EQ(names.size(), expected_nodes);
  EXPECT_GT(t["graph_span_median_ns"].get<double>(), 0.0);
  const json& p = t["perturbation"];
  EXPECT_GT(p["traced_gpu_time_per_iter_ns"].get<double>(), 0.0);
  EXPECT_GT(p["untraced_gpu_time_per_iter_ns"].get<double>(), 0.0);
  EXPECT_GT(p["ratio"].get<double>(), 0.0);
  EXPECT_TRUE(p.contains("traced_ci_ns") && p.contains("untraced_ci_ns"));
  EXPECT_TRUE(t["launch_api_check"]["cupti_per_call_median_ns"].is_number());
}

void expect_valid_chrome(const json& doc, int min_kernels) {
  const auto problems = validate_chrome_trace(doc);
  EXPECT_TRUE(problems.empty()) << problems.size() << " problems, first: " << problems.front();
  int kernels = 0, flows = 0;
  for (const json& e : doc["traceEvents"]) {
    if (e["ph"] == "X" && e.value("cat", "") == "kernel") ++kernels;
    if (e["ph"] == "s") ++flows;
  }
  EXPECT_GE(kernels, min_kernels);
  EXPECT_GT(flows, 0);
}

TEST(TracePass, ChainGraphModesAttributeEveryKernelToItsNode) {
  const Traced t = run_traced("chain", {{"kernels", "20"}}, TraceLevel::kNode);
  ASSERT_EQ(t.report.results.size(), 3u);
  const json eager = trace_json(t.report.results[0]);
  ASSERT_EQ(eager["status"], "ok") << eager["reason"];
  EXPECT_TRUE(eager["nodes"].empty());
  ASSERT_EQ(eager["kernels"].size(), 1u);
  EXPECT_EQ(eager["kernels"][0]["name"], "chain_step");
  EXPECT_EQ(eager["kernels"][0]["count"], 20 * kReplays);
  EXPECT_EQ(eager["api"][0]["calls_per_iter"], 20.0);
  for (std::size_t i = 1; i < 3; ++i) {
    expect_all_attributed(t.report.results[i], 20);
    const json nodes = trace_json(t.report.results[i])["nodes"];
    for (const json& n : nodes) EXPECT_EQ(n["name"], "chain_step");
  }
  expect_valid_chrome(t.chrome, 3 * 20 * kReplays);
}

TEST(TracePass, ForkJoinGraphModesAttributeEveryKernelToItsNode) {
  const Traced t = run_traced("fork-join", {{"width", "4"}, {"depth", "3"}}, TraceLevel::kNode,
                              {Mode::kCapture, Mode::kGraph});
  ASSERT_EQ(t.report.results.size(), 2u);
  for (const ModeResult& r : t.report.results) {
    // Kernel nodes: root + width * depth + join; other nodes (events, empty) run no GPU work.
    const json kernels = trace_json(r)["kernels"];
    std::size_t per_replay = 0;
    for (const json& k : kernels) per_replay += k["count"].get<std::size_t>() / kReplays;
    EXPECT_EQ(per_replay, 1u + 4u * 3u + 1u);
    expect_all_attributed(r, per_replay);
  }
  expect_valid_chrome(t.chrome, 2 * 14 * kReplays);
}

TEST(TracePass, TheBodyOfAWhileNodeIsAttributedWithItsTripCount) {
  // tolerance 0: the loop always runs max_steps times, so the trip count is known. CUPTI gives the
  // body's records correlation id 0 and node ids of the parent exec (docs/tracing.md).
  const Traced t = run_traced("while", {{"max_steps", "5"}, {"tolerance", "0"}}, TraceLevel::kNode,
                              {Mode::kCapture, Mode::kGraph});
  ASSERT_EQ(t.report.results.size(), 2u);
  for (const ModeResult& r : t.report.results) {
    SCOPED_TRACE(to_string(r.mode));
    ASSERT_EQ(r.status, Status::kOk) << r.reason;
    EXPECT_EQ(r.sections.workload.at("loop_steps"), 5.0);
    const json tr = trace_json(r);
    ASSERT_EQ(tr["status"], "ok") << tr["reason"];
    EXPECT_EQ(tr["unattributed_records"], 0);
    EXPECT_EQ(tr["unassigned_records"], 0);
    EXPECT_EQ(tr["join"]["dot_name_mismatches"], 0);
    EXPECT_EQ(tr["gpu_records"], kReplays * (1 + 2 * 5));
    ASSERT_EQ(tr["nodes"].size(), 3u);
    for (const json& n : tr["nodes"]) {
      const bool body = n["name"] != "wh_init";
      EXPECT_EQ(n["runs_per_replay"], body ? 5.0 : 1.0) << n["name"];
      EXPECT_EQ(n["count"], kReplays * (body ? 5 : 1)) << n["name"];
      EXPECT_GT(n["per_replay_median_ns"].get<double>(), (body ? 4.0 : 0.9) * n["median_ns"].get<double>()) << n["name"];
    }
  }
  // The Chrome trace names the body's kernels after their nodes too.
  int body = 0, named = 0;
  for (const json& e : t.chrome["traceEvents"])
    if (e["ph"] == "X" && (e.value("name", "") == "wh_relax" || e.value("name", "") == "wh_check")) {
      ++body;
      if (e["args"].contains("dot_node")) ++named;
    }
  EXPECT_GE(body, 2 * kReplays * 10);
  EXPECT_EQ(named, body);
}

TEST(TracePass, GraphLevelGivesOneSpanPerLaunchAndNoNodes) {
  const Traced t = run_traced("chain", {{"kernels", "20"}}, TraceLevel::kGraph, {Mode::kCapture});
  ASSERT_EQ(t.report.results.size(), 1u);
  const json s = trace_json(t.report.results[0]);
  ASSERT_EQ(s["status"], "ok") << s["reason"];
  EXPECT_EQ(s["level"], "graph");
  EXPECT_TRUE(s["nodes"].empty());
  EXPECT_EQ(s["graph_span"]["count"], kReplays);
  EXPECT_GT(s["graph_span_median_ns"].get<double>(), 0.0);
  EXPECT_TRUE(validate_chrome_trace(t.chrome).empty());
}

// Two sessions in a row, with CUPTI detached in between (--trace-detach=each) or kept (end).
class TracePassDetach : public ::testing::TestWithParam<bool> {};

TEST_P(TracePassDetach, EverySessionRecordsKernelsAndNvtxRanges) {
  const Traced t =
      run_traced("chain", {{"kernels", "5"}}, TraceLevel::kNode, {Mode::kEager, Mode::kCapture}, GetParam());
  ASSERT_EQ(t.records.size(), 2u);
  for (const auto& [label, data] : t.records) {
    SCOPED_TRACE(label);
    EXPECT_EQ(data.kernels.size() % 5, 0u);
    EXPECT_GE(data.kernels.size(), 5u * kReplays);
    bool launch_loop = false;
    for (const MarkerRecord& m : data.markers)
      if (m.kind == MarkerRecord::Kind::kStart && m.name == "launch loop (traced)" && m.domain == "graphprof")
        launch_loop = true;
    EXPECT_TRUE(launch_loop) << data.markers.size() << " marker records";
  }
  EXPECT_EQ(trace_json(t.report.results[1])["unattributed_records"], 0);
}
INSTANTIATE_TEST_SUITE_P(DetachEachOrEnd, TracePassDetach, ::testing::Bool());

}  // namespace
}  // namespace gp
