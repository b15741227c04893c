// graphprof analyze FILE.dot: what a cudaGraphDebugDotPrint dump contains and what its shape
// costs. Text on stdout; --json writes the documented JSON (docs/graphs.md) atomically.
#include <iostream>

#include "commands.hpp"
#include "help_format.hpp"
#include "graph_input.hpp"
#include "option_checks.hpp"
#include "graphprof/core/json_text.hpp"
#include "graphprof/core/atomic_file.hpp"
#include "graphprof/report/graph_analysis_text.hpp"

namespace gp::cli {

namespace {

struct AnalyzeOptions {
  GraphInputOptions input;
  std::string json_path;
};

int analyze_command(const AnalyzeOptions& o) {
  check_graph_input(o.input);
  if (!o.json_path.empty()) check_output_path("--json", o.json_path);
  outputs_apart({{"the DOT dump", o.input.dot}, {"--report", o.input.report}}, {{"--json", o.json_path}});
  const GraphInput in = load_graph_input(o.input);
  const GraphMetrics& metrics = in.metrics;

  if (writes_to_stdout(o.json_path)) {  // '-', /dev/stdout, /dev/fd/1: the JSON alone
    std::cout << json_text(to_json(metrics), 2) << "\n";
    return 0;
  }
  std::cout << analysis_text(metrics);
  if (!o.json_path.empty()) {
    write_file_atomic(o.json_path, json_text(to_json(metrics), 2) + "\n");
    std::cout << "\nanalysis written to " << o.json_path << "\n";
  }
  return 0;
}

}  // namespace

void setup_analyze(CLI::App& app, int& exit_code) {
  auto opts = std::make_shared<AnalyzeOptions>();
  auto* sub = app.add_subcommand("analyze", "Analyze a CUDA graph DOT dump: counts, depth, width, critical path, findings");
  add_dot_argument(*sub, opts->input);
  sub->add_option("--json", opts->json_path, "also write the analysis as JSON to this file ('-': JSON only, on stdout)");
  add_report_options(*sub, opts->input, "report of `graphprof run` with per-node times: adds the timed critical path");
  help_footer(sub, "Exit codes: 0 ok, 2 usage, 3 unreadable or malformed DOT/report.",
              {"graphprof analyze graph.dot", "graphprof analyze out/dot/chain_capture.dot --report out/report.json"});
  sub->callback([opts, &exit_code] { exit_code = analyze_command(*opts); });
}

}  // namespace gp::cli
