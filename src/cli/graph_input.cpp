// The input `analyze` and `render` share (see graph_input.hpp).
#include "graph_input.hpp"

#include <iostream>
#include <map>

#include "graphprof/core/error.hpp"
#include "graphprof/core/report.hpp"
#include "graphprof/core/text_format.hpp"

namespace gp::cli {

void add_dot_argument(CLI::App& sub, GraphInputOptions& o) {
  sub.add_option("dot", o.dot, "DOT file written by cudaGraphDebugDotPrint (default or verbose flags; '-': stdin)")
      ->required();
  sub.add_flag("--verbose", o.verbose,
               "every warning about the dump, one line each (by default the same warning for many nodes prints once, with a "
               "count and a few of their names)");
}

std::vector<std::string> summarize_warnings(const std::vector<std::string>& warnings, bool verbose) {
  if (verbose) return warnings;
  // Warnings about a node start with its name: the rest is the kind of warning.
  constexpr std::size_t kExamples = 3;
  struct Group {
    std::string first;
    std::vector<std::string> others;  // up to kExamples names
    std::size_t more = 0;
  };
  std::vector<Group> groups;
  std::map<std::string, std::size_t> by_kind;
  for (const std::string& w : warnings) {
    const std::size_t space = w.find(' ');
    const bool about_node = w.rfind("graph_", 0) == 0 && space != std::string::npos;
    const std::string kind = about_node ? w.substr(space) : w;
    const auto [it, fresh] = by_kind.emplace(kind, groups.size());
    if (fresh) {
      groups.push_back({w, {}, 0});
      continue;
    }
    Group& g = groups[it->second];
    ++g.more;
    if (about_node && g.others.size() < kExamples) g.others.push_back(w.substr(0, space));
  }
  std::vector<std::string> out;
  for (const Group& g : groups) {
    if (g.more == 0) {
      out.push_back(g.first);
      continue;
    }
    std::string line = g.first + " (and " + group_digits(g.more) + " more alike";
    if (!g.others.empty()) line += ", e.g. " + join(g.others, ", ");
    out.push_back(line + "; --verbose lists every one)");
  }
  return out;
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
  for (const auto& w : summarize_warnings(in.model.warnings, o.verbose))
    std::cerr << "graphprof: warning: " << o.dot << ": " << w << "\n";
  if (!o.report.empty()) in.times = node_times_from_report(read_report(o.report), o.report, o.dot, o.workload, o.mode, o.exec, top_level_graph_id(in.model));
  if (in.times) add_gap_times(in.model, *in.times);
  in.metrics = analyze(in.model, in.times_or_null());
  return in;
}

}  // namespace gp::cli
