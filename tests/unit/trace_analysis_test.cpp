// The host side of tracing on synthetic records: kernel names, the DOT scan, the exec-node ->
// DOT-node join, per-node/per-kernel/per-API statistics, and the records' JSON form.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "graphprof/graph/dot_graph_info.hpp"
#include "graphprof/core/atomic_file.hpp"
#include "graphprof/core/error.hpp"
#include "graphprof/trace/trace_analysis.hpp"
#include "trace_test_data.hpp"

namespace gp {
namespace {

using testdata::chain_dot;
using testdata::chain_eager_trace;
using testdata::chain_graph_trace;

TEST(TraceNames, RecordsAreNamedLikeTheDotLoaderNamesKernels) {
  EXPECT_EQ(short_kernel_name("_ZN2gp12_GLOBAL__N_110chain_stepEPfii"), "chain_step");
  // nvcc's anonymous namespaces carry a file hash (a real name from the H200 dumps).
  EXPECT_EQ(short_kernel_name("_ZN2gp45_GLOBAL__N__807a1fe6_8_chain_cu_578bf642_114910chain_stepEPfii"), "chain_step");
  EXPECT_EQ(short_kernel_name("_Z6kernelILi3EEvPf"), "kernel");  // void kernel<3>(float*)
  EXPECT_EQ(short_kernel_name("plain_c_kernel"), "plain_c_kernel");
}

TEST(TraceDotInfo, ReadsTheTopLevelGraphOfARealDump) {
  const DotGraphInfo dot = dot_graph_info(load_dot(std::string(GRAPHPROF_TEST_DATA) + "/dot/chain100_capture.dot"));
  ASSERT_TRUE(dot.found);
  EXPECT_EQ(dot.graph_id, 13u);
  ASSERT_EQ(dot.nodes.size(), 100u);
  EXPECT_EQ(dot.nodes.at(0).kind, "kernel");
  EXPECT_EQ(dot.nodes.at(99).name, "_ZN2gp45_GLOBAL__N__807a1fe6_8_chain_cu_578bf642_114910chain_stepEPfii");
}

TEST(TraceDotInfo, VerboseDumpsGiveKindsAndNames) {
  // The hand-written scan this replaced gave verbose dumps kinds only; the loader reads the
  // record labels, so the join checks kernel names in both forms.
  const DotGraphInfo dot =
      dot_graph_info(load_dot(std::string(GRAPHPROF_TEST_DATA) + "/dot/chain100_graph_verbose.dot"));
  ASSERT_TRUE(dot.found);
  EXPECT_EQ(dot.graph_id, 28u);
  ASSERT_EQ(dot.nodes.size(), 100u);
  EXPECT_EQ(dot.nodes.at(5).kind, "kernel");
  EXPECT_EQ(dot.nodes.at(5).name, "_ZN2gp45_GLOBAL__N__807a1fe6_8_chain_cu_578bf642_114910chain_stepEPfii");
}

TEST(TraceDotInfo, MemsetAndMemcpyWithoutSpaceBeforeLabel) {
  // CUDA writes shape="invtrapezium"label="0 (no space) for these nodes.
  const std::string text =
      "digraph dot {\nsubgraph cluster_3 {\nlabel=\"graph_3\" graph[style=\"dashed\"];\n"
      "\"graph_3_node_0\"[style=\"solid\" shape=\"invtrapezium\"label=\"0\nMEMSET\n(0,4096)\n\"];\n\n"
      "\"graph_3_node_1\"[style=\"solid\" shape=\"trapezium\"label=\"1\nMEMCPY\n(DtoH,4096)\n\"];\n\n"
      "\"graph_3_node_2\"[style=\"solid\" shape=\"rectangle\" label=\"2\nHOST\n\"];\n\n"
      "\"graph_3_node_0\" -> \"graph_3_node_1\";\n}\n"
      "subgraph cluster_4 {\n\"graph_4_node_0\"[style=\"bold\" shape=\"octagon\" label=\"0\n_Z1kv\n\"];\n}\n}\n";
  const DotGraphInfo dot = dot_graph_info(load_dot_text(text, "cluster3.dot"));
  ASSERT_TRUE(dot.found);
  EXPECT_EQ(dot.graph_id, 3u);
  ASSERT_EQ(dot.nodes.size(), 3u);  // the child cluster is not the dumped graph
  EXPECT_EQ(dot.nodes.at(0).kind, "memset");
  EXPECT_EQ(dot.nodes.at(1).kind, "memcpy");
  EXPECT_EQ(dot.nodes.at(2).kind, "HOST");
}

TEST(TraceJoin, EveryKernelOfAChainReplayLandsOnItsNode) {
  const TraceData d = chain_graph_trace(4, 10);
  const NodeJoin join = NodeJoin::build(d, nullptr);
  EXPECT_EQ(join.traced_graph_id(), 5u);
  EXPECT_EQ(join.dot_status(), "no dump");
  const TraceSummary s = summarize_trace(d, join, nullptr);
  EXPECT_EQ(s.iterations, 10u);
  EXPECT_EQ(s.gpu_records, 40u);
  EXPECT_EQ(s.unattributed, 0u);
  EXPECT_EQ(s.unassigned, 0u);
  ASSERT_EQ(s.nodes.size(), 4u);
  for (std::uint32_t i = 0; i < 4; ++i) {
    const NodeStats& n = s.nodes[i];
    SCOPED_TRACE(i);
    EXPECT_EQ(n.node.dot_name(), "graph_5_node_" + std::to_string(i));
    EXPECT_EQ(n.kind, "kernel");
    EXPECT_EQ(n.name, "chain_step");
    EXPECT_EQ(n.duration.count, 10u);
    EXPECT_DOUBLE_EQ(n.duration.median, 200.0 + 10.0 * i);
    if (i == 0) {
      EXPECT_FALSE(n.gap_before_median_ns.has_value());
    } else {
      ASSERT_TRUE(n.gap_before_median_ns.has_value());
      EXPECT_DOUBLE_EQ(*n.gap_before_median_ns, 300.0 - (200.0 + 10.0 * (i - 1)));
    }
  }
  ASSERT_TRUE(s.graph_span.has_value());
  EXPECT_DOUBLE_EQ(s.graph_span->median, 3 * 300.0 + 230.0);
  ASSERT_EQ(s.kernels.size(), 1u);
  EXPECT_EQ(s.kernels[0].duration.count, 40u);
  EXPECT_DOUBLE_EQ(s.kernels[0].per_iteration_ns, 200 + 210 + 220 + 230);
  // Only the launch call lies inside the iteration windows; the loop's own event records do not.
  ASSERT_EQ(s.api.size(), 1u);
  EXPECT_EQ(s.api[0].name, "cudaGraphLaunch");
  EXPECT_DOUBLE_EQ(s.api[0].duration.median, 50.0);
  EXPECT_DOUBLE_EQ(s.api[0].calls_per_iteration, 1.0);
}

TEST(TraceJoin, RecordOrderDoesNotMatter) {
  TraceData d = chain_graph_trace(5, 8);
  const TraceSummary sorted = summarize_trace(d, NodeJoin::build(d, nullptr), nullptr);
  std::mt19937 rng(7);
  std::shuffle(d.kernels.begin(), d.kernels.end(), rng);
  std::shuffle(d.api.begin(), d.api.end(), rng);
  std::shuffle(d.node_mappings.begin(), d.node_mappings.end(), rng);
  std::shuffle(d.windows.begin(), d.windows.end(), rng);
  const TraceSummary shuffled = summarize_trace(d, NodeJoin::build(d, nullptr), nullptr);
  EXPECT_EQ(to_json(to_section(sorted)).dump(), to_json(to_section(shuffled)).dump());
}

TEST(TraceJoin, NodesWithoutACloneCallbackAreCountedNotGuessed) {
  TraceData d = chain_graph_trace(4, 6);
  d.node_mappings.erase(d.node_mappings.begin() + 2);
  const TraceSummary s = summarize_trace(d, NodeJoin::build(d, nullptr), nullptr);
  EXPECT_EQ(s.unattributed, 6u);
  ASSERT_EQ(s.nodes.size(), 3u);
  for (const auto& n : s.nodes) EXPECT_NE(n.node.index, 2u);
}

TEST(TraceJoin, WarmUpAndStrayRecordsStayOutOfTheStatistics) {
  TraceData d = chain_graph_trace(3, 4);
  // A warm-up launch before the first window, and a record after it that no window claims
  // (no correlation id, and no launch of its exec to inherit one from).
  KernelRecord warm = d.kernels.front();
  warm.start_ns -= 10000;
  warm.end_ns -= 10000;
  warm.correlation_id = 7;
  d.kernels.push_back(warm);
  KernelRecord stray = d.kernels.front();
  stray.correlation_id = 0;
  stray.graph_id = 99;
  stray.start_ns += 50000;
  stray.end_ns += 50000;
  d.kernels.push_back(stray);
  const TraceSummary s = summarize_trace(d, NodeJoin::build(d, nullptr), nullptr);
  EXPECT_EQ(s.gpu_records, 12u);
  EXPECT_EQ(s.unassigned, 1u);
  EXPECT_EQ(s.nodes[0].duration.count, 4u);
}

TEST(TraceJoin, TheTracedGraphIsNamedAfterTheDumpedOneByPosition) {
  // The dump came from the timing pass (graph 9); the trace pass built graph 5 the same way.
  const TraceData d = chain_graph_trace(4, 3);
  const DotGraphInfo dot = dot_graph_info(load_dot_text(chain_dot(4, 9), "chain.dot"));
  const NodeJoin join = NodeJoin::build(d, &dot);
  EXPECT_EQ(join.dot_status(), "matched by node position");
  EXPECT_EQ(join.dot_graph_id(), 9u);
  const TraceSummary s = summarize_trace(d, join, &dot);
  ASSERT_EQ(s.nodes.size(), 4u);
  EXPECT_EQ(s.nodes[3].node.dot_name(), "graph_9_node_3");
  EXPECT_EQ(s.dot_name_mismatches, 0u);
  const nlohmann::json j = to_json(to_section(s));
  EXPECT_EQ(j["nodes"][3]["dot_name"], "graph_9_node_3");
  EXPECT_EQ(j["nodes"][3]["graph_id"], 9);
  EXPECT_EQ(j["nodes"][3]["node_index"], 3);
  EXPECT_EQ(j["join"]["traced_graph_id"], 5);
}

TEST(TraceJoin, ADumpOfTheSameGraphNeedsNoTranslation) {
  const TraceData d = chain_graph_trace(2, 2);
  const DotGraphInfo dot = dot_graph_info(load_dot_text(chain_dot(2, 5), "chain.dot"));
  const NodeJoin join = NodeJoin::build(d, &dot);
  EXPECT_EQ(join.dot_status(), "same graph");
  EXPECT_EQ(join.find((std::uint64_t{16} << 32) | 1)->dot_name(), "graph_5_node_1");
}

TEST(TraceJoin, ADumpOfAnotherShapeIsNotUsedForNames) {
  const TraceData d = chain_graph_trace(4, 2);
  const DotGraphInfo dot = dot_graph_info(load_dot_text(chain_dot(6, 9), "chain.dot"));
  const NodeJoin join = NodeJoin::build(d, &dot);
  EXPECT_EQ(join.dot_status().rfind("mismatch:", 0), 0u) << join.dot_status();
  EXPECT_EQ(join.find((std::uint64_t{16} << 32) | 1)->dot_name(), "graph_5_node_1");
}

TEST(TraceJoin, KernelNamesThatDisagreeWithTheDumpAreCounted) {
  const TraceData d = chain_graph_trace(4, 2);
  const DotGraphInfo dot = dot_graph_info(load_dot_text(chain_dot(4, 9, "_Z5otherv"), "chain.dot"));
  const TraceSummary s = summarize_trace(d, NodeJoin::build(d, &dot), &dot);
  EXPECT_EQ(s.dot_name_mismatches, 4u);
}

TEST(TraceStats, EagerRunsHaveKernelsAndApiCallsButNoNodes) {
  const TraceData d = chain_eager_trace(5, 4);
  const TraceSummary s = summarize_trace(d, NodeJoin::build(d, nullptr), nullptr);
  EXPECT_TRUE(s.nodes.empty());
  EXPECT_EQ(s.unattributed, 0u);
  EXPECT_FALSE(s.graph_span.has_value());
  ASSERT_TRUE(s.iteration_span.has_value());
  EXPECT_DOUBLE_EQ(s.iteration_span->median, 4 * 1000.0 + 250.0);
  ASSERT_EQ(s.kernels.size(), 1u);
  EXPECT_EQ(s.kernels[0].duration.count, 20u);
  ASSERT_EQ(s.api.size(), 1u);
  EXPECT_EQ(s.api[0].name, "cudaLaunchKernel");
  EXPECT_DOUBLE_EQ(s.api[0].calls_per_iteration, 5.0);
  ASSERT_TRUE(s.api_per_call.has_value());
  EXPECT_DOUBLE_EQ(s.api_per_call->median, 500.0);
}

TEST(TraceStats, GraphLevelUsesOneSpanPerLaunch) {
  TraceData d = chain_graph_trace(3, 5);
  d.level = TraceLevel::kGraph;
  d.kernels.clear();
  for (std::size_t r = 0; r < d.windows.size(); ++r)
    d.graph_traces.push_back(GraphTraceRecord{{d.windows[r].begin_ns + 5000, d.windows[r].begin_ns + 5000 + 1234, 0, 1, 13,
                                               static_cast<std::uint32_t>(100 + r), 16}});
  const TraceSummary s = summarize_trace(d, NodeJoin::build(d, nullptr), nullptr);
  EXPECT_TRUE(s.nodes.empty());
  ASSERT_TRUE(s.graph_span.has_value());
  EXPECT_EQ(s.graph_span->count, 5u);
  EXPECT_DOUBLE_EQ(s.graph_span->median, 1234.0);
  EXPECT_DOUBLE_EQ(s.iteration_span->median, 1234.0);
  EXPECT_EQ(to_json(to_section(s))["graph_span_median_ns"], 1234.0);
}

TEST(TraceRecordsJson, RoundTripsEveryField) {
  TraceData d = chain_graph_trace(3, 2);
  d.memcpys.push_back(MemcpyRecord{{{10, 20, 0, 1, 17, 55, 16}, (std::uint64_t{16} << 32) | 3}, "DtoH", 4096});
  d.memsets.push_back(MemsetRecord{{{30, 40, 0, 1, 17, 55, 16}, (std::uint64_t{16} << 32) | 4}, 7, 4096});
  d.markers.push_back(MarkerRecord{MarkerRecord::Kind::kStart, 5, 9, "launch loop", "graphprof", 1, 2});
  d.markers.push_back(MarkerRecord{MarkerRecord::Kind::kEnd, 6, 9, "", "", 1, 2});
  d.graph_traces.push_back(GraphTraceRecord{{1, 2, 0, 1, 13, 100, 16}});
  d.dropped_records = 3;
  d.other_records = 2;
  const nlohmann::json j = to_json(d);
  const TraceData back = trace_data_from_json(j, "memory");
  EXPECT_EQ(to_json(back).dump(), j.dump());
  EXPECT_EQ(back.kernels.size(), d.kernels.size());
  EXPECT_EQ(back.markers[1].kind, MarkerRecord::Kind::kEnd);
}

TEST(TraceRecordsJson, MalformedDocumentsNameTheField) {
  nlohmann::json j = to_json(chain_graph_trace(1, 1));
  j["kernels"][0].erase("graph_node_id");
  try {
    trace_data_from_json(j, "fixture.json");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kBadInput);
    EXPECT_NE(std::string(e.what()).find("fixture.json: kernels[0]: missing field 'graph_node_id'"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(trace_data_from_json(nlohmann::json{{"format", "other"}}, "x"), Error);
}

TEST(TraceLevels, ParseAndPrint) {
  TraceLevel l = TraceLevel::kNone;
  EXPECT_TRUE(trace_level_from_string("graph", l));
  EXPECT_EQ(l, TraceLevel::kGraph);
  EXPECT_STREQ(to_string(TraceLevel::kNode), "node");
  EXPECT_FALSE(trace_level_from_string("kernel", l));
}

}  // namespace
}  // namespace gp
