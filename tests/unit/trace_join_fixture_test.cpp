// The exec-node -> DOT-node join on recorded sessions: every pair tests/data/trace/<stem>.trace.json
// (from `graphprof run --trace-records`) + <stem>.dot (the dump the same run wrote under --out/dot)
// must attribute every GPU record of the graph replays to a node that exists in the dump, with
// the kernel name the dump prints. Fixtures from the H200 drive this; see tests/data/trace/README.md.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include "graphprof/atomic_file.hpp"
#include "graphprof/report.hpp"
#include "graphprof/trace_analysis.hpp"

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
    EXPECT_EQ(s.nodes.size(), dot.nodes.size());
    std::set<std::uint32_t> seen;
    for (const NodeStats& n : s.nodes) {
      EXPECT_NE(dot_text.find("\"" + n.node.dot_name() + "\""), std::string::npos) << n.node.dot_name();
      EXPECT_EQ(n.duration.count, s.iterations) << n.node.dot_name();
      EXPECT_GT(n.duration.median, 0.0);
      seen.insert(n.node.index);
    }
    EXPECT_EQ(seen.size(), s.nodes.size());
    ASSERT_TRUE(s.graph_span.has_value());
    EXPECT_EQ(s.graph_span->count, s.iterations);
  }
}

}  // namespace
}  // namespace gp
