// Typed report sections, the Mode enum in results and the metric catalogue: every committed
// report reads and writes back unchanged, a trace section from real records survives the round
// trip, and wrong types name their JSON path.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <utility>
#include <vector>

#include "graphprof/graph/dot_graph_info.hpp"
#include "graphprof/core/atomic_file.hpp"
#include "graphprof/core/error.hpp"
#include "graphprof/core/metric_catalog.hpp"
#include "graphprof/core/report.hpp"
#include "graphprof/core/run_settings.hpp"
#include "graphprof/trace/trace_analysis.hpp"

namespace gp {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const fs::path kSectionsData = GRAPHPROF_TEST_DATA;

// The message of the bad-input error `read` throws ("(read)" when it reads the input).
template <class F>
std::string bad_input_of(F&& read) {
  try {
    read();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kBadInput);
    return e.what();
  }
  return "(read)";
}

// Every JSON file under tests/data (run, sweep, profile and merged reports among them).
std::vector<fs::path> committed_reports() {
  std::vector<fs::path> out;
  for (const auto& e : fs::recursive_directory_iterator(kSectionsData))
    if (e.path().extension() == ".json") out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

// The committed JSON files that read as reports (the deliberately broken fixtures, malformed,
// truncated or not a report, left out), each with its JSON.
std::vector<std::pair<fs::path, json>> readable_reports() {
  std::vector<std::pair<fs::path, json>> out;
  for (const fs::path& p : committed_reports()) {
    try {
      json j = read_json_file(p.string());
      (void)report_from_json(j, p.string());
      out.emplace_back(p, std::move(j));
    } catch (const Error&) {
    }
  }
  return out;
}

TEST(ReportSections, EveryCommittedReportKeepsItsModesAndSections) {
  int read = 0;
  for (const auto& file : readable_reports()) {
    const fs::path& p = file.first;
    const json& j = file.second;
    SCOPED_TRACE(p.filename().string());
    // Mode and sections come back exactly (other parts may gain defaults, e.g. a summary).
    const json back = to_json(report_from_json(j, p.string()));
    const json& results = j.at("results");
    ASSERT_EQ(back["results"].size(), results.size());
    for (std::size_t i = 0; i < results.size(); ++i) {
      EXPECT_EQ(back["results"][i]["mode"], results[i].at("mode"));
      EXPECT_EQ(back["results"][i]["sections"], results[i].value("sections", json::object())) << i;
    }
    ++read;
  }
  EXPECT_GE(read, 20);
}

TEST(ReportSections, ModeIsAnEnumInMemoryAndTheSameTextInJson) {
  const Report r = read_report((kSectionsData / "h200" / "chain_run1.json").string());
  ASSERT_EQ(r.results.size(), 3u);
  EXPECT_EQ(r.results[0].mode, Mode::kEager);
  EXPECT_EQ(r.results[1].mode, Mode::kCapture);
  EXPECT_EQ(r.results[2].mode, Mode::kGraph);
  EXPECT_EQ(to_json(r.results[2])["mode"], "graph");
  EXPECT_NE(r.find("chain", Mode::kGraph, r.results[2].params), nullptr);
  json bad = to_json(r);
  bad["results"][1]["mode"] = "replay";
  try {
    (void)report_from_json(bad, "x.json");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kBadInput);
    EXPECT_NE(std::string(e.what()).find("x.json: results[1].mode: unknown mode 'replay'"), std::string::npos) << e.what();
  }
}

TEST(ReportSections, GraphSectionIsTyped) {
  const Report r = read_report((kSectionsData / "h200" / "chain_run1.json").string());
  EXPECT_FALSE(r.results[0].sections.graph.has_value());  // eager has no graph
  ASSERT_TRUE(r.results[2].sections.graph.has_value());
  EXPECT_EQ(r.results[2].sections.graph->nodes, 100);
  EXPECT_EQ(r.results[2].sections.graph->edges, 99);
  EXPECT_FALSE(r.results[2].sections.graph->dot.empty());
}

TEST(ReportSections, UnknownSectionsAreKeptAndWrongTypesNameTheirPath) {
  json j = to_json(read_report((kSectionsData / "h200" / "chain_run1.json").string()));
  j["results"][2]["sections"]["from_a_newer_graphprof"] = {{"x", 1}};
  const Report r = report_from_json(j, "x.json");
  EXPECT_EQ(to_json(r)["results"][2]["sections"]["from_a_newer_graphprof"]["x"], 1);
  j["results"][2]["sections"]["graph"]["nodes"] = "many";
  try {
    (void)report_from_json(j, "x.json");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kBadInput);
    EXPECT_NE(std::string(e.what()).find("x.json: results[2].sections.graph.nodes: expected a number"),
              std::string::npos)
        << e.what();
  }
}

// graphprof's own sections each have a named home in Sections; only a section this version does
// not know stays in `other`, and every one (with the fields of a newer writer) writes back as read.
TEST(ReportSections, OwnSectionsAreTypedAndOnlyUnknownOnesStayInOther) {
  const json in = {
      {"budget", {{"iteration_seconds", 0.25}, {"passes_cut_short", {"warm-up", "gpu_time_per_iter"}}, {"newer", 1}}},
      {"plugin",
       {{"library", "./libw.so"}, {"name", "w"}, {"version", "2"}, {"file_fnv1a64", "00ff"}, {"api_version", "1.0"}}},
      {"ranks",
       {{"count", 2},
        {"median_per_rank", {{"gpu_time_per_iter", {50.0, nullptr}}}},
        {"slowest_rank", {{"gpu_time_per_iter", "0"}}},
        {"same_output_on_every_rank", false}}},
      {"cuda_context_lost", true},
      {"cut_by_time_limit", true},
      {"profile", {{"program", "train.py"}, {"processes", json::array()}}},
      {"latched", "no latch"},
      {"from_a_newer_graphprof", {{"x", 1}}}};
  const Sections s = sections_from_json(in, "x.json: results[0].sections");
  ASSERT_TRUE(s.budget);
  EXPECT_DOUBLE_EQ(s.budget->iteration_seconds, 0.25);
  EXPECT_EQ(s.budget->passes_cut_short, (std::vector<std::string>{"warm-up", "gpu_time_per_iter"}));
  EXPECT_EQ(s.budget->extra, (json{{"newer", 1}}));
  ASSERT_TRUE(s.plugin);
  EXPECT_EQ(s.plugin->library, "./libw.so");
  EXPECT_EQ(s.plugin->api_version, "1.0");
  ASSERT_TRUE(s.ranks);
  EXPECT_EQ(s.ranks->count, 2u);
  ASSERT_EQ(s.ranks->median_per_rank.at("gpu_time_per_iter").size(), 2u);
  EXPECT_TRUE(std::isnan(s.ranks->median_per_rank.at("gpu_time_per_iter")[1]));
  EXPECT_EQ(s.ranks->slowest_rank.at("gpu_time_per_iter"), "0");
  EXPECT_FALSE(s.ranks->same_output_on_every_rank);
  EXPECT_TRUE(s.cuda_context_lost);
  EXPECT_TRUE(s.cut_by_time_limit);
  ASSERT_TRUE(s.has_profile());
  EXPECT_EQ(s.profile->program, "train.py");
  EXPECT_EQ(s.other, (json{{"from_a_newer_graphprof", {{"x", 1}}}}));
  EXPECT_EQ(to_json(s), in);
  EXPECT_TRUE(Sections{}.empty());
  EXPECT_FALSE(s.empty());

  // A result without them reads as none (older reports), and writes none back.
  const Sections none = sections_from_json(json::object(), "x");
  EXPECT_FALSE(none.budget || none.plugin || none.ranks || none.cuda_context_lost || none.cut_by_time_limit ||
               none.has_profile());
  EXPECT_EQ(to_json(none), json::object());
}

TEST(ReportSections, OwnSectionsOfTheWrongTypeNameTheirPath) {
  const auto error_of = [](const json& sections) {
    return bad_input_of([&] { (void)sections_from_json(sections, "x.json: results[0].sections"); });
  };
  EXPECT_EQ(error_of({{"budget", {{"passes_cut_short", {"warm-up", 3}}}}}),
            "x.json: results[0].sections.budget.passes_cut_short[1]: expected a string");
  EXPECT_EQ(error_of({{"budget", {{"iteration_seconds", -1}}}}).rfind("x.json: results[0].sections.budget.iteration_seconds: ", 0),
            0u);
  EXPECT_EQ(error_of({{"cuda_context_lost", "yes"}}), "x.json: results[0].sections.cuda_context_lost: expected true or false");
  EXPECT_EQ(error_of({{"profile", 3}}), "x.json: results[0].sections.profile: expected an object");
  EXPECT_EQ(error_of({{"ranks", {{"median_per_rank", {{"gpu_time_per_iter", {"fast"}}}}}}}),
            "x.json: results[0].sections.ranks.median_per_rank.gpu_time_per_iter: expected numbers");
  EXPECT_EQ(error_of({{"plugin", {{"name", 7}}}}), "x.json: results[0].sections.plugin.name: expected a string");
}

// Since 1.4 the probe reads both device methods and is taken around the two device passes: the
// latched readings and the points read into the typed section and write back the same keys.
TEST(ReportSections, DeviceProbeBothMethodsAndPointsRoundTrip) {
  json j = to_json(read_report((kSectionsData / "h200" / "chain_run1.json").string()));
  const json probe = {{"chain_kernels", 256},
                      {"ns_per_kernel", 508.25},
                      {"latched_ns_per_kernel", 509.0},
                      {"ns_per_kernel_after", 508.5},
                      {"latched_ns_per_kernel_after", 686.0},
                      {"points", json::array({{{"at", "before GPU pass"}, {"back_to_back_ns", 508.25}, {"latched_ns", 509.0}},
                                              {{"at", "after latched pass"}, {"back_to_back_ns", 508.0}, {"latched_ns", 685.5}}})}};
  j["results"][2]["sections"]["device_probe"] = probe;
  const Report r = report_from_json(j, "x.json");
  const DeviceProbeSection& p = *r.results[2].sections.device_probe;
  EXPECT_EQ(p.latched_ns_per_kernel, 509.0);
  EXPECT_EQ(p.latched_ns_per_kernel_after, 686.0);
  ASSERT_EQ(p.points.size(), 2u);
  EXPECT_EQ(p.points[1].at, "after latched pass");
  EXPECT_EQ(p.points[1].reading.latched_ns, 685.5);
  EXPECT_EQ(p.points[1].reading.back_to_back_ns, 508.0);
  EXPECT_TRUE(p.extra.empty()) << p.extra.dump();  // none of them is an unknown field
  EXPECT_EQ(p.levels().front().latched_ns_per_kernel_after, 686.0);
  EXPECT_EQ(to_json(r)["results"][2]["sections"]["device_probe"], probe);
  j["results"][2]["sections"]["device_probe"]["points"][0]["latched_ns"] = "slow";
  try {
    (void)report_from_json(j, "x.json");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("results[2].sections.device_probe.points[0].latched_ns: expected a number"),
              std::string::npos)
        << e.what();
  }
}

// sections.device_probe (run, sweep) reads into its typed section and writes back the same
// keys; a report without it (older than 2026-11-30) has none; a failed probe keeps its error.
TEST(ReportSections, DeviceProbeIsTypedAndRoundTrips) {
  json j = to_json(read_report((kSectionsData / "h200" / "chain_run1.json").string()));
  EXPECT_FALSE(report_from_json(j, "x.json").results[2].sections.device_probe.has_value());
  const json probe = {{"chain_kernels", 256}, {"ns_per_kernel", 508.25}, {"ns_per_kernel_after", 685.5}};
  j["results"][2]["sections"]["device_probe"] = probe;
  j["results"][1]["sections"]["device_probe"] = {{"chain_kernels", 256}, {"error", "cudaGraphLaunch returned e"}};
  const Report r = report_from_json(j, "x.json");
  ASSERT_TRUE(r.results[2].sections.device_probe.has_value());
  EXPECT_EQ(r.results[2].sections.device_probe->ns_per_kernel, 508.25);
  EXPECT_EQ(r.results[2].sections.device_probe->ns_per_kernel_after, 685.5);
  EXPECT_FALSE(r.results[2].sections.other.contains("device_probe"));
  EXPECT_EQ(to_json(r)["results"][2]["sections"]["device_probe"], probe);
  EXPECT_TRUE(std::isnan(r.results[1].sections.device_probe->ns_per_kernel));
  EXPECT_EQ(to_json(r)["results"][1]["sections"]["device_probe"], j["results"][1]["sections"]["device_probe"]);
  j["results"][2]["sections"]["device_probe"]["ns_per_kernel"] = "fast";
  try {
    (void)report_from_json(j, "x.json");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("results[2].sections.device_probe.ns_per_kernel: expected a number"),
              std::string::npos)
        << e.what();
  }
  // A count beyond its type's range (chain_kernels is an int) is bad input, not an undefined cast.
  j["results"][2]["sections"]["device_probe"] = {{"chain_kernels", 1e20}, {"ns_per_kernel", 508.25}};
  try {
    (void)report_from_json(j, "x.json");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kBadInput);
    EXPECT_NE(std::string(e.what()).find("results[2].sections.device_probe.chain_kernels: "),
              std::string::npos)
        << e.what();
  }
}

// A trace section made from real H200 records (tests/data/trace) round-trips through JSON.
TEST(ReportSections, TraceSectionFromRealRecordsRoundTrips) {
  const std::string stem = (kSectionsData / "trace" / "chain_elements-4096_kernels-10_sync_inside-0_capture").string();
  const TraceData data = trace_data_from_json(read_json_file(stem + ".trace.json"), stem + ".trace.json");
  const DotGraphInfo dot = dot_graph_info(load_dot(stem + ".dot"));
  const TraceSummary s = summarize_trace(data, NodeJoin::build(data, &dot), &dot);
  TraceSection t = to_section(s);
  ModeResult res;
  res.mode = Mode::kCapture;
  add_timing_checks(t, res, s, {1000.0, 1010.0, 990.0, 1005.0, 995.0});
  t.dropped_records = 0;
  t.attempts = 1;
  ASSERT_EQ(t.nodes.size(), 10u);
  res.sections.trace = t;
  const json j = to_json(res);
  const Report back = report_from_json(json{{"schema_version", kReportSchemaVersion}, {"results", json::array({j})}},
                                       "t.json");
  ASSERT_TRUE(back.results[0].sections.trace.has_value());
  EXPECT_EQ(to_json(back.results[0]), j);
  const TraceSection& b = *back.results[0].sections.trace;
  EXPECT_EQ(b.nodes[3].dot_name, t.nodes[3].dot_name);
  EXPECT_EQ(b.nodes[3].median_ns, t.nodes[3].median_ns);
  EXPECT_FALSE(b.perturbation.untraced.has_value());  // no untraced metric in this result
  EXPECT_EQ(j["sections"]["trace"]["perturbation"]["untraced_gpu_time_per_iter_ns"], nullptr);
  EXPECT_EQ(b.perturbation.traced.n, 5u);
}

// Settings: every known key has a typed field, unknown ones are kept, and every committed report's
// settings write back exactly as read (the goldens and old reports stay as they are).
TEST(RunSettings, CommittedReportsWriteTheirSettingsBackUnchanged) {
  int read = 0;
  for (const auto& file : readable_reports()) {
    const fs::path& p = file.first;
    const json& j = file.second;
    if (!j.contains("settings")) continue;
    SCOPED_TRACE(p.string());
    const RunSettings s = settings_from_json(j.at("settings"), p.string());
    EXPECT_EQ(to_json(s), j.at("settings"));
    EXPECT_TRUE(s.extra.empty()) << "a key graphprof writes is not typed: " << s.extra.dump();
    ++read;
  }
  EXPECT_GE(read, 20);
}

TEST(RunSettings, KnownKeysAreTypedAndUnknownOnesKept) {
  const json in = {{"target_rel_ci", 0.01},     {"min_samples", 20},      {"repetitions", 2},
                   {"latch", "kernel"},          {"isolate", true},        {"processes", 3},
                   {"rank_gpus", {{{"ordinal", 1}, {"pci_bus_id", "0000:19:00.0"}}}},
                   {"command", "profile"},       {"from_a_newer_graphprof", {{"x", 1}}}};
  const RunSettings s = settings_from_json(in, "x.json");
  EXPECT_EQ(s.target_rel_ci.value_or(0), 0.01);
  EXPECT_EQ(s.min_samples.value_or(0), 20);
  EXPECT_EQ(s.latch.value_or(""), "kernel");
  EXPECT_TRUE(s.isolate.value_or(false));
  EXPECT_EQ(s.processes_or_one(), 3);
  ASSERT_TRUE(s.rank_gpus);
  ASSERT_EQ(s.rank_gpus->size(), 1u);
  EXPECT_EQ((*s.rank_gpus)[0].pci_bus_id, "0000:19:00.0");
  EXPECT_FALSE(s.max_samples || s.time_limit_seconds || s.trace);
  EXPECT_EQ(s.extra, (json{{"from_a_newer_graphprof", {{"x", 1}}}}));
  EXPECT_EQ(to_json(s), in);
  EXPECT_EQ(RunSettings{}.processes_or_one(), 1);
  EXPECT_EQ(to_json(RunSettings{}), json::object());

  const auto error_of = [](const json& settings) {
    return bad_input_of([&] { (void)settings_from_json(settings, "x.json"); });
  };
  EXPECT_EQ(error_of({{"latch", 3}}), "x.json: settings.latch: expected a string");
  EXPECT_EQ(error_of({{"isolate", "yes"}}), "x.json: settings.isolate: expected true or false");
  EXPECT_EQ(error_of({{"processes", "two"}}), "x.json: settings.processes: expected a whole number, got \"two\"");
  EXPECT_EQ(error_of({{"rank_gpus", {{{"ordinal", 0}}}}}), "x.json: settings.rank_gpus[0]: missing field 'pci_bus_id'");
  EXPECT_EQ(error_of({{"target_rel_ci", 1e300}}).rfind("x.json: settings.target_rel_ci: value ", 0), 0u);
}

TEST(MetricCatalog, KeysAreUniqueAndDocumented) {
  std::ifstream in(fs::path(GRAPHPROF_TEST_DATA).parent_path().parent_path() / "docs" / "report-schema.md");
  std::stringstream doc;
  doc << in.rdbuf();
  ASSERT_FALSE(doc.str().empty());
  std::set<std::string> keys;
  for (const MetricInfo& m : metric_catalog()) {
    EXPECT_TRUE(keys.insert(m.key).second) << m.key;
    EXPECT_NE(doc.str().find(std::string("`") + m.key + "`"), std::string::npos) << m.key << " is not in docs/report-schema.md";
    EXPECT_NE(std::string(m.label), "");
    EXPECT_NE(std::string(m.description), "");
  }
  EXPECT_EQ(metric_order(metric_key::kGpuTimePerIter), 0);
  EXPECT_GT(metric_order("a_workload_figure"), metric_order(metric_key::kFirstLaunchTime));
  EXPECT_EQ(metric_label("a_workload_figure"), "a_workload_figure");
}

TEST(MetricCatalog, GatingClasses) {
  EXPECT_EQ(gate_class(metric_key::kGpuTimePerIter, Mode::kGraph), GateClass::kDeviceStable);
  EXPECT_EQ(gate_class(metric_key::kGpuTimePerIter, Mode::kEager), GateClass::kHostSide);  // launch-bound
  EXPECT_EQ(gate_class(metric_key::kGpuTimePerIterLatched, Mode::kEager), GateClass::kDeviceStable);
  EXPECT_EQ(gate_class(metric_key::kLaunchCpuPerCall, Mode::kCapture), GateClass::kHostSide);
  EXPECT_EQ(gate_class(metric_key::kInstantiateTime, Mode::kGraph), GateClass::kOneOff);
  EXPECT_EQ(gate_class(metric_key::kHostTimePerIterBatched, Mode::kGraph), GateClass::kInformational);
  EXPECT_EQ(gate_class("unknown", Mode::kGraph), GateClass::kInformational);
}

}  // namespace
}  // namespace gp
