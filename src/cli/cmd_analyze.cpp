// graphprof analyze FILE.dot: what a cudaGraphDebugDotPrint dump contains and what its shape
// costs. Text on stdout; --json writes the documented JSON (docs/graphs.md) atomically.
#include <iostream>
#include <optional>

#include "commands.hpp"
#include "graphprof/atomic_file.hpp"
#include "graphprof/error.hpp"
#include "graphprof/graph_analysis.hpp"
#include "graphprof/report.hpp"

namespace gp::cli {

namespace {

struct AnalyzeOptions {
  std::string dot;
  std::string json_path;
  std::string report;
  std::string workload;
  std::string mode;
};

int analyze_command(const AnalyzeOptions& o) {
  if (o.report.empty() && (!o.workload.empty() || !o.mode.empty()))
    throw usage_error("--workload and --mode pick a result of --report; there is no --report");
  if (!o.json_path.empty() && o.json_path != "-") check_output_path("--json", o.json_path);
  const GraphModel model = load_dot(o.dot);
  for (const auto& w : model.warnings) std::cerr << "graphprof: warning: " << o.dot << ": " << w << "\n";
  std::optional<NodeTimes> times;
  if (!o.report.empty()) times = node_times_from_report(read_report(o.report), o.report, o.dot, o.workload, o.mode);
  if (times) add_gap_times(model, *times);
  const GraphMetrics metrics = analyze(model, times ? &*times : nullptr);

  if (o.json_path == "-") {
    std::cout << to_json(metrics).dump(2) << "\n";
    return 0;
  }
  std::cout << analysis_text(metrics);
  if (!o.json_path.empty()) {
    write_file_atomic(o.json_path, to_json(metrics).dump(2) + "\n");
    std::cout << "\nanalysis written to " << o.json_path << "\n";
  }
  return 0;
}

}  // namespace

void setup_analyze(CLI::App& app, int& exit_code) {
  auto opts = std::make_shared<AnalyzeOptions>();
  auto* sub = app.add_subcommand("analyze", "Analyze a CUDA graph DOT dump: counts, depth, width, critical path, findings");
  sub->add_option("dot", opts->dot, "DOT file written by cudaGraphDebugDotPrint (default or verbose flags)")
      ->required();
  sub->add_option("--json", opts->json_path, "also write the analysis as JSON to this file ('-': JSON only, on stdout)");
  sub->add_option("--report", opts->report, "report of `graphprof run` with per-node times: adds the timed critical path");
  sub->add_option("--workload", opts->workload, "with --report: the result's workload, when the dump's name does not pick it");
  sub->add_option("--mode", opts->mode, "with --report: the result's mode (capture or graph)");
  sub->footer("Exit codes: 0 ok, 2 usage, 3 unreadable or malformed DOT/report.");
  sub->callback([opts, &exit_code] { exit_code = analyze_command(*opts); });
}

}  // namespace gp::cli
