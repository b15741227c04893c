// The Chrome trace-event writer on synthetic sessions, and the structure check that the GPU test
// also applies to real traces: every event has ph/ts/pid/tid, durations are non-negative, flows
// come in pairs.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "graphprof/report/chrome_trace.hpp"
#include "trace_test_data.hpp"

namespace gp {
namespace {

using nlohmann::json;

json build(const TraceData& graph, const TraceData& eager) {
  ChromeTraceBuilder b;
  const NodeJoin gj = NodeJoin::build(graph, nullptr);
  b.add("chain capture", graph, &gj);
  b.add("chain eager", eager, nullptr);
  return b.to_json();
}

TEST(ChromeTrace, SyntheticSessionsGiveAWellFormedTrace) {
  TraceData graph = testdata::chain_graph_trace(3, 4);
  graph.markers.push_back(MarkerRecord{MarkerRecord::Kind::kStart, graph.begin_ns + 500, 1, "launch loop", "graphprof",
                                       testdata::kPid, testdata::kTid});
  graph.markers.push_back(MarkerRecord{MarkerRecord::Kind::kEnd, graph.end_ns - 10, 1, "", "", testdata::kPid, testdata::kTid});
  graph.markers.push_back(
      MarkerRecord{MarkerRecord::Kind::kInstant, graph.begin_ns + 700, 2, "probe", "graphprof", testdata::kPid, testdata::kTid});
  const json doc = build(graph, testdata::chain_eager_trace(2, 3));
  const auto problems = validate_chrome_trace(doc);
  EXPECT_TRUE(problems.empty()) << problems.front();

  std::map<std::string, int> by_cat;
  std::set<std::int64_t> gpu_tracks;
  int flows_s = 0, flows_f = 0;
  for (const json& e : doc["traceEvents"]) {
    const std::string ph = e["ph"];
    if (ph == "s") ++flows_s;
    if (ph == "f") ++flows_f;
    if (ph != "X") continue;
    ++by_cat[e.value("cat", "")];
    if (e.value("cat", "") == "kernel") {
      EXPECT_EQ(e["name"], "chain_step");
      EXPECT_EQ(e["args"]["kernel"], "gp::(anonymous namespace)::chain_step(float*, int, int)");
      gpu_tracks.insert(e["tid"].get<std::int64_t>());
    }
  }
  EXPECT_EQ(by_cat["kernel"], 3 * 4 + 2 * 3);
  EXPECT_EQ(by_cat["cuda_api"], 2 * 4 + 2 * 3);  // graph: launch + event record per replay
  EXPECT_EQ(by_cat["nvtx"], 1);
  EXPECT_EQ(by_cat["graphprof"], 2);  // one span per trace pass
  EXPECT_EQ(gpu_tracks, (std::set<std::int64_t>{13, 17}));
  // One arrow per launch that produced GPU work: 4 graph launches, 6 kernel launches.
  EXPECT_EQ(flows_s, 10);
  EXPECT_EQ(flows_f, 10);
}

TEST(ChromeTrace, GraphNodesCarryTheirDotNames) {
  const TraceData graph = testdata::chain_graph_trace(2, 1);
  const json doc = build(graph, TraceData{});
  std::set<std::string> names;
  for (const json& e : doc["traceEvents"])
    if (e["ph"] == "X" && e.value("cat", "") == "kernel") {
      names.insert(e["args"]["dot_node"].get<std::string>());
      EXPECT_EQ(e["args"]["graph_exec_id"], 16);
    }
  EXPECT_EQ(names, (std::set<std::string>{"graph_5_node_0", "graph_5_node_1"}));
}

TEST(ChromeTrace, TimestampsAreMicrosecondsFromTheFirstEvent) {
  const json doc = build(testdata::chain_graph_trace(1, 1), TraceData{});
  double min_ts = 1e300;
  bool saw_kernel = false;
  for (const json& e : doc["traceEvents"]) {
    if (e["ph"] == "M") continue;
    min_ts = std::min(min_ts, e["ts"].get<double>());
    if (e.value("cat", "") == "kernel") {
      saw_kernel = true;
      EXPECT_DOUBLE_EQ(e["dur"].get<double>(), 0.2);  // 200 ns
    }
  }
  EXPECT_TRUE(saw_kernel);
  EXPECT_DOUBLE_EQ(min_ts, 0.0);
  EXPECT_EQ(doc["displayTimeUnit"], "ns");
}

TEST(ChromeTraceValidator, FindsEveryKindOfProblem) {
  const json good{{"ph", "X"}, {"ts", 1.0}, {"dur", 2.0}, {"pid", 1}, {"tid", 1}, {"name", "a"}};
  EXPECT_TRUE(validate_chrome_trace(json{{"traceEvents", json::array({good})}}).empty());
  EXPECT_FALSE(validate_chrome_trace(json::array()).empty());

  auto problems_with = [&](json e) { return validate_chrome_trace(json{{"traceEvents", json::array({e})}}); };
  json no_pid = good;
  no_pid.erase("pid");
  EXPECT_EQ(problems_with(no_pid).size(), 1u);
  json neg = good;
  neg["dur"] = -1.0;
  EXPECT_EQ(problems_with(neg).size(), 1u);
  json no_dur = good;
  no_dur.erase("dur");
  EXPECT_EQ(problems_with(no_dur).size(), 1u);
  json string_tid = good;
  string_tid["tid"] = "main";
  EXPECT_EQ(problems_with(string_tid).size(), 1u);

  const json s{{"ph", "s"}, {"ts", 5.0}, {"pid", 1}, {"tid", 1}, {"id", 7}, {"cat", "launch"}};
  json f{{"ph", "f"}, {"ts", 6.0}, {"pid", 2}, {"tid", 3}, {"id", 7}, {"cat", "launch"}, {"bp", "e"}};
  EXPECT_TRUE(validate_chrome_trace(json{{"traceEvents", json::array({s, f})}}).empty());
  EXPECT_EQ(validate_chrome_trace(json{{"traceEvents", json::array({s})}}).size(), 1u);  // unpaired
  EXPECT_EQ(validate_chrome_trace(json{{"traceEvents", json::array({s, f, f})}}).size(), 1u);
  f["ts"] = 4.0;
  EXPECT_EQ(validate_chrome_trace(json{{"traceEvents", json::array({s, f})}}).size(), 1u);  // backwards
  const json b{{"ph", "B"}, {"ts", 1.0}, {"pid", 1}, {"tid", 1}};
  EXPECT_EQ(validate_chrome_trace(json{{"traceEvents", json::array({b})}}).size(), 1u);
}

}  // namespace
}  // namespace gp
