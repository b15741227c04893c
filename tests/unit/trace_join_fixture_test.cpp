// The exec-node -> DOT-node join on recorded sessions: every pair tests/data/trace/<stem>.trace.json
// (from `graphprof run --trace-records`) + <stem>.dot (the dump the same run wrote under --out/dot)
// must attribute every GPU record of the graph replays to a node that exists in the dump, with
// the kernel name the dump prints, conditional bodies included (while_*). Fixtures from the H200
// drive this; see tests/data/trace/README.md.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include "graphprof/graph/dot_graph_info.hpp"
#include "graphprof/core/atomic_file.hpp"
#include "graphprof/core/report.hpp"
#include "graphprof/trace/trace_analysis.hpp"
#include "graphprof/report/trace_summary_text.hpp"

namespace gp {
namespace {

namespace fs = std::filesystem;

struct Fixture {
  std::string stem;
  fs::path records, dot;
};

std::vector<Fixture> fixtures() {
  std::vector<Fixture> out;
  const fs::path dir = fs::path(GRAPHPROF_TEST_DATA) / "trace";
  if (!fs::is_directory(dir)) return out;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    const std::string suffix = ".trace.json";
    if (name.size() <= suffix.size() || name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0) continue;
    Fixture f;
    f.stem = name.substr(0, name.size() - suffix.size());
    f.records = e.path();
    f.dot = dir / (f.stem + ".dot");
    out.push_back(f);
  }
  std::sort(out.begin(), out.end(), [](const Fixture& a, const Fixture& b) { return a.stem < b.stem; });
  return out;
}

bool is_graph_mode(const std::string& stem) {
  auto ends_with = [&](const char* s) {
    const std::string x = s;
    return stem.size() >= x.size() && stem.compare(stem.size() - x.size(), x.size(), x) == 0;
  };
  return ends_with("_capture") || ends_with("_graph");
}

TEST(TraceJoinFixtures, ThereAreFixtures) { EXPECT_FALSE(fixtures().empty()); }

TEST(TraceJoinFixtures, EveryGraphRecordIsAttributedToANodeOfTheDump) {
  for (const Fixture& f : fixtures()) {
    SCOPED_TRACE(f.stem);
    const TraceData data = trace_data_from_json(read_json_file(f.records.string()), f.records.string());
    ASSERT_FALSE(data.windows.empty());
    if (!is_graph_mode(f.stem)) {
      const TraceSummary s = summarize_trace(data, NodeJoin::build(data, nullptr), nullptr);
      EXPECT_TRUE(s.nodes.empty());
      EXPECT_GT(s.gpu_records, 0u);
      continue;
    }
    ASSERT_TRUE(fs::exists(f.dot)) << "missing " << f.dot;
    const std::string dot_text = read_file(f.dot.string());
    const DotGraphInfo dot = dot_graph_info(load_dot_text(dot_text, f.dot.string()));
    ASSERT_TRUE(dot.found);
    const NodeJoin join = NodeJoin::build(data, &dot);
    EXPECT_TRUE(join.dot_status() == "same graph" || join.dot_status() == "matched by node position")
        << join.dot_status();
    EXPECT_EQ(join.dot_graph_id(), dot.graph_id);
    const TraceSummary s = summarize_trace(data, join, &dot);
    EXPECT_GT(s.gpu_records, 0u);
    EXPECT_EQ(s.unattributed, 0u);
    EXPECT_EQ(s.dot_name_mismatches, 0u);
    EXPECT_EQ(s.unassigned, 0u);
    // Every node of the dump that does GPU work (not host, conditional, empty ...), in any of its
    // graphs (conditional bodies too), has a time; each ran the same number of times per replay.
    std::set<std::string> working, seen;
    auto gpu_work = [](const DotNode& n) { return n.kind == "kernel" || n.kind == "memcpy" || n.kind == "memset"; };
    for (const auto& [i, n] : dot.nodes)
      if (gpu_work(n)) working.insert(NodeRef{dot.graph_id, i}.dot_name());
    for (const auto& [g, nodes] : dot.nested)
      for (const auto& [i, n] : nodes)
        if (gpu_work(n)) working.insert(NodeRef{g, i}.dot_name());
    for (const NodeStats& n : s.nodes) {
      EXPECT_NE(dot_text.find("\"" + n.node.dot_name() + "\""), std::string::npos) << n.node.dot_name();
      EXPECT_GE(n.runs_per_replay, 1.0) << n.node.dot_name();
      EXPECT_EQ(n.duration.count, s.iterations * static_cast<std::size_t>(n.runs_per_replay)) << n.node.dot_name();
      EXPECT_EQ(n.per_replay.count, s.iterations) << n.node.dot_name();
      EXPECT_GT(n.duration.median, 0.0);
      seen.insert(n.node.dot_name());
    }
    EXPECT_EQ(seen, working);
    ASSERT_TRUE(s.graph_span.has_value());
    EXPECT_EQ(s.graph_span->count, s.iterations);
  }
}

TEST(TraceJoinFixtures, TheBodyOfAWhileNodeGetsItsRunsAndItsTime) {
  // Real H200 records: a WHILE node whose body (wh_relax -> wh_check) ran 39 times per replay.
  // CUPTI gave the body's records correlation id 0 and node ids of the parent exec.
  const std::string stem = std::string(GRAPHPROF_TEST_DATA) + "/trace/while_elements-4096_max_steps-1000_tolerance-0.001_graph";
  const TraceData data = trace_data_from_json(read_json_file(stem + ".trace.json"), stem);
  const DotGraphInfo dot = dot_graph_info(load_dot(stem + ".dot"));
  const NodeJoin join = NodeJoin::build(data, &dot);
  const TraceSummary s = summarize_trace(data, join, &dot);
  EXPECT_EQ(s.iterations, 10u);
  EXPECT_EQ(s.gpu_records, 10u * (1 + 2 * 39));
  EXPECT_EQ(s.unassigned, 0u);
  EXPECT_EQ(s.unattributed, 0u);
  ASSERT_EQ(s.nodes.size(), 3u);
  EXPECT_EQ(s.nodes[0].node.dot_name(), "graph_61_node_0");
  EXPECT_EQ(s.nodes[0].name, "wh_init");
  EXPECT_EQ(s.nodes[0].runs_per_replay, 1.0);
  EXPECT_EQ(s.nodes[1].node.dot_name(), "graph_62_node_0");  // the body, as the dump names it
  EXPECT_EQ(s.nodes[1].name, "wh_relax");
  EXPECT_EQ(s.nodes[2].node.dot_name(), "graph_62_node_1");
  EXPECT_EQ(s.nodes[2].name, "wh_check");
  for (const NodeStats* n : {&s.nodes[1], &s.nodes[2]}) {
    EXPECT_EQ(n->runs_per_replay, 39.0) << n->name;
    EXPECT_EQ(n->duration.count, 390u) << n->name;
    // A replay's time of the node is its 39 runs, not one.
    EXPECT_GT(n->per_replay.median, 30 * n->duration.median) << n->name;
    EXPECT_LT(n->per_replay.median, 50 * n->duration.median) << n->name;
  }
  // The replay spans the loop now, not only wh_init.
  ASSERT_TRUE(s.iteration_span.has_value());
  EXPECT_GT(s.iteration_span->median, s.nodes[1].per_replay.median + s.nodes[2].per_replay.median);
  ASSERT_TRUE(s.graph_span.has_value());
  EXPECT_EQ(s.graph_span->count, 10u);
  EXPECT_GT(s.graph_span->median, 39 * (s.nodes[1].duration.median + s.nodes[2].duration.median));
  // The exec node ids the body's records carry: after the parent's two nodes.
  const auto relax = join.find((std::uint64_t{69} << 32) | 2), check = join.find((std::uint64_t{69} << 32) | 3);
  ASSERT_TRUE(relax && check);
  EXPECT_EQ(relax->dot_name(), "graph_62_node_0");
  EXPECT_EQ(check->dot_name(), "graph_62_node_1");

  // The console's "slowest nodes" ranks them by time per replay and shows the runs.
  Report r = read_report(std::string(GRAPHPROF_TEST_DATA) + "/trace/while_host_graph_run.json");
  r.results.resize(1);  // while
  // The trip count read from the records is the one the workload counted on the device.
  EXPECT_EQ(r.results[0].sections.workload.at("loop_steps"), s.nodes[1].runs_per_replay);
  TraceSection t = to_section(s);
  t.status = "ok";
  r.results[0].sections.trace = t;
  const std::string text = format_trace_summary(r);
  const auto table = text.find("slowest nodes (3 attributed):");
  ASSERT_NE(table, std::string::npos) << text;
  const std::string rows = text.substr(table);
  EXPECT_NE(rows.find("per replay  runs/replay  median"), std::string::npos) << rows;
  const auto first = rows.find("graph_62_node_1"), second = rows.find("graph_62_node_0"), third = rows.find("graph_61_node_0");
  EXPECT_TRUE(first < second && second < third) << rows;
  EXPECT_NE(rows.find("  39  "), std::string::npos) << rows;
}

}  // namespace
}  // namespace gp
