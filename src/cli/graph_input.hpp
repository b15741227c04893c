// What `analyze` and `render` both read: a DOT dump and, optionally, a report of `graphprof run`
// whose per-node times time the graph. One set of options, one way to load them.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "graphprof/graph/graph_analysis.hpp"

namespace gp::cli {

struct GraphInputOptions {
  std::string dot;
  std::string report;
  std::string workload;
  std::string mode;
  std::string exec;
  bool verbose = false;  // every warning about the dump, not each kind once with a count
};

// Adds the DOT argument / --report, --workload, --mode and --exec (`report_help` says what the times add).
// Two calls, so that each command's own options can stand between them in its --help.
void add_dot_argument(CLI::App& sub, GraphInputOptions& o);
void add_report_options(CLI::App& sub, GraphInputOptions& o, const char* report_help);

// The dump's warnings for stderr: each kind once (the same message about different nodes: its
// first occurrence, how many more and a few of their names), or every one with `verbose`.
std::vector<std::string> summarize_warnings(const std::vector<std::string>& warnings, bool verbose);

// A usage error for --workload, --mode or --exec without --report.
void check_graph_input(const GraphInputOptions& o);

struct GraphInput {
  GraphModel model;
  std::optional<NodeTimes> times;  // with --report
  GraphMetrics metrics;
  const NodeTimes* times_or_null() const { return times ? &*times : nullptr; }
};

// Loads the dump, the report's times for it (gaps added) and analyzes them.
GraphInput load_graph_input(const GraphInputOptions& o);

}  // namespace gp::cli
