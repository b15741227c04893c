// Golden outputs of the run, trace, analyze and profile text, made from the committed real H200
// reports (tests/data/h200), trace records (tests/data/trace), DOT dumps (tests/data/dot) and
// profile records (tests/data/profile/h200); the golden files are in tests/data/golden.
// They depend on the input files only (no clock, no host, no environment), so they are the same
// on every machine. Regenerate after an intended change with
//   GRAPHPROF_UPDATE_GOLDEN=1 ctest --test-dir build -R Golden   (then review the diff)
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "golden.hpp"
#include "step_range_records.hpp"
#include "graphprof/graph/dot_graph_info.hpp"
#include "graphprof/core/atomic_file.hpp"
#include "graphprof/graph/graph_analysis.hpp"
#include "graphprof/report/graph_analysis_text.hpp"
#include "graphprof/graph/graph_model.hpp"
#include "graphprof/profile/profile.hpp"
#include "graphprof/report/profile_text.hpp"
#include "graphprof/core/report.hpp"
#include "graphprof/report/reporter.hpp"
#include "graphprof/trace/trace_analysis.hpp"
#include "graphprof/trace/trace_records.hpp"
#include "graphprof/report/trace_summary_text.hpp"

namespace gp {
namespace {

const std::string kGoldenData = GRAPHPROF_TEST_DATA;

void expect_golden(const std::string& name, const std::string& text) {
  expect_golden_file(kGoldenData + "/golden/" + name, text);
}

Report h200(const std::string& name) { return read_report(kGoldenData + "/h200/" + name); }

std::string run_console(const Report& r, bool verbose) {
  std::ostringstream o;
  RunConsoleReporter(verbose).write(r, o);
  return o.str();
}

// The default console is the answer (the summary and the answer line); --verbose adds every metric.
TEST(OutputGolden, RunConsole) {
  expect_golden("run_chain.txt", run_console(h200("chain_run1.json"), false));
  expect_golden("run_chain_verbose.txt", run_console(h200("chain_run1.json"), true));
  expect_golden("run_chain_sync_inside.txt", run_console(h200("chain_sync_inside.json"), false));  // a failed mode
  expect_golden("run_chain_sync_inside_verbose.txt", run_console(h200("chain_sync_inside.json"), true));
}

// The default suite on the H200 (one of the gate's real runs, tests/data/gate/A): one row per
// workload and the answer line, no per-mode tables.
TEST(OutputGolden, RunConsoleSuite) {
  const std::string text = run_console(read_report(kGoldenData + "/gate/A/run1.json"), false);
  EXPECT_NE(text.find("\nanswer: graphs pay off"), std::string::npos) << text;
  EXPECT_EQ(text.find("GPU time / iteration (events"), std::string::npos) << "per-mode tables are --verbose only";
  expect_golden("run_suite_h200.txt", text);
}

TEST(OutputGolden, RunMarkdown) {
  for (const char* name : {"chain_run1", "chain_sync_inside"}) {
    std::ostringstream o;
    MarkdownReporter().write(h200(std::string(name) + ".json"), o);
    expect_golden(std::string("run_") + name + ".md", o.str());
  }
}

TEST(OutputGolden, SweepConsole) {
  for (const bool verbose : {false, true}) {
    std::ostringstream o;
    SweepConsoleReporter(verbose).write(h200("sweep_chain.json"), o);
    expect_golden(verbose ? "sweep_chain_verbose.txt" : "sweep_chain.txt", o.str());
  }
}

// The trace summary of the real H200 records (chain, 10 kernels; eager, capture, graph). The
// records hold neither the untraced timing pass nor the traced passes' event timings, so those
// columns read "-"; everything else comes from the records.
TEST(OutputGolden, TraceSummary) {
  Report rep;
  for (Mode m : {Mode::kEager, Mode::kCapture, Mode::kGraph}) {
    const std::string stem = kGoldenData + "/trace/chain_elements-4096_kernels-10_sync_inside-0_" + to_string(m);
    const TraceData data = trace_data_from_json(read_json_file(stem + ".trace.json"), stem + ".trace.json");
    DotGraphInfo dot;
    const bool has_dot = m != Mode::kEager;
    if (has_dot) dot = dot_graph_info(load_dot(stem + ".dot"));
    const TraceSummary s = summarize_trace(data, NodeJoin::build(data, has_dot ? &dot : nullptr), has_dot ? &dot : nullptr);
    ModeResult res;
    res.workload = "chain";
    res.params = {{"elements", "4096"}, {"kernels", "10"}, {"sync_inside", "0"}};
    res.mode = m;
    res.status = Status::kOk;
    TraceSection t = to_section(s);
    add_timing_checks(t, res, s, {});
    t.perturbation = TracePerturbation{};  // no traced timings: '-', not the 0 ns an empty sample set gives
    t.dropped_records = data.dropped_records;
    t.attempts = 1;
    res.sections.trace = t;
    rep.results.push_back(res);
  }
  const std::string text = format_trace_summary(rep);
  EXPECT_NE(text.find("slowest nodes (10 attributed)"), std::string::npos);
  expect_golden("trace_summary_chain.txt", text);
}

// A WHILE body's nodes run several times per replay: the summary ranks them by their time per
// replay and adds the "per replay" and "runs/replay" columns (real H200 records, tests/data/trace).
TEST(OutputGolden, TraceSummaryWithLoopBody) {
  const std::string stem = kGoldenData + "/trace/while_elements-4096_max_steps-1000_tolerance-0.001_graph";
  const TraceData data = trace_data_from_json(read_json_file(stem + ".trace.json"), stem + ".trace.json");
  const DotGraphInfo dot = dot_graph_info(load_dot(stem + ".dot"));
  const TraceSummary s = summarize_trace(data, NodeJoin::build(data, &dot), &dot);
  ModeResult res;
  res.workload = "while";
  res.params = {{"elements", "4096"}, {"max_steps", "1000"}, {"tolerance", "0.001"}};
  res.mode = Mode::kGraph;
  res.status = Status::kOk;
  TraceSection t = to_section(s);
  add_timing_checks(t, res, s, {});
  t.perturbation = TracePerturbation{};
  t.dropped_records = data.dropped_records;
  t.attempts = 1;
  res.sections.trace = t;
  Report rep;
  rep.results.push_back(res);
  const std::string text = format_trace_summary(rep);
  EXPECT_NE(text.find("runs/replay"), std::string::npos);
  expect_golden("trace_summary_while.txt", text);
}

// `graphprof analyze` text of a real captured fork-join dump (the verbose form: kernel names,
// launch configurations, findings).
TEST(OutputGolden, AnalyzeText) {
  expect_golden("analyze_fork-join_capture_verbose.txt",
                analysis_text(analyze(load_dot_text(read_file(kGoldenData + "/dot/fork-join_capture_verbose.dot"),
                                                    "fork-join_capture_verbose.dot"),
                                      nullptr)));
}

// `graphprof analyze --report` on the H200's traced fork-join dump: 66 kernels of about the same
// time, so the text says that none stands out, as the heat map's legend does.
TEST(OutputGolden, AnalyzeTextWithNodeTimes) {
  const std::string dot = kGoldenData + "/h200/traced_dot/fork-join_depth-8_elements-4096_width-8_capture.dot";
  NodeTimes times = node_times_from_report(h200("traced_run.json"), "traced_run.json", dot);
  const GraphModel model = load_dot_text(read_file(dot), "fork-join_depth-8_elements-4096_width-8_capture.dot");
  const std::string text = analysis_text(analyze(model, &times));
  EXPECT_NE(text.find("within 2x of the median"), std::string::npos) << text;
  expect_golden("analyze_fork-join_capture_timed.txt", text);
}

// `graphprof profile`'s console summary of the H200 test application's records (graphs, launches,
// eager work, capture trouble), with a fixed run description: no clock, no host.
TEST(OutputGolden, ProfileSummary) {
  ProfileRun run;
  run.program = "graphprof_graph_app";
  run.command = {"graphprof_graph_app", "--launches", "20", "--eager", "5", "--bad-capture"};
  run.exit_status = 0;
  run.exit_description = "exited with status 0";
  run.wall_ns = 2.0e9;
  const ProcessProfile p = analyze_process(read_process_records(kGoldenData + "/profile/h200/proc-2096.jsonl"));
  // The render hint names the dump where it is: the test data folder, which differs per checkout.
  std::string text = format_profile_summary(profile_report(run, {p}), true, "prof/report.json");
  for (std::size_t at; (at = text.find(kGoldenData)) != std::string::npos;) text.replace(at, kGoldenData.size(), "TEST_DATA");
  expect_golden("profile_summary_graph_app.txt", text);
  // profile's default console: no per-node, per-kernel or per-call lists, one line for the work outside graphs.
  const std::string brief = format_profile_summary(profile_report(run, {p}), false);
  EXPECT_EQ(brief.find("slowest nodes"), std::string::npos) << brief;
  EXPECT_NE(brief.find("outside graphs: 5 eager kernels"), std::string::npos) << brief;
  expect_golden("profile_summary_graph_app_brief.txt", brief);
}

// --overhead-windows' lines under the header: the H200 figures of the PyTorch serving loop
// (evidence/overhead/overhead-windows-h200.txt; four windowed runs, one with too few windows of its
// own added), over the brief summary of the test application's records.
TEST(OutputGolden, ProfileSummaryOverheadWindows) {
  ProfileRun run;
  run.program = "serving_loop.py";
  run.command = {"python3", "serving_loop.py", "--steps", "30000"};
  run.exit_description = "exited with status 0";
  run.wall_ns = 8.78e9;
  run.trace_level = TraceLevel::kNone;
  WindowsOverhead w;
  w.period_ms = 50;
  w.start_ms = 300;
  const double rec[] = {105e3, 106e3, 110e3, 120e3}, paused[] = {103e3, 104e3, 108e3, 117e3}, change[] = {0.014, 0.025, 0.023, 0.022};
  const std::size_t compared[] = {31, 28, 29, 36};
  for (int i = 0; i < 4; ++i) {
    WindowsRun r;
    r.wall_ns = 8.5e9;
    r.processes = 1;
    r.windows = 2 * compared[i] + 2;
    r.compared = compared[i];
    r.change = change[i];
    r.recording_ns = rec[i];
    r.paused_ns = paused[i];
    w.runs.push_back(r);
  }
  WindowsRun short_run;
  short_run.status = 1;
  short_run.processes = 1;
  short_run.windows = 5;
  short_run.compared = 2;
  w.runs.push_back(short_run);
  w.change = WindowsChange{126, 0.020, 0.016, 0.024, 0.96, 108e3, 106e3};
  run.overhead_windows = w;
  const ProcessProfile p = analyze_process(read_process_records(kGoldenData + "/profile/h200/proc-2096.jsonl"));
  expect_golden("profile_summary_overhead_windows.txt", format_profile_summary(profile_report(run, {p}), false));
}

// The console summary with call sites and ledgers: the H200 records of tests/apps/call_site_app.cu
// (known sites, a memory node, one site captured for three shapes) and of
// tests/apps/python/serving_buckets.py (three buckets in one shared pool), recorded without and with
// Python frames.
TEST(OutputGolden, ProfileSummaryWithCallSites) {
  ProfileRun run;
  run.exit_status = 0;
  run.exit_description = "exited with status 0";
  run.wall_ns = 2.0e9;
  run.program = "graphprof_call_site_app";
  run.command = {"graphprof_call_site_app", "--steps", "40"};
  // The render hint names the dump where it is (the test data folder differs per checkout).
  const auto summary = [&](const ProcessProfile& p) {
    std::string text = format_profile_summary(profile_report(run, {p}), true, "prof/report.json");
    for (std::size_t at; (at = text.find(kGoldenData)) != std::string::npos;) text.replace(at, kGoldenData.size(), "TEST_DATA");
    return text;
  };
  const ProcessProfile app = analyze_process(read_process_records(kGoldenData + "/profile/h200/call_site_app/proc-4180.jsonl"));
  expect_golden("profile_summary_call_site_app.txt", summary(app));
  // --step-range step: a step is one NVTX range around each loop step (step_range_records.hpp).
  expect_golden("profile_summary_call_site_app_step_range.txt",
                summary(analyze_process(test::records_with_ranges(test::loop_step_ranges()))));
  run.program = "serving_buckets.py";
  run.command = {"python3", "serving_buckets.py", "--steps", "24", "--buckets", "1,4,16", "--hidden", "1024"};
  const ProcessProfile serve = analyze_process(read_process_records(kGoldenData + "/profile/h200/serving_buckets/proc-4276.jsonl"));
  expect_golden("profile_summary_serving_buckets.txt", summary(serve));
  // The same program with Python frames (the GIL taken for the read): sites are its own lines.
  const ProcessProfile serve_py = analyze_process(read_process_records(kGoldenData + "/profile/h200/serving_buckets_py/proc-5450.jsonl"));
  expect_golden("profile_summary_serving_buckets_py.txt", summary(serve_py));
  expect_golden("profile_summary_serving_buckets_py_brief.txt", format_profile_summary(profile_report(run, {serve_py}), false));
  // Recorded by a library that names each allocation's call site: the "allocated at" table.
  const ProcessProfile serve_alloc =
      analyze_process(read_process_records(kGoldenData + "/profile/h200/serving_buckets_alloc/proc-14855.jsonl"));
  expect_golden("profile_summary_serving_buckets_alloc.txt", summary(serve_alloc));
  // The light default (--trace none, interposed, call sites sampled): no GPU records, eager work
  // ranked by host time, the interposer's own cost in the steps.
  const ProcessProfile light =
      analyze_process(read_process_records(kGoldenData + "/profile/h200/serving_buckets_light/proc-4586.jsonl"));
  run.trace_level = TraceLevel::kNone;
  expect_golden("profile_summary_serving_buckets_light.txt", summary(light));
}

}  // namespace
}  // namespace gp
