// Graph analysis on the H200 dumps: depth, width, critical path, histograms and findings are
// what the workloads' shapes imply; per-node times from a (synthetic) run report give the timed
// critical path, with child graphs and conditional bodies weighed in.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "graphprof/core/error.hpp"
#include "graphprof/graph/graph_analysis.hpp"
#include "graphprof/report/graph_analysis_text.hpp"
#include "graphprof/core/report.hpp"
#include "unit_test_helpers.hpp"

namespace gp {
namespace {

namespace fs = std::filesystem;


GraphMetrics analyze_fixture(const std::string& name, const NodeTimes* t = nullptr) {
  return analyze(load_dot(test::dot_fixture(name)), t);
}

const Finding* finding(const GraphMetrics& m, const std::string& id) {
  for (const auto& f : m.findings)
    if (f.id == id) return &f;
  return nullptr;
}

std::vector<std::string> ids(const GraphMetrics& m) {
  std::vector<std::string> v;
  for (const auto& f : m.findings) v.push_back(f.id);
  return v;
}

// A dump in the driver's default form, built in memory: `edges` over nodes 0..n-1 of graph 1.
std::string synthetic_dump(std::size_t n, const std::vector<std::pair<std::size_t, std::size_t>>& edges,
                           const std::string& word = "_Z6tiny_kPfi") {
  std::string s = "digraph dot {\nsubgraph cluster_1 {\nlabel=\"graph_1\" graph[style=\"dashed\"];\n";
  for (std::size_t i = 0; i < n; ++i)
    s += "\"graph_1_node_" + std::to_string(i) + "\"[style=\"bold\" shape=\"" +
         (word.rfind("_Z", 0) == 0 ? "octagon" : "rectangle") + "\" label=\"" + std::to_string(i) + "\n" + word +
         "\n\"];\n\n";
  for (const auto& [a, b] : edges)
    s += "\"graph_1_node_" + std::to_string(a) + "\" -> \"graph_1_node_" + std::to_string(b) + "\";\n";
  return s + "}\n}\n";
}

TEST(GraphAnalysis, ChainOfTinyKernels) {
  const GraphMetrics m = analyze_fixture("chain100_capture_verbose.dot");
  EXPECT_EQ(m.node_count, 100u);
  EXPECT_EQ(m.edge_count, 99u);
  EXPECT_EQ(m.nodes_by_kind, (std::map<std::string, std::size_t>{{"kernel", 100}}));
  EXPECT_EQ(m.edges_by_kind, (std::map<std::string, std::size_t>{{"kernel->kernel", 99}}));
  EXPECT_EQ(m.depth, 100u);
  EXPECT_EQ(m.width_per_level, std::vector<std::size_t>(100, 1));
  EXPECT_EQ(m.max_parallelism, 1u);
  EXPECT_EQ(m.roots, 1u);
  EXPECT_EQ(m.leaves, 1u);
  ASSERT_EQ(m.critical_path.names.size(), 100u);
  EXPECT_EQ(m.critical_path.names.front(), "graph_13_node_0");
  EXPECT_EQ(m.critical_path.names.back(), "graph_13_node_99");
  ASSERT_EQ(m.kernels.size(), 1u);
  EXPECT_EQ(m.kernels[0].short_name, "chain_step");
  EXPECT_EQ(m.kernels[0].count, 100u);
  EXPECT_EQ(m.kernels[0].launch_configs, (std::map<std::string, std::size_t>{{"16,256,0", 100}}));
  EXPECT_EQ(ids(m), (std::vector<std::string>{"tiny_kernel_chain", "straight_line"}));
  const Finding* f = finding(m, "tiny_kernel_chain");
  EXPECT_EQ(f->severity, "warning");
  EXPECT_NE(f->evidence.find("100 kernels in a row"), std::string::npos) << f->evidence;
  EXPECT_NE(f->evidence.find("16 blocks x 256 threads"), std::string::npos) << f->evidence;
  EXPECT_EQ(f->nodes, (std::vector<std::string>{"graph_13_node_0", "graph_13_node_99"}));
  EXPECT_FALSE(m.timed_critical_path.has_value());
}

TEST(GraphAnalysis, DefaultDumpCannotTellTinyFromBig) {
  const GraphMetrics m = analyze_fixture("chain100_capture.dot");
  EXPECT_EQ(finding(m, "tiny_kernel_chain"), nullptr);
  ASSERT_NE(finding(m, "long_kernel_chain"), nullptr);
  EXPECT_EQ(finding(m, "long_kernel_chain")->severity, "info");
  EXPECT_EQ(m.kernels[0].launch_configs, (std::map<std::string, std::size_t>{{"unknown", 100}}));
}

TEST(GraphAnalysis, DecodeStepIsMostlyTinyKernels) {
  const GraphMetrics m = analyze_fixture("decode_graph_verbose.dot");
  EXPECT_EQ(m.depth, 130u);
  const Finding* f = finding(m, "tiny_kernel_chain");
  ASSERT_NE(f, nullptr);
  // 16 of the 48 matvecs are 256 x 256 threads, above the tiny limit; the other 114 are small.
  EXPECT_NE(f->evidence.find("114 of them small"), std::string::npos) << f->evidence;
  std::map<std::string, std::size_t> counts;
  for (const auto& k : m.kernels) counts[k.short_name] = k.count;
  EXPECT_EQ(counts, (std::map<std::string, std::size_t>{{"dec_embed", 1}, {"dec_matvec", 48}, {"dec_residual_add", 32},
                                                        {"dec_rmsnorm", 33}, {"dec_silu_mul", 16}}));
  EXPECT_EQ(m.kernels[0].short_name, "dec_matvec");  // by count
}

TEST(GraphAnalysis, ForkJoinWidthDepthAndCriticalPath) {
  for (const char* f : {"fork-join_capture_verbose.dot", "fork-join_graph.dot"}) {
    const GraphMetrics m = analyze_fixture(f);
    EXPECT_EQ(m.depth, 10u) << f;
    std::vector<std::size_t> w(10, 8);
    w.front() = w.back() = 1;
    EXPECT_EQ(m.width_per_level, w) << f;
    EXPECT_EQ(m.max_parallelism, 8u) << f;
    EXPECT_EQ(m.roots, 1u);
    EXPECT_EQ(m.leaves, 1u);
    // Ties go to the earliest node: the first branch.
    const std::string g = std::string(f).find("capture") != std::string::npos ? "graph_103" : "graph_118";
    std::vector<std::string> path{g + "_node_0"};
    for (int i = 1; i <= 8; ++i) path.push_back(g + "_node_" + std::to_string(i));
    path.push_back(g + "_node_65");
    EXPECT_EQ(m.critical_path.names, path) << f;
    EXPECT_EQ(finding(m, "straight_line"), nullptr);
    EXPECT_EQ(finding(m, "wide_fanout"), nullptr) << "9 successors is not wide";
  }
}

TEST(GraphAnalysis, CopiesMemsetsAllocationsAndHostNodes) {
  const GraphMetrics mc = analyze_fixture("memcpy_graph_verbose.dot");
  ASSERT_EQ(mc.memcpy.size(), 3u);
  for (const auto& c : mc.memcpy) {
    EXPECT_EQ(c.count, 16u) << c.direction;
    EXPECT_EQ(c.bytes, 16u * 4096u) << c.direction;
  }
  EXPECT_EQ(mc.memcpy[0].direction, "DtoD");
  EXPECT_EQ(mc.memset_count, 16u);
  EXPECT_EQ(mc.memset_bytes, 16u * 4096u);
  ASSERT_NE(finding(mc, "many_small_copies"), nullptr);
  EXPECT_NE(finding(mc, "many_small_copies")->evidence.find("48 memcpy nodes"), std::string::npos);
  ASSERT_NE(finding(mc, "memset_next_to_kernel"), nullptr);
  EXPECT_EQ(finding(mc, "memset_next_to_kernel")->severity, "warning");

  const GraphMetrics al = analyze_fixture("alloc_graph_verbose.dot");
  EXPECT_EQ(al.alloc_count, 4u);
  EXPECT_EQ(al.alloc_bytes, 4u * 1048576u);

  const GraphMetrics h = analyze_fixture("host_graph_verbose.dot");
  const Finding* f = finding(h, "host_node_serializes");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, "warning");
  EXPECT_NE(f->evidence.find("8 host nodes"), std::string::npos) << f->evidence;
  // The first host node is node 2 of a 32-node chain: 2 nodes before it, 29 after.
  EXPECT_NE(f->evidence.find("graph_148_node_2 waits for 2 nodes and holds back 29"), std::string::npos)
      << f->evidence;
  // Warnings come before infos.
  EXPECT_EQ(h.findings.back().id, "straight_line");
}

TEST(GraphAnalysis, WhileBodyIsItsOwnGraph) {
  const GraphMetrics m = analyze_fixture("while_graph_verbose.dot");
  EXPECT_EQ(m.node_count, 4u);
  EXPECT_EQ(m.top_level_graphs, std::vector<gp::GraphId>{295});
  EXPECT_EQ(m.depth, 2u);
  ASSERT_EQ(m.graphs.size(), 2u);
  EXPECT_EQ(m.graphs[1].graph_id, 296);
  EXPECT_EQ(m.graphs[1].parent, "graph_295_node_1");
  EXPECT_EQ(m.graphs[1].nodes, 2u);
  EXPECT_EQ(m.graphs[1].depth, 2u);
  EXPECT_EQ(m.nodes_by_kind, (std::map<std::string, std::size_t>{{"conditional", 1}, {"kernel", 3}}));
  EXPECT_EQ(m.critical_path.names, (std::vector<std::string>{"graph_295_node_0", "graph_295_node_1"}));
  EXPECT_TRUE(m.findings.empty()) << m.findings.front().id;
}

TEST(GraphAnalysis, TimedCriticalPathFollowsTheSlowestBranch) {
  NodeTimes t;
  t.origin = "test";
  // fork-join: branch b (0..7) holds nodes 1+8b .. 8+8b; branch b's kernels take (b+1) us.
  t.by_node["graph_118_node_0"] = {500, 0, 0, 10};
  t.by_node["graph_118_node_65"] = {500, 0, 0, 10};
  for (int b = 0; b < 8; ++b)
    for (int k = 1; k <= 8; ++k) t.by_node["graph_118_node_" + std::to_string(8 * b + k)] = {1000.0 * (b + 1), 0, 0, 10};
  const GraphMetrics m = analyze_fixture("fork-join_graph_verbose.dot", &t);
  ASSERT_TRUE(m.timed_critical_path.has_value());
  const CriticalPath& p = *m.timed_critical_path;
  EXPECT_DOUBLE_EQ(p.time_ns, 500 + 8 * 8000 + 500);
  EXPECT_DOUBLE_EQ(p.serial_time_ns, 1000 + 8 * 1000 * 36);
  ASSERT_EQ(p.names.size(), 10u);
  EXPECT_EQ(p.names[0], "graph_118_node_0");
  EXPECT_EQ(p.names[1], "graph_118_node_57");
  EXPECT_EQ(p.names[8], "graph_118_node_64");
  EXPECT_EQ(p.names[9], "graph_118_node_65");
  EXPECT_EQ(m.timed_nodes, 66u);
  EXPECT_EQ(m.untimed_gpu_nodes, 0u);
  ASSERT_NE(finding(m, "parallel_work"), nullptr);
  ASSERT_NE(finding(m, "dominant_kernel"), nullptr);
  EXPECT_NE(finding(m, "dominant_kernel")->evidence.find("fj_step"), std::string::npos);
  // Kernel time per name: 8 x 8 kernels of 1..8 us.
  for (const auto& k : m.kernels)
    if (k.short_name == "fj_step") EXPECT_DOUBLE_EQ(k.time_ns, 8 * 1000.0 * 36);
  // The chains are 8 kernels of 1-8 us each: tiny by time.
  EXPECT_NE(finding(m, "tiny_kernel_chain"), nullptr);
}

TEST(GraphAnalysis, TimesThatMatchNothingAreReported) {
  NodeTimes t;
  t.origin = "other.json: x capture";
  t.by_node["graph_999_node_0"] = {100, 0, 0, 1};
  const GraphMetrics m = analyze_fixture("while_graph.dot", &t);
  EXPECT_EQ(m.timed_nodes, 0u);
  EXPECT_EQ(m.untimed_gpu_nodes, 3u);
  ASSERT_NE(finding(m, "no_node_times"), nullptr);
}

TEST(GraphAnalysis, ChildGraphsAndConditionalsWeighTheirBodies) {
  // graph_1: k0 -> child(graph_2) -> IF(graph_3 | graph_4) -> k3; bodies: graph_2 = a -> b,
  // graph_3 = one memcpy, graph_4 = one kernel.
  const std::string text = R"(digraph dot {
subgraph cluster_1 {
label="graph_1";
"graph_1_node_0"[shape="octagon" style="bold" label="0
_Z2k0v
"];
"graph_1_node_1"[shape="rectangle" label="1
graph_2
"];
"graph_1_node_2"[shape="record" style="bold" label="{
CONDITIONAL
| {ID | 2}
| {Conditional Type| IF}
| {True | graph_3}
| {False| graph_4}
}
"];
"graph_1_node_3"[shape="octagon" style="bold" label="3
_Z2k3v
"];
"graph_1_node_0" -> "graph_1_node_1";
"graph_1_node_1" -> "graph_1_node_2";
"graph_1_node_2" -> "graph_1_node_3";
}
subgraph cluster_2 {
label="graph_2";
"graph_2_node_0"[shape="octagon" style="bold" label="0
_Z1av
"];
"graph_2_node_1"[shape="octagon" style="bold" label="1
_Z1bv
"];
"graph_2_node_0" -> "graph_2_node_1";
}
subgraph cluster_3 {
label="graph_3";
"graph_3_node_0"[shape="trapezium" label="0
MEMCPY
(DtoD,4096)
"];
}
subgraph cluster_4 {
label="graph_4";
"graph_4_node_0"[shape="octagon" style="bold" label="0
_Z1cv
"];
}
}
)";
  const GraphModel model = load_dot_text(text, "nested.dot");
  NodeTimes t;
  t.by_node = {{"graph_1_node_0", {100, 0, 0, 1}}, {"graph_1_node_3", {100, 0, 0, 1}},
               {"graph_2_node_0", {1000, 0, 0, 1}}, {"graph_2_node_1", {2000, 0, 0, 1}},
               {"graph_3_node_0", {500, 0, 0, 1}}, {"graph_4_node_0", {700, 0, 0, 1}}};
  const GraphMetrics m = analyze(model, &t);
  EXPECT_EQ(m.top_level_graphs, std::vector<gp::GraphId>{1});
  EXPECT_EQ(m.depth, 4u);
  ASSERT_TRUE(m.timed_critical_path);
  // 100 + child (1000 + 2000) + IF (longer branch: 700) + 100
  EXPECT_DOUBLE_EQ(m.timed_critical_path->time_ns, 3900);
  EXPECT_DOUBLE_EQ(m.timed_critical_path->serial_time_ns, 3900);
  EXPECT_EQ(m.timed_critical_path->names.size(), 4u);
  ASSERT_EQ(m.graphs.size(), 4u);
  EXPECT_EQ(m.graphs[1].parent, "graph_1_node_1");
  EXPECT_EQ(m.graphs[2].parent, "graph_1_node_2");
  EXPECT_EQ(m.graphs[3].parent, "graph_1_node_2");
}

TEST(GraphAnalysis, SizeAndWidthFindings) {
  // 1 root fanning out to 20 leaves: wide.
  std::vector<std::pair<std::size_t, std::size_t>> fan;
  for (std::size_t i = 1; i <= 20; ++i) fan.emplace_back(0, i);
  const GraphMetrics w = analyze(load_dot_text(synthetic_dump(21, fan), "fan.dot"));
  ASSERT_NE(finding(w, "wide_fanout"), nullptr);
  EXPECT_NE(finding(w, "wide_fanout")->evidence.find("fans out to 20 nodes"), std::string::npos);
  EXPECT_EQ(w.max_parallelism, 20u);
  EXPECT_EQ(w.leaves, 20u);

  // 20 roots: wide at the root.
  std::vector<std::pair<std::size_t, std::size_t>> in;
  for (std::size_t i = 0; i < 20; ++i) in.emplace_back(i, 20);
  const GraphMetrics r = analyze(load_dot_text(synthetic_dump(21, in), "roots.dot"));
  ASSERT_NE(finding(r, "wide_fanout"), nullptr);
  EXPECT_EQ(finding(r, "wide_fanout")->title, "Wide fan-out at the root");

  // 1 200 empty nodes in a chain: large, many empties.
  std::vector<std::pair<std::size_t, std::size_t>> chain;
  for (std::size_t i = 0; i + 1 < 1200; ++i) chain.emplace_back(i, i + 1);
  const GraphModel big = load_dot_text(synthetic_dump(1200, chain, "EMPTY"), "big.dot");
  const GraphMetrics b = analyze(big);
  ASSERT_NE(finding(b, "large_graph_instantiation"), nullptr);
  EXPECT_EQ(finding(b, "large_graph_instantiation")->severity, "info");
  EXPECT_NE(finding(b, "many_empty_nodes"), nullptr);
  // With a measured instantiation worth 50 replays it becomes a warning that says so.
  NodeTimes t;
  t.instantiate_ns = 5e6;
  t.gpu_time_per_iter_ns = 1e5;
  const GraphMetrics bt = analyze(big, &t);
  const Finding* f = finding(bt, "large_graph_instantiation");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, "warning");
  EXPECT_NE(f->evidence.find("as much as 50 replays"), std::string::npos) << f->evidence;
  // A 2-node graph instantiated in 100 us and replayed in 2 us is slow to instantiate, not large.
  const GraphModel two = load_dot_text(synthetic_dump(2, {{0, 1}}), "two.dot");
  NodeTimes small;
  small.instantiate_ns = 1e5;
  small.gpu_time_per_iter_ns = 2e3;
  const GraphMetrics tm = analyze(two, &small);
  const Finding* s = finding(tm, "large_graph_instantiation");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->title.find("Large graph"), std::string::npos) << s->title;
  EXPECT_EQ(s->title, "Instantiation costs as much as 50 replays");
  EXPECT_EQ(s->advice.find("node count"), std::string::npos) << s->advice;
}

// ---- joining a run report ---------------------------------------------------------------------

Report report_with_times() {
  Report r;
  for (const char* mode : {"capture", "graph"}) {
    ModeResult m;
    m.workload = "fork-join";
    m.mode = mode_from_string(mode).value();
    m.params = {{"branches", "8"}};
    const std::string stem = std::string("/out/dot/fork-join_") + mode;
    m.sections.graph = GraphDumpSection{stem + ".dot", stem + "_verbose.dot", "", 66, 65};
    TraceSection& trace = m.sections.trace.emplace();
    trace.has_records = true;
    const std::uint32_t g = std::string(mode) == "capture" ? 103 : 118;
    for (std::uint32_t i = 0; i < 66; ++i) {
      TraceNodeTime n;
      n.dot_name = "graph_" + std::to_string(g) + "_node_" + std::to_string(i);
      n.graph_id = g;
      n.node_index = i;
      n.kind = "kernel";
      n.name = "fj_step";
      n.count = 200;
      n.median_ns = 1000.0 + i;
      n.p10_ns = 990.0;
      n.p90_ns = 1100.0;
      trace.nodes.push_back(n);
    }
    Metric inst;
    inst.unit = "ns";
    inst.repetitions = {{40000, 42000, 41000}};
    inst.resummarize();
    m.metrics["instantiate_time"] = inst;
    r.results.push_back(m);
  }
  ModeResult eager;
  eager.workload = "fork-join";
  eager.mode = Mode::kEager;
  r.results.push_back(eager);
  return r;
}

TEST(NodeTimesFromReport, MatchesTheResultThatDumpedTheFile) {
  const Report r = report_with_times();
  const NodeTimes t = node_times_from_report(r, "run.json", "/elsewhere/fork-join_graph_verbose.dot");
  EXPECT_EQ(t.by_node.size(), 66u);
  EXPECT_DOUBLE_EQ(t.by_node.at("graph_118_node_5").median_ns, 1005.0);
  EXPECT_EQ(t.by_node.at("graph_118_node_5").count, 200u);
  EXPECT_DOUBLE_EQ(t.by_node.at("graph_118_node_5").p90_ns, 1100.0);
  EXPECT_DOUBLE_EQ(t.instantiate_ns.value_or(0), 41000.0);
  EXPECT_NE(t.origin.find("fork-join branches=8 graph"), std::string::npos) << t.origin;
  // Through a JSON file, as the CLI reads it.
  const fs::path p = fs::temp_directory_path() / "gp_graph_analysis_report.json";
  write_report(r, p.string());
  const NodeTimes t2 = node_times_from_report(read_report(p.string()), p.string(), "fork-join_capture.dot");
  EXPECT_EQ(t2.by_node.count("graph_103_node_65"), 1u);
  fs::remove(p);
  // The joined times drive analysis of the matching dump.
  const GraphMetrics m = analyze(load_dot(test::dot_fixture("fork-join_capture_verbose.dot")), &t2);
  EXPECT_EQ(m.timed_nodes, 66u);
}

TEST(NodeTimesFromReport, WorkloadAndModePickAResult) {
  const Report r = report_with_times();
  const NodeTimes t = node_times_from_report(r, "run.json", "renamed.dot", "fork-join", "capture");
  EXPECT_EQ(t.by_node.count("graph_103_node_0"), 1u);
}

TEST(NodeTimesFromReport, ClearErrors) {
  const Report r = report_with_times();
  auto code_of = [&](const std::string& dot, const std::string& w, const std::string& mode) {
    try {
      (void)node_times_from_report(r, "run.json", dot, w, mode);
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("run.json"), std::string::npos) << e.what();
      return e.code();
    }
    return ExitCode::kOk;
  };
  EXPECT_EQ(code_of("unknown.dot", "", ""), ExitCode::kUsage);      // no result dumped it
  EXPECT_EQ(code_of("renamed.dot", "fork-join", ""), ExitCode::kUsage);  // capture and graph both match
  EXPECT_EQ(code_of("x.dot", "fork-join", "eager"), ExitCode::kBadInput);  // no per-node times
  Report nulls = report_with_times();
  nulls.results[1].sections.trace->nodes[7].median_ns = kNoValue;  // seen, never timed
  EXPECT_EQ(node_times_from_report(nulls, "run.json", "fork-join_graph.dot").by_node.size(), 65u);
  // A node without its time is a broken report: reading it says where.
  nlohmann::json bad = to_json(report_with_times());
  bad["results"][0]["sections"]["trace"]["nodes"][3].erase("median_ns");
  try {
    (void)report_from_json(bad, "run.json");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kBadInput);
    EXPECT_NE(std::string(e.what()).find("sections.trace.nodes[3]"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("median_ns"), std::string::npos) << e.what();
  }
}

// ---- output -------------------------------------------------------------------------------------

TEST(GraphAnalysisOutput, JsonHasTheDocumentedShape) {
  const GraphMetrics m = analyze_fixture("memcpy_capture_verbose.dot");
  const nlohmann::json j = to_json(m);
  EXPECT_EQ(j["schema"], "graphprof.graph-analysis/1");
  EXPECT_EQ(j["nodes"]["total"], 112);
  EXPECT_EQ(j["nodes"]["by_kind"]["memset"], 16);
  EXPECT_EQ(j["edges"]["total"], 111);
  EXPECT_EQ(j["top_level"]["depth"], 112);
  EXPECT_EQ(j["top_level"]["max_parallelism"], 1);
  EXPECT_EQ(j["critical_path"]["nodes"], 112);
  EXPECT_TRUE(j["timed_critical_path"].is_null());
  EXPECT_TRUE(j["times"].is_null());
  EXPECT_EQ(j["memcpy"][1]["direction"], "DtoH");
  EXPECT_EQ(j["memcpy"][1]["bytes"], 65536);
  EXPECT_EQ(j["memset"]["bytes"], 65536);
  EXPECT_EQ(j["graphs"][0]["parent"], nullptr);
  EXPECT_EQ(j["kernels"][0]["name"], "mc_scale");
  EXPECT_EQ(j["kernels"][0]["launch_configs"]["4,256,0"], 32);
  ASSERT_TRUE(j["findings"].is_array());
  EXPECT_EQ(j["findings"][0]["severity"], "warning");
  for (const char* k : {"id", "severity", "title", "evidence", "advice", "nodes"})
    EXPECT_TRUE(j["findings"][0].contains(k)) << k;
}

TEST(GraphAnalysisOutput, TextNamesTheFactsAndFindings) {
  const std::string s = analysis_text(analyze_fixture("fork-join_capture_verbose.dot"));
  EXPECT_NE(s.find("66 nodes, 73 edges (verbose dump)"), std::string::npos) << s;
  EXPECT_NE(s.find("depth 10, max parallelism 8"), std::string::npos) << s;
  EXPECT_NE(s.find("1, 8 x8, 1"), std::string::npos) << s;
  EXPECT_NE(s.find("fj_step"), std::string::npos);
  EXPECT_NE(s.find("[warning] Long chains of tiny kernels"), std::string::npos) << s;
}

}  // namespace
}  // namespace gp
