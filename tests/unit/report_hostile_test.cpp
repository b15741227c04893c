// Hostile report files: every one ends in gp::Error(kBadInput) naming the file and what is wrong,
// never another error, a crash or undefined behaviour (the sanitizer build runs these too).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "graphprof/core/error.hpp"
#include "graphprof/core/report.hpp"
#include "graphprof/core/run_outcome.hpp"

namespace gp {
namespace {

const char* kMinimal = R"({"schema_version": "1.0.0", "results": []})";

// The message of the kBadInput error reading `text` as a report; fails the test otherwise.
std::string bad_input_message(const std::string& text) {
  try {
    report_from_json(parse_json_text(text, "hostile.json"), "hostile.json");
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kBadInput) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "accepted: " << text.substr(0, 200);
  return {};
}

std::string nested(const std::string& open, const std::string& inner, const std::string& close, int depth) {
  std::string s;
  s.reserve((open.size() + close.size()) * static_cast<std::size_t>(depth) + inner.size());
  for (int i = 0; i < depth; ++i) s += open;
  s += inner;
  for (int i = 0; i < depth; ++i) s += close;
  return s;
}

TEST(HostileReport, MinimalReportIsAccepted) {
  EXPECT_NO_THROW(report_from_json(parse_json_text(kMinimal, "ok.json"), "ok.json"));
}

TEST(HostileReport, NumberBeyondDoubleNamesTheFile) {
  const std::string m = bad_input_message(R"({"schema_version": "1.0.0", "x": 1e400, "results": []})");
  EXPECT_EQ(m.rfind("hostile.json: ", 0), 0u) << m;
  EXPECT_NE(m.find("1e400"), std::string::npos) << m;
}

TEST(HostileReport, DeepSettingsAndSectionsAreRefusedNotRecursedInto) {
  const std::string deep_settings =
      R"({"schema_version": "1.0.0", "settings": )" + nested("{\"a\":", "1", "}", 100000) + R"(, "results": []})";
  EXPECT_NE(bad_input_message(deep_settings).find("nested deeper than"), std::string::npos);
  const std::string deep_sections =
      R"({"schema_version": "1.0.0", "results": [{"workload": "w", "mode": "eager", "params": {}, "status": "ok", "sections": )" +
      nested("[", "", "]", 100000) + "}]}";
  EXPECT_NE(bad_input_message(deep_sections).find("nested deeper than"), std::string::npos);
  // Reasonable nesting is fine.
  const std::string fine =
      R"({"schema_version": "1.0.0", "settings": {"x": )" + nested("[", "1", "]", 100) + R"(}, "results": []})";
  EXPECT_NO_THROW(report_from_json(parse_json_text(fine, "ok.json"), "ok.json"));
}

TEST(HostileReport, IntegerFieldsOutOfRangeNameTheField) {
  const std::string host = R"({"schema_version": "1.0.0", "environment": {"host": {"cpu_count": CPU}}, "results": []})";
  for (const std::string v : {"1e30", "-1", "2.5", "4294967296", "18446744073709551615"}) {
    std::string text = host;
    text.replace(text.find("CPU"), 3, v);
    EXPECT_NE(bad_input_message(text).find("environment.host.cpu_count"), std::string::npos) << v;
  }
  const std::string summary =
      R"({"schema_version": "1.0.0", "results": [{"workload": "w", "mode": "eager", "params": {}, "status": "ok",
          "metrics": {"m": {"unit": "ns", "direction": "lower_is_better", "repetitions": [[1]],
                            "summary": {"n": 1e300}}}}]})";
  EXPECT_NE(bad_input_message(summary).find("results[0].metrics.m.summary.n"), std::string::npos);
  const std::string settings = R"({"schema_version": "1.0.0", "settings": {"repetitions": 1e30}, "results": []})";
  EXPECT_NE(bad_input_message(settings).find("settings.repetitions"), std::string::npos);
  const std::string gpu = R"({"schema_version": "1.0.0", "environment": {"gpu": {"global_memory_bytes": 9.3e18}}, "results": []})";
  EXPECT_NE(bad_input_message(gpu).find("environment.gpu.global_memory_bytes"), std::string::npos);
}

// A fraction in a count field is not truncated into a plausible count (2.5 samples read as 2):
// it is bad input naming the file, the field's path and the value.
TEST(HostileReport, FractionalCountsNameTheFieldAndValue) {
  const std::string result = R"({"schema_version": "1.0.0", "results": [{"workload": "w", "mode": "graph", "params": {},
      "status": "ok", "metrics": {"m": {"unit": "ns", "direction": "lower_is_better", "repetitions": [[1, 2]],
      "summary": {"n": N_SUMMARY}}}, "sections": SECTIONS}]})";
  const auto with = [&](const std::string& n, const std::string& sections) {
    std::string t = result;
    t.replace(t.find("N_SUMMARY"), 9, n);
    t.replace(t.find("SECTIONS"), 8, sections);
    return t;
  };
  struct Case {
    std::string n, sections, path, value;
  };
  const std::string trace_ok = R"("status": "ok", "level": "node", "replays": 3, "gpu_records": 6)";
  const std::vector<Case> cases = {
      {"3.7", "{}", "results[0].metrics.m.summary.n", "3.7"},
      {"2", R"({"graph": {"nodes": 3.5, "edges": 2}})", "results[0].sections.graph.nodes", "3.5"},
      {"2", R"({"device_probe": {"chain_kernels": 255.5, "ns_per_kernel": 508}})",
       "results[0].sections.device_probe.chain_kernels", "255.5"},
      {"2", R"({"trace": {"status": "ok", "level": "node", "replays": 2.5}})", "results[0].sections.trace.replays", "2.5"},
      {"2", "{\"trace\": {" + trace_ok + R"(, "nodes": [{"dot_name": "graph_1_node_0", "count": 2.5, "median_ns": 1}]}})",
       "results[0].sections.trace.nodes[0].count", "2.5"},
      {"2", "{\"trace\": {" + trace_ok + R"(, "kernels": [{"kind": "kernel", "name": "k", "count": 0.5}]}})",
       "results[0].sections.trace.kernels[0].count", "0.5"},
      {"2", "{\"trace\": {" + trace_ok + R"(, "perturbation": {"traced_n": 9.25}}})",
       "results[0].sections.trace.perturbation.traced_n", "9.25"},
      {"2", "{\"trace\": {" + trace_ok + R"(, "join": {"traced_graph_id": 7.5}}})",
       "results[0].sections.trace.join.traced_graph_id", "7.5"},
  };
  for (const Case& c : cases) {
    const std::string m = bad_input_message(with(c.n, c.sections));
    EXPECT_EQ(m.rfind("hostile.json: " + c.path + ": ", 0), 0u) << m;
    EXPECT_NE(m.find("whole number"), std::string::npos) << m;
    EXPECT_NE(m.find(c.value), std::string::npos) << m;
  }
  // Whole numbers written as floats (2.0) are counts.
  EXPECT_NO_THROW(report_from_json(parse_json_text(with("2.0", R"({"graph": {"nodes": 3.0, "edges": 2}})"), "ok.json"),
                                   "ok.json"));
  // Settings that merge and compare read as counts (processes pools runs, ranks counts GPUs).
  for (const char* key : {"processes", "ranks", "repetitions"}) {
    const std::string m = bad_input_message(R"({"schema_version": "1.0.0", "settings": {")" + std::string(key) +
                                            R"(": 2.5}, "results": []})");
    EXPECT_EQ(m.rfind(std::string("hostile.json: settings.") + key + ": ", 0), 0u) << m;
    EXPECT_NE(m.find("2.5"), std::string::npos) << m;
  }
}

// Finite but absurd figures (1e300: 3.9 GB and 56 s in `report` before; -2.5 µs node times that
// made a negative timed critical path; a negative device probe) are refused where they are read.
TEST(HostileReport, AbsurdFiguresAndNegativeTimesAreOutOfRangeNamingTheField) {
  const std::string result = R"({"schema_version": "1.0.0", "results": [{"workload": "w", "mode": "graph", "params": {},
      "status": "ok", "metrics": {"m": {"unit": "ns", "direction": "lower_is_better", "repetitions": [[REPS]]}},
      "sections": SECTIONS}]})";
  const auto with = [&](const std::string& reps, const std::string& sections) {
    std::string t = result;
    t.replace(t.find("REPS"), 4, reps);
    t.replace(t.find("SECTIONS"), 8, sections);
    return t;
  };
  const std::string trace_ok = R"("status": "ok", "level": "node", "replays": 3, "gpu_records": 6)";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {with("1, 1e300", "{}"), "results[0].metrics.m.repetitions[0][1]: value 1e+300 is out of range"},
      {with("1, -1.7e308", "{}"), "results[0].metrics.m.repetitions[0][1]: value -1.7e+308 is out of range"},
      {with("1", R"({"trace": {)" + trace_ok + R"(, "nodes": [{"dot_name": "graph_1_node_0", "median_ns": -2500}]}})"),
       "results[0].sections.trace.nodes[0].median_ns: value -2500 is out of range (a time cannot be negative)"},
      {with("1", R"({"trace": {)" + trace_ok + R"(, "nodes": [{"dot_name": "graph_1_node_0", "median_ns": 1e308}]}})"),
       "results[0].sections.trace.nodes[0].median_ns: value 1e+308 is out of range"},
      {with("1", R"({"device_probe": {"chain_kernels": 256, "ns_per_kernel": -508}})"),
       "results[0].sections.device_probe.ns_per_kernel: value -508 is out of range"},
      {with("1", R"({"device_probe": {"chain_kernels": 256, "ns_per_kernel": 1e300}})"),
       "results[0].sections.device_probe.ns_per_kernel: value 1e+300 is out of range"},
  };
  for (const auto& [text, want] : cases) {
    const std::string m = bad_input_message(text);
    EXPECT_NE(m.find("hostile.json: " + want), std::string::npos) << m;
  }
  // Large but possible figures stay: 1e15 ns (12 days), a gap before a node that overlaps (< 0).
  EXPECT_NO_THROW(report_from_json(
      parse_json_text(with("1, 1e15", R"({"trace": {)" + trace_ok +
                                          R"(, "nodes": [{"dot_name": "graph_1_node_0", "median_ns": 5, "gap_before_median_ns": -3}]}})"),
                      "ok.json"),
      "ok.json"));
}

TEST(HostileReport, HugeVersionNumbersDoNotOverflow) {
  // std::atoi on these was undefined behaviour.
  EXPECT_NE(bad_input_message(R"({"schema_version": "99999999999999999999.0", "results": []})").find("schema_version"),
            std::string::npos);
  const Report r = report_from_json(
      parse_json_text(R"({"schema_version": "1.0.0", "environment": {"gpu": {"compute_capability": "99999999999999999999.99999999999999999999"}}, "results": []})",
                      "cc.json"),
      "cc.json");
  ASSERT_TRUE(r.environment.gpu.has_value());
  EXPECT_GT(r.environment.gpu->cc_major, 0);
}

TEST(RunOutcome, LostContextNamesWorkloadModeAndErrorAndKeepsEarlierResults) {
  Report r;
  ModeResult ok;
  ok.workload = "chain";
  ok.mode = Mode::kEager;
  r.results.push_back(ok);
  EXPECT_EQ(lost_context_message(r), "");
  ModeResult broken;
  broken.workload = "while";
  broken.mode = Mode::kGraph;
  broken.params = {{"trips", "8"}};
  broken.status = Status::kFailed;
  broken.failure = Failure{"cudaStreamSynchronize", "cudaErrorIllegalAddress", "m", "h"};
  broken.sections.cuda_context_lost = true;
  r.results.push_back(broken);
  const std::string m = lost_context_message(r);
  EXPECT_NE(m.find("workload while [trips=8], mode graph"), std::string::npos) << m;
  EXPECT_NE(m.find("cudaStreamSynchronize returned cudaErrorIllegalAddress"), std::string::npos) << m;
  EXPECT_NE(m.find("The 1 result(s) measured before it were kept"), std::string::npos) << m;
  // Written and read back, the mark survives (a report says which mode broke the context).
  const Report back = report_from_json(to_json(r), "r.json");
  EXPECT_TRUE(lost_cuda_context(back.results[1]));
  EXPECT_FALSE(lost_cuda_context(back.results[0]));
}

}  // namespace
}  // namespace gp
