// The input `analyze` and `render` share (see graph_input.hpp).
#include "graph_input.hpp"

#include <iostream>

#include "graphprof/error.hpp"
#include "graphprof/report.hpp"

namespace gp::cli {

void add_dot_argument(CLI::App& sub, GraphInputOptions& o) {
  sub.add_option("dot", o.dot, "DOT file written by cudaGraphDebugDotPrint (default or verbose flags)")->required();
}

void add_report_options(CLI::App& sub, GraphInputOptions& o, const char* report_help) {
  sub.add_option("--report", o.report, report_help);
  sub.add_option("--workload", o.workload, "with --report: the result's workload, when the dump's name does not pick it");
  sub.add_option("--mode", o.mode, "with --report: the result's mode (capture or graph)");
  sub.add_option("--exec", o.exec, "with a profile's --report: the graph exec (a renamed dump is found by the graph id it carries)");
}

void check_graph_input(const GraphInputOptions& o) {
  if (o.report.empty() && (!o.workload.empty() || !o.mode.empty() || !o.exec.empty()))
    throw usage_error("--workload, --mode and --exec pick a result of --report; there is no --report");
}

GraphInput load_graph_input(const GraphInputOptions& o) {
  GraphInput in;
  in.model = load_dot(o.dot);
  // Before anything else is printed, and whatever the command writes (analyze --json - too).
  for (const auto& w : in.model.warnings) std::cerr << "graphprof: warning: " << o.dot << ": " << w << "\n";
  if (!o.report.empty())
    in.times = node_times_from_report(read_report(o.report), o.report, o.dot, o.workload, o.mode, o.exec, top_level_graph_id(in.model));
  if (in.times) add_gap_times(in.model, *in.times);
  in.metrics = analyze(in.model, in.times_or_null());
  return in;
}

}  // namespace gp::cli
