// Every bundled workload in every mode, with small parameters and a tiny time budget: each mode
// runs, its output equals eager's, its metrics and JSON are complete, and the two graph modes
// build the same graph. Runs only where a GPU exists (else exit 77).
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "graphprof/cuda/suite.hpp"

namespace gp {
namespace {

struct Case {
  std::string name;                           // test label
  std::string workload;
  std::map<std::string, std::string> params;  // small sizes: the point is correctness, not timing
  int nodes;                                  // top-level nodes of the captured and the built graph
  int edges;
  // Stream capture can record dependencies the explicit build leaves out: in fork-join the origin
  // stream's last op before the fork also becomes a direct parent of the join (seen on the H200:
  // 17 edges captured vs 16 built for width 4, depth 3).
  int capture_extra_edges = 0;
};

// Node and edge counts follow from the parameters (see docs/workloads.md for each iteration's ops).
const std::vector<Case>& cases() {
  static const std::vector<Case> c = {
      {"chain", "chain", {{"kernels", "20"}, {"elements", "1000"}}, 20, 19},
      {"fork_join", "fork-join", {{"width", "4"}, {"depth", "3"}, {"elements", "1000"}}, 2 + 4 * 3, 4 + 4 * 2 + 4, 1},
      {"decode", "decode", {{"layers", "2"}, {"hidden", "128"}, {"ffn", "256"}, {"batch", "2"}}, 2 + 8 * 2, 17},
      {"stencil", "stencil", {{"size", "64"}, {"sweeps", "6"}, {"norm_every", "2"}}, 6 + 3 * 2, 11},
      {"memcpy", "memcpy", {{"copies", "4"}, {"bytes", "1024"}}, 7 * 4, 27},
      {"memcpy_device_only", "memcpy", {{"copies", "4"}, {"bytes", "1024"}, {"host_copies", "0"}}, 7 * 4, 27},
      {"alloc", "alloc", {{"buffers", "3"}, {"bytes", "65536"}}, 4 * 3, 11},
      {"host", "host", {{"stages", "3"}, {"elements", "256"}}, 4 * 3, 11},
      {"update_setparams", "update", {{"kernels", "8"}, {"elements", "1000"}, {"strategy", "setparams"}}, 8, 7},
      {"update_update", "update", {{"kernels", "8"}, {"elements", "1000"}, {"strategy", "update"}}, 8, 7},
      {"update_reinstantiate", "update", {{"kernels", "8"}, {"elements", "1000"}, {"strategy", "reinstantiate"}}, 8, 7},
      // The WHILE node's body is a separate graph: the top level is the init kernel and the loop.
      {"while", "while", {{"elements", "1000"}}, 2, 1},
      // cudaGraphsPerfScaling's topologies: width chains (+ entry), no join node.
      {"scaling_empty_width4", "scaling", {{"length", "5"}, {"width", "4"}}, 4 * 5, 4 * 4},
      {"scaling_entry_work", "scaling", {{"length", "5"}, {"width", "3"}, {"entry", "1"}, {"work", "1"}}, 1 + 3 * 5,
       3 * 4 + 3},
      {"scaling_chain_work", "scaling", {{"length", "7"}, {"work", "1"}}, 7, 6},
      // The host graph is the launcher kernel alone; the work graph is launched from the device.
      {"device_launch_fire_and_forget", "device-launch", {{"kernels", "4"}, {"launches", "5"}, {"elements", "1000"}}, 1, 0},
      {"device_launch_tail", "device-launch",
       {{"kernels", "4"}, {"launches", "5"}, {"elements", "1000"}, {"via", "tail"}}, 1, 0},
      // One rank: NCCL decides what an all-reduce of one rank records (on the H200, NCCL 2.28:
      // nothing), so only the explicit graph's shape is fixed (nodes -1 for capture): 2 steps x
      // (2 kernel nodes + 1 child-graph node holding the captured all-reduce), in a chain.
      {"allreduce_one_rank", "allreduce", {{"bytes", "4096"}, {"kernels", "2"}, {"steps", "2"}}, -1, -1},
  };
  return c;
}

RunRequest quick(const Case& c) {
  RunRequest req;
  req.workloads = {c.workload};
  req.params = c.params;
  req.measure.rule.budget_seconds = 0.05;
  req.measure.rule.min_samples = 5;
  req.measure.warmup_iterations = 2;
  req.measure.warmup_seconds = 0.0;
  req.measure.one_off_samples = 1;
  return req;
}

double med(const ModeResult& r, const char* k) { return r.metrics.at(k).summary.median; }

double workload_figure(const ModeResult& r, const char* k) {
  const auto it = r.sections.workload.find(k);
  return it == r.sections.workload.end() ? std::nan("") : it->second;
}

TEST(Workloads, EveryBundledWorkloadIsCovered) {
  std::set<std::string> tested;
  for (const auto& c : cases()) tested.insert(c.workload);
  for (const auto& e : registered_workloads()) EXPECT_TRUE(tested.count(e.info.name)) << e.info.name << " has no case";
}

class WorkloadModes : public ::testing::TestWithParam<Case> {};

TEST_P(WorkloadModes, AllModesRunAgreeAndReportCompletely) {
  const Case& c = GetParam();
  if (find_workload(c.workload) == nullptr) GTEST_SKIP() << c.workload << " is not built here (optional dependency)";
  const Report rep = run_suite(quick(c), {"workloads_test", c.name}, nullptr);
  ASSERT_EQ(rep.results.size(), 3u);
  const ModeResult& eager = rep.results[0];
  ASSERT_EQ(eager.mode, Mode::kEager);
  for (const ModeResult& r : rep.results) {
    SCOPED_TRACE(r.mode);
    // No bundled workload declares a mode unsupported; a failure names the call that failed.
    ASSERT_EQ(r.status, Status::kOk) << r.reason << (r.failure ? " | " + r.failure->message : std::string());
    EXPECT_FALSE(r.checksum.empty());
    EXPECT_EQ(r.checksum, eager.checksum) << "output differs from eager";
    ASSERT_TRUE(r.checksum_matches_eager.has_value());
    EXPECT_TRUE(*r.checksum_matches_eager);
    for (const char* k : {"gpu_time_per_iter", "wall_time_per_iter", "launch_cpu_per_call", "launch_cpu_per_iter",
                          "launch_cpu_isolated"}) {
      ASSERT_TRUE(r.metrics.count(k)) << k;
      EXPECT_GT(med(r, k), 0) << k;
    }
    EXPECT_GE(r.derived.at("launch_calls_per_iter"), 1.0);
  }
  // The captured and the explicitly built graph of an iteration have the same shape.
  for (std::size_t i = 1; i < 3; ++i) {
    const ModeResult& g = rep.results[i];
    SCOPED_TRACE(g.mode);
    ASSERT_TRUE(g.sections.graph.has_value());
    if (c.nodes < 0) {
      // The kernels are top-level nodes in both graphs; the explicit one adds a child-graph node
      // per all-reduce (the allreduce workload: steps x (kernels + 1) nodes in a chain).
      const int steps = std::stoi(c.params.at("steps")), kernels = std::stoi(c.params.at("kernels"));
      if (g.mode == Mode::kGraph) {
        EXPECT_EQ(g.sections.graph->nodes, steps * (kernels + 1));
        EXPECT_EQ(g.sections.graph->edges, steps * (kernels + 1) - 1);
      } else {
        EXPECT_GE(g.sections.graph->nodes, steps * kernels);
      }
    } else {
      EXPECT_EQ(g.sections.graph->nodes, c.nodes);
      EXPECT_EQ(g.sections.graph->edges, c.edges + (g.mode == Mode::kCapture ? c.capture_extra_edges : 0));
    }
    for (const char* k : {"instantiate_time", "upload_time", "first_launch_time"}) EXPECT_TRUE(g.metrics.count(k)) << k;
  }
  EXPECT_TRUE(rep.results[1].metrics.count("capture_time"));
  EXPECT_TRUE(rep.results[2].metrics.count("build_time"));

  // The JSON carries every result with its checksum and metrics, and reads back unchanged.
  const nlohmann::json j = to_json(rep);
  ASSERT_EQ(j["results"].size(), 3u);
  for (const auto& r : j["results"]) {
    for (const char* k : {"workload", "mode", "params", "status", "metrics", "derived", "checksum", "sections"})
      EXPECT_TRUE(r.contains(k)) << k;
    EXPECT_EQ(r["workload"], c.workload);
    for (const auto& [k, v] : c.params) EXPECT_EQ(r["params"].value(k, std::string()), v) << "param " << k;
  }
  EXPECT_EQ(to_json(report_from_json(j, "memory")).dump(), j.dump());
}

INSTANTIATE_TEST_SUITE_P(Bundled, WorkloadModes, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<Case>& info) { return info.param.name; });

// Workload-specific facts beyond "all modes agree".

const Case& case_named(const std::string& name) {
  for (const auto& c : cases())
    if (c.name == name) return c;
  throw std::logic_error("no test case " + name);
}

TEST(WorkloadFacts, SetParamsCostsOneCallPerKernelNode) {
  // setparams: one cudaGraphExecKernelNodeSetParams per kernel node, then the launch.
  const Case& c = case_named("update_setparams");
  const Report rep = run_suite(quick(c), {"workloads_test"}, nullptr);
  ASSERT_EQ(rep.results.size(), 3u);
  EXPECT_DOUBLE_EQ(rep.results[0].derived.at("launch_calls_per_iter"), 8.0);
  for (std::size_t i = 1; i < 3; ++i) EXPECT_DOUBLE_EQ(rep.results[i].derived.at("launch_calls_per_iter"), 9.0);
}

TEST(WorkloadFacts, WhileLoopRunsOnTheDeviceInGraphModes) {
  const Case& c = case_named("while");
  const Report rep = run_suite(quick(c), {"workloads_test"}, nullptr);
  ASSERT_EQ(rep.results.size(), 3u);
  const double steps = workload_figure(rep.results[0], "loop_steps");
  EXPECT_GT(steps, 5.0) << "the loop should take several steps with the default tolerance";
  EXPECT_LT(steps, 1000.0) << "the loop should converge before the step cap";
  for (const auto& r : rep.results) EXPECT_EQ(workload_figure(r, "loop_steps"), steps) << r.mode;
  // Eager: init + (relax, check, flag copy) per step. Graph modes: one cudaGraphLaunch.
  EXPECT_DOUBLE_EQ(rep.results[0].derived.at("launch_calls_per_iter"), 1.0 + 3.0 * steps);
  for (std::size_t i = 1; i < 3; ++i) EXPECT_DOUBLE_EQ(rep.results[i].derived.at("launch_calls_per_iter"), 1.0);
}

TEST(WorkloadFacts, DeviceLaunchTakesOneHostCallPerIteration) {
  for (const char* name : {"device_launch_fire_and_forget", "device_launch_tail"}) {
    SCOPED_TRACE(name);
    const Case& c = case_named(name);
    const Report rep = run_suite(quick(c), {"workloads_test"}, nullptr);
    ASSERT_EQ(rep.results.size(), 3u);
    // Eager launches the work graph from the host 5 times; the graph modes make one host call and
    // the device does the 5 launches (the digest, equal in all modes, shows the 5 runs happened).
    EXPECT_DOUBLE_EQ(rep.results[0].derived.at("launch_calls_per_iter"), 5.0);
    for (std::size_t i = 1; i < 3; ++i) EXPECT_DOUBLE_EQ(rep.results[i].derived.at("launch_calls_per_iter"), 1.0);
    for (const auto& r : rep.results) {
      EXPECT_EQ(workload_figure(r, "work_graph_nodes"), 5.0) << r.mode;
      EXPECT_EQ(workload_figure(r, "work_graph_runs_per_iter"), 5.0) << r.mode;
    }
  }
}

TEST(WorkloadFacts, ScalingEagerIssuesTheSamplesCalls) {
  // Kernels, the fork record, a wait per extra stream, a record + wait per extra stream to join.
  const Case& c = case_named("scaling_entry_work");
  const Report rep = run_suite(quick(c), {"workloads_test"}, nullptr);
  ASSERT_EQ(rep.results.size(), 3u);
  EXPECT_DOUBLE_EQ(rep.results[0].derived.at("launch_calls_per_iter"), 1 + 3 * 5 + 1 + 2 + 2 * 2);
}

TEST(WorkloadFacts, AllocReportsGraphAndPoolMemoryPerMode) {
  const Case& c = case_named("alloc");
  const Report rep = run_suite(quick(c), {"workloads_test"}, nullptr);
  ASSERT_EQ(rep.results.size(), 3u);
  const double bytes = 65536;
  for (const auto& r : rep.results) {
    SCOPED_TRACE(r.mode);
    for (const char* k : {"allocated_bytes_per_iter", "graph_mem_used_current_bytes", "graph_mem_used_high_bytes",
                          "graph_mem_reserved_current_bytes", "graph_mem_reserved_high_bytes", "pool_used_high_bytes",
                          "pool_reserved_current_bytes", "pool_reserved_high_bytes", "device_mem_delta_bytes"})
      EXPECT_TRUE(std::isfinite(workload_figure(r, k))) << k;
    EXPECT_DOUBLE_EQ(workload_figure(r, "allocated_bytes_per_iter"), 3 * bytes);
  }
  // Eager allocates from the default pool; the graph modes from the graph memory pool, which the
  // live exec keeps reserved.
  EXPECT_GE(workload_figure(rep.results[0], "pool_used_high_bytes"), bytes);
  EXPECT_EQ(workload_figure(rep.results[0], "graph_mem_used_high_bytes"), 0.0);
  for (std::size_t i = 1; i < 3; ++i) {
    SCOPED_TRACE(rep.results[i].mode);
    EXPECT_GE(workload_figure(rep.results[i], "graph_mem_used_high_bytes"), bytes);
    EXPECT_GE(workload_figure(rep.results[i], "graph_mem_reserved_current_bytes"), bytes);
  }
}

TEST(WorkloadFacts, BadParametersAreUsageErrors) {
  for (const auto& [workload, key, value] :
       std::vector<std::tuple<std::string, std::string, std::string>>{{"stencil", "sweeps", "7"},
                                                                    {"update", "strategy", "sometimes"},
                                                                    {"memcpy", "bytes", "1023"},
                                                                    {"device-launch", "via", "sideways"}}) {
    RunRequest req;
    req.workloads = {workload};
    req.params = {{key, value}};
    req.modes = {Mode::kEager};
    try {
      (void)run_suite(req, {"workloads_test"}, nullptr);
      ADD_FAILURE() << workload << " accepted --param " << key << "=" << value;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ExitCode::kUsage) << e.what();
      EXPECT_NE(std::string(e.what()).find("--param " + key + "=" + value), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace gp
