// The HTML report and the CSV from committed H200 reports: what the page must hold (charts with
// their ids, tables, numbers from the report, escaping), that it fetches nothing, and the order
// of a comparison's verdicts. tests/browser/ opens the same pages in chromium.
#include <gtest/gtest.h>

#include <fstream>

#include <filesystem>
#include <regex>

#include "graphprof/graph/dot_graph_info.hpp"
#include "graphprof/core/atomic_file.hpp"
#include "graphprof/compare/comparison.hpp"
#include "graphprof/compare/report_merge.hpp"
#include "graphprof/report/compare_report.hpp"
#include "graphprof/report/html_report.hpp"
#include "graphprof/report/reporter.hpp"
#include "graphprof/trace/trace_analysis.hpp"
#include "graphprof/compare/comparison.hpp"
#include "graphprof/report/reporter.hpp"
#include "../../src/report/html_svg.hpp"

namespace gp {
namespace {

const std::string kHtmlData = GRAPHPROF_TEST_DATA;

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto pos = text.find(what); pos != std::string::npos; pos = text.find(what, pos + 1)) ++n;
  return n;
}

// The text of the element with this id, up to its closing tag of the same name (no nesting of the same tag).
std::string element(const std::string& page, const std::string& tag, const std::string& id) {
  const auto start = page.find("<" + tag + " xmlns=\"http://www.w3.org/2000/svg\" id=\"" + id + "\"");
  const auto plain = page.find("<" + tag + " id=\"" + id + "\"");
  const auto at = start != std::string::npos ? start : plain;
  if (at == std::string::npos) return {};
  const auto end = page.find("</" + tag + ">", at);
  return page.substr(at, end - at);
}

TEST(HtmlReport, RunReportHasSummaryBarsAndEnvironment) {
  const Report r = read_report(kHtmlData + "/h200/chain_run1.json");
  HtmlReportOptions o;
  o.graphs = false;
  const std::string page = render_html_report(r, o);
  EXPECT_EQ(page.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(page.find("<table id=\"table-summary\""), std::string::npos);
  // One bar per mode with its interval whisker, and the medians the report holds.
  const std::string gpu = element(page, "svg", "chart-gpu-chain");
  ASSERT_FALSE(gpu.empty());
  EXPECT_EQ(count(gpu, "<rect "), 3u);
  EXPECT_EQ(count(gpu, "class=\"gp-whisker\""), 9u);  // a line and two caps per mode
  EXPECT_NE(gpu.find("321 µs"), std::string::npos);  // eager
  EXPECT_NE(gpu.find("100 µs"), std::string::npos);  // capture and graph
  EXPECT_FALSE(element(page, "svg", "chart-submit-chain").empty());
  EXPECT_FALSE(element(page, "svg", "chart-launch-chain").empty());
  EXPECT_NE(page.find("3.20x"), std::string::npos);
  EXPECT_NE(page.find("NVIDIA H200"), std::string::npos);
  EXPECT_NE(page.find("--workload=chain"), std::string::npos);  // the command line
  EXPECT_EQ(page.find("id=\"comparison\""), std::string::npos);
}

TEST(HtmlReport, FetchesNothingAndHasNoScript) {
  const Report r = read_report(kHtmlData + "/h200/sweep_chain.json");
  const std::string page = render_html_report(r);
  EXPECT_EQ(page.find("<script"), std::string::npos);
  EXPECT_EQ(page.find("<link"), std::string::npos);
  EXPECT_EQ(page.find("url("), std::string::npos);
  EXPECT_FALSE(std::regex_search(page, std::regex("(src|href)=\"(https?:)?//")));
}

TEST(HtmlReport, SweepHasLogLogCurvesPerMode) {
  const Report r = read_report(kHtmlData + "/h200/sweep_chain.json");
  const std::string page = render_html_report(r);
  const std::string gpu = element(page, "svg", "chart-sweep-gpu-chain");
  ASSERT_FALSE(gpu.empty());
  EXPECT_EQ(count(gpu, "<polyline"), 3u);  // eager, capture, graph
  EXPECT_EQ(count(gpu, "<circle"), 3u * 5u + 3u);  // five grid points per mode, plus the legend
  EXPECT_NE(gpu.find("kernels (log scale)"), std::string::npos);
  // Break-even has no eager curve; per-node cost has all three.
  EXPECT_EQ(count(element(page, "svg", "chart-sweep-break-even-chain"), "<polyline"), 2u);
  EXPECT_EQ(count(element(page, "svg", "chart-sweep-per-node-chain"), "<polyline"), 3u);
  EXPECT_NE(page.find("<table id=\"table-sweep-chain\""), std::string::npos);
  // Sweep points are not drawn as graphs; they are listed.
  EXPECT_EQ(page.find("class=\"gp-graph-svg\""), std::string::npos);
}

TEST(HtmlReport, GraphsAreDrawnFromDumpsFoundInDotDirs) {
  const Report r = read_report(kHtmlData + "/h200/chain_run1.json");
  const auto dir = std::filesystem::temp_directory_path() / "gp_html_test_dot";
  std::filesystem::create_directories(dir);
  for (const char* mode : {"capture", "graph"})
    std::filesystem::copy_file(kHtmlData + "/dot/chain100_" + std::string(mode) + ".dot",
                               dir / ("chain_elements-4096_kernels-100_sync_inside-0_" + std::string(mode) + ".dot"),
                               std::filesystem::copy_options::overwrite_existing);
  HtmlReportOptions o;
  const std::string without = render_html_report(r, o);
  EXPECT_EQ(count(without, "class=\"gp-graph-svg\""), 0u);
  EXPECT_NE(without.find("is not here"), std::string::npos);
  o.dot_dirs = {dir.string()};
  const std::string with = render_html_report(r, o);
  EXPECT_EQ(count(with, "class=\"gp-graph-svg\""), 2u);
  EXPECT_EQ(with.find("<?xml"), std::string::npos);  // inlined, not a document in a document
  EXPECT_NE(with.find("id=\"gv0-graph0\""), std::string::npos);  // Graphviz ids made unique per picture
  EXPECT_NE(with.find("id=\"gv1-graph0\""), std::string::npos);
  std::filesystem::remove_all(dir);
}

// A report whose recorded dump is another file (hand-edited: /etc/passwd): the page says it is not a
// DOT dump and quotes nothing of it (a parse error quoted its first line: "found 'root'").
TEST(HtmlReport, AFileThatIsNotADotDumpIsNotQuotedOnThePage) {
  const auto dir = std::filesystem::temp_directory_path() / "gp_html_test_not_dot";
  std::filesystem::create_directories(dir);
  const std::string secret = (dir / "secret.txt").string();
  {
    std::ofstream f(secret);
    f << "root:x:0:0:secret-line:/root:/bin/sh\nmore\n";
  }
  Report r = read_report(kHtmlData + "/h200/chain_run1.json");
  ModeResult res = r.results[1];
  res.sections.graph.value().dot = secret;
  r.results = {res};
  const std::string page = render_html_report(r);
  EXPECT_EQ(page.find("secret-line"), std::string::npos);
  EXPECT_EQ(page.find("found '"), std::string::npos);
  EXPECT_NE(page.find("it is not a DOT dump"), std::string::npos);
  // A real dump behind a comment line is still drawn.
  const std::string dump = (dir / "commented.dot").string();
  {
    std::ofstream f(dump);
    f << "// a comment\n" << read_file(kHtmlData + "/dot/chain100_capture.dot");
  }
  res.sections.graph.value().dot = dump;
  r.results = {res};
  EXPECT_EQ(count(render_html_report(r), "class=\"gp-graph-svg\""), 1u);
  std::filesystem::remove_all(dir);
}

// A traced result built from the real H200 trace records of chain (10 kernels, captured) and the
// dump of the same run: the picture becomes a heat map and the trace table lists the result.
TEST(HtmlReport, TracedResultGivesAHeatMapAndATraceRow) {
  const std::string stem = kHtmlData + "/trace/chain_elements-4096_kernels-10_sync_inside-0_capture";
  const TraceData data = trace_data_from_json(read_json_file(stem + ".trace.json"), stem + ".trace.json");
  const DotGraphInfo dot = dot_graph_info(load_dot(stem + ".dot"));
  const NodeJoin join = NodeJoin::build(data, &dot);
  TraceSection trace = to_section(summarize_trace(data, join, &dot));
  trace.status = "ok";
  trace.level = "node";
  Report r = read_report(kHtmlData + "/h200/chain_run1.json");
  ModeResult res = r.results[1];  // capture
  res.params["kernels"] = "10";
  res.sections.graph.value().dot = stem + ".dot";
  res.sections.trace = trace;
  r.results = {res};
  const std::string page = render_html_report(r);
  EXPECT_EQ(count(page, "class=\"gp-graph-svg\""), 1u);
  EXPECT_NE(page.find("Colour: traced time per node"), std::string::npos);
  const std::string table = element(page, "table", "table-trace");
  ASSERT_FALSE(table.empty());
  EXPECT_NE(table.find("<td>chain</td>"), std::string::npos);
  EXPECT_NE(table.find("node"), std::string::npos);
}

// The real H200 run of while and host (graph mode) with its trace sections made again from the
// run's records by this build (tests/data/trace/): the loop body and the host nodes get times.
Report while_and_host_report() {
  const std::string dir = kHtmlData + "/trace/";
  Report r = read_report(dir + "while_host_graph_run.json");
  for (ModeResult& res : r.results) {
    std::string stem = dir + res.workload;
    for (const auto& [k, v] : res.params) stem += "_" + k + "-" + v;
    stem += "_graph";
    const TraceData data = trace_data_from_json(read_json_file(stem + ".trace.json"), stem + ".trace.json");
    const DotGraphInfo dot = dot_graph_info(load_dot(stem + ".dot"));
    TraceSection trace = to_section(summarize_trace(data, NodeJoin::build(data, &dot), &dot));
    trace.status = "ok";
    trace.perturbation = res.sections.trace.value().perturbation;
    res.sections.trace = trace;
  }
  return r;
}

TEST(HtmlReport, TheWhileLoopBodyAndTheHostNodesHaveTheirTimeInTheHeatMap) {
  HtmlReportOptions o;
  o.dot_dirs = {kHtmlData + "/trace"};
  const std::string page = render_html_report(while_and_host_report(), o);
  ASSERT_EQ(count(page, "class=\"gp-graph-svg\""), 2u);
  const auto host_at = page.find("id=\"graph-host-graph\"");
  ASSERT_NE(host_at, std::string::npos);
  const std::string loop = page.substr(0, host_at), host = page.substr(host_at);
  // The WHILE node says how often its body ran; the body's nodes show their time per replay.
  EXPECT_NE(loop.find("39 iterations per replay"), std::string::npos);
  EXPECT_EQ(count(loop, "(39 runs x "), 2u);
  EXPECT_NE(loop.find("loop bodies: summed over their runs"), std::string::npos);
  // wh_check (39 runs of ~2.6 µs) is the hot kernel, wh_init (one run, 0.8 µs) the cold one.
  auto box_of = [&](const std::string& label) {
    const auto at = loop.find(">" + label + "<");
    if (at == std::string::npos) return std::string();
    const auto start = loop.rfind("<g id=", at);
    return loop.substr(start, at - start);
  };
  EXPECT_NE(box_of("#0 wh_init").find("fill=\"#ffffcc\""), std::string::npos);
  // The hottest is the loop itself: 39 times the GPU's idle gap before the body's first kernel
  // (7.46 µs traced), more than the body's kernels take: 4x-10x the median node, the darkest
  // colour of this graph (the scale is anchored to the median node, not to the slowest).
  EXPECT_NE(box_of("#1 WHILE").find("fill=\"#feb24c\""), std::string::npos) << box_of("#1 WHILE");
  for (const char* darker : {"#fd8d3c", "#fc4e2a", "#e31a1c"}) EXPECT_EQ(count(loop, std::string("fill=\"") + darker), 0u);
  EXPECT_NE(loop.find("steps of 0.5x, 2x, 4x, 10x, 30x and 100x the median node"), std::string::npos);
  EXPECT_NE(loop.find("291 µs per replay"), std::string::npos);
  EXPECT_NE(loop.find("(GPU idle between iterations)"), std::string::npos);
  EXPECT_NE(loop.find("WHILE nodes: the GPU&#39;s idle time between iterations"), std::string::npos);
  EXPECT_NE(loop.find("wh_check takes 70%"), std::string::npos);
  // Host functions: the GPU's idle gap after each.
  EXPECT_EQ(count(host, "(GPU idle gap)"), 8u);
  EXPECT_NE(host.find("host nodes: the GPU&#39;s idle gap after them"), std::string::npos);
}

TEST(HtmlReport, TextIsEscaped) {
  Report r = read_report(kHtmlData + "/h200/chain_run1.json");
  for (auto& res : r.results) res.workload = "<b>&x";
  HtmlReportOptions o;
  o.graphs = false;
  const std::string page = render_html_report(r, o);
  EXPECT_EQ(page.find("<b>&x"), std::string::npos);
  EXPECT_NE(page.find("&lt;b&gt;&amp;x"), std::string::npos);
}

// The report page of `cand` with the comparison of two files of tests/data/reports.
std::string comparison_page(const std::string& base_name, const std::string& cand_name, Comparison* out = nullptr) {
  const Report base = read_report(kHtmlData + "/reports/" + base_name);
  const Report cand = read_report(kHtmlData + "/reports/" + cand_name);
  const Comparison c = compare(base, cand, Thresholds{});
  if (out != nullptr) *out = c;
  HtmlReportOptions o;
  o.graphs = false;
  o.comparison = compare_to_json(c, compare_exit_code(c.outcome));
  return render_html_report(cand, o);
}

TEST(HtmlReport, ComparisonListsRegressionsFirst) {
  Comparison c;
  const std::string page = comparison_page("base.json", "regression.json", &c);
  ASSERT_GT(c.count(Verdict::kRegression), 0u);
  const std::string table = element(page, "table", "table-compare");
  ASSERT_FALSE(table.empty());
  const auto first_regression = table.find(">regression<");
  ASSERT_NE(first_regression, std::string::npos);
  for (const char* later : {">inconclusive<", ">minor<", ">improvement<"}) {
    const auto at = table.find(later);
    if (at != std::string::npos) EXPECT_LT(first_regression, at) << later;
  }
  EXPECT_EQ(table.find(">same<"), std::string::npos);  // folded into their own table
  EXPECT_FALSE(element(page, "table", "table-compare-same").empty());
  const std::string chart = element(page, "svg", "chart-compare-changes");
  EXPECT_EQ(count(chart, "gp-verdict-regression"), c.count(Verdict::kRegression) - 1);  // one is informational
  EXPECT_NE(page.find("FAIL (exit 1)"), std::string::npos);
  EXPECT_LT(page.find("id=\"comparison\""), page.find("id=\"summary\""));
}

// Each row's threshold is in the table, and the chart marks the rows whose noise raised it.
TEST(HtmlReport, ComparisonShowsEachRowsThreshold) {
  const std::string page = comparison_page("noisy_base.json", "noisy_cand.json");
  const std::string table = element(page, "table", "table-compare");
  ASSERT_FALSE(table.empty());
  EXPECT_NE(table.find("<th>threshold</th>"), std::string::npos);
  EXPECT_NE(table.find("% (noise)</td>"), std::string::npos) << table.substr(0, 3000);
  EXPECT_NE(table.find(">3%</td>"), std::string::npos);
  const std::string chart = element(page, "svg", "chart-compare-changes");
  EXPECT_EQ(count(chart, "gp-row-threshold"), 2 * 4u);  // both edges of the 4 noisy device rows
  EXPECT_NE(chart.find("shaded: ±3% threshold; bars: a row"), std::string::npos);
}

// The H200 gate runs (7 a side, chain kernels slowed by 10 %): chart labels keep the workload and
// the mode ("chain/graph", not "...ain[elements=4096,kernels=100,sync_inside=0]/graph", which the
// chart cut at its left edge), the whole benchmark in the tooltip; the table's benchmark cell puts
// the parameters on a line of their own, so it wraps to the page.
TEST(HtmlReport, ComparisonLabelsKeepTheWorkloadAndTheMode) {
  auto side = [](const std::string& set) {
    std::vector<std::string> files;
    for (int i = 1; i <= 7; ++i) files.push_back(kHtmlData + "/gate/" + set + "/run" + std::to_string(i) + ".json");
    return merge_reports(read_distinct_reports(files), files);
  };
  Thresholds t;
  t.ignore_params = {"spin_cycles"};
  const Report cand = side("S10");
  HtmlReportOptions o;
  o.graphs = false;
  const Comparison c = compare(side("A"), cand, t, InputNames{"A", "S10"});
  o.comparison = compare_to_json(c, compare_exit_code(c.outcome));
  const std::string page = render_html_report(cand, o);
  const std::string chart = element(page, "svg", "chart-compare-changes");
  ASSERT_FALSE(chart.empty());
  EXPECT_NE(chart.find(">chain/graph gpu_time_per_iter</text>"), std::string::npos);
  EXPECT_NE(chart.find("<title>chain[elements=4096,kernels=100,sync_inside=0]/graph gpu_time_per_iter: regression"),
            std::string::npos);
  EXPECT_EQ(chart.find("…"), std::string::npos);  // nothing had to be cut
  const std::string table = element(page, "table", "table-compare");
  EXPECT_NE(table.find("<span title=\"chain[elements=4096,kernels=100,sync_inside=0]/graph\">chain/graph</span><br>"
                       "<span class=\"gp-note\">elements=4096 kernels=100 sync_inside=0</span>"),
            std::string::npos);

  // Rows of one workload and mode that differ in a parameter: the label names that parameter.
  nlohmann::json doc = {{"summary", {{"exit_code", 0}}}, {"rows", nlohmann::json::array()}};
  for (const char* kernels : {"32", "64"})
    doc["rows"].push_back({{"benchmark", std::string("update[elements=4096,kernels=") + kernels + "]/graph"},
                           {"workload", "update"}, {"mode", "graph"},
                           {"params", {{"elements", "4096"}, {"kernels", kernels}}},
                           {"metric", "gpu_time_per_iter"}, {"verdict", "same"}, {"gating", true},
                           {"estimate", {{"ratio", 1.001}}}});
  o.comparison = doc;
  const std::string sweep = element(render_html_report(cand, o), "svg", "chart-compare-changes");
  EXPECT_NE(sweep.find(">update[kernels=32]/graph gpu_time_per_iter</text>"), std::string::npos) << sweep;
  EXPECT_NE(sweep.find(">update[kernels=64]/graph gpu_time_per_iter</text>"), std::string::npos);
}

TEST(HtmlReport, WritesAtomicallyAndNamesABadPath) {
  const Report r = read_report(kHtmlData + "/h200/chain_run1.json");
  EXPECT_THROW(write_report_file(HtmlReporter(), r, "/nonexistent-folder/x.html"), Error);
}

TEST(RunCsv, OneRowPerMetricWithEveryParameterAsAColumn) {
  const Report r = read_report(kHtmlData + "/h200/sweep_chain.json");
  const std::string csv = CsvReporter().text(r);
  const std::string header = csv.substr(0, csv.find("\r\n"));
  EXPECT_EQ(header,
            "workload,elements,kernels,sync_inside,mode,status,kind,metric,unit,median,p10,p90,ci_low,ci_high,ci_level,n,"
            "converged");
  std::size_t rows = 0;
  for (const auto& res : r.results) rows += res.metrics.size() + res.derived.size();
  EXPECT_EQ(count(csv, "\r\n"), rows + 1);
  const Metric& m = r.results.front().metrics.at("gpu_time_per_iter");
  char median[40];
  std::snprintf(median, sizeof median, "%.15g", m.summary.median);
  EXPECT_NE(csv.find("chain,4096,1,0,eager,ok,measured,gpu_time_per_iter,ns," + std::string(median) + ","),
            std::string::npos);
}

TEST(RunCsv, QuotesFieldsAndRecordsFailures) {
  Report r = read_report(kHtmlData + "/h200/chain_run1.json");
  r.results[1].status = Status::kFailed;
  r.results[1].reason = "cudaStreamEndCapture failed, \"invalidated\"";
  const std::string csv = CsvReporter().text(r);
  EXPECT_NE(csv.find("capture,failed,status,\"cudaStreamEndCapture failed, \"\"invalidated\"\"\""), std::string::npos);
}

// Charts do bounded work whatever the figures: a top near 1e308 overflowed the axis to +inf and
// its tick loop never ended (bad_alloc after 56 s and 3.9 GB in `report`).
TEST(HtmlCharts, AxesOfHugeFiguresHaveAFewTicksAndEnd) {
  html::BarChart bars;
  bars.id = "b";
  bars.unit = "ns";
  bars.bars = {{"a", "c", 1.7e308, 1.0, 1.79e308, "x", ""}, {"b", "c", 1e300, 2.0, 1.0, "y", ""}};
  const std::string b = html::svg_bar_chart(bars);
  EXPECT_LT(b.size(), 100000u);
  EXPECT_NE(b.find("</svg>"), std::string::npos);
  html::ChangeChart changes;
  changes.id = "c";
  changes.rows = {{"m", "v", 1.7e308, -1.79e308, 1.79e308, ""}};
  const std::string c = html::svg_change_chart(changes);
  EXPECT_LT(c.size(), 100000u);
  html::LineChart lines;
  lines.id = "l";
  lines.series = {{"s", "c", {{1e-300, 1e-300, 1, 0, ""}, {1e300, 1e300, 1, 0, ""}}}};
  const std::string l = html::svg_loglog_chart(lines);
  EXPECT_LT(l.size(), 1000000u);
}

}  // namespace
}  // namespace gp
