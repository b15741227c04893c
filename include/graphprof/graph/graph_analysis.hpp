// Structural analysis of a loaded CUDA graph: counts by kind, depth, width, critical path,
// kernel and copy histograms, and findings that explain what the shape costs. Host-only and
// Graphviz-free; optionally joins measured per-node times from a `graphprof run` report.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "graphprof/graph/graph_model.hpp"

namespace gp {

struct Report;

// Measured time of one graph node over many replays (from the report's sections.trace.nodes).
struct NodeTime {
  // The node's time per replay of the graph. For a node that runs several times per replay (the
  // body of a WHILE node) that is the sum over its runs; run_median_ns is one run's, and p10/p90
  // are of single runs.
  double median_ns = 0, p10_ns = 0, p90_ns = 0;
  std::uint64_t count = 0;
  double runs = 1;            // runs per replay (median over replays)
  double run_median_ns = -1;  // one run's median when runs != 1; else -1 (median_ns is it)
  // Host nodes have no GPU record: their time is the GPU's idle gap before the node after them
  // (the trace's gap_before_median_ns of that node), marked here.
  bool from_gap = false;
};

// Per-node times for one dump, keyed by dot_name ("graph_<G>_node_<i>"), plus the whole-graph
// figures of the same result that some findings use.
struct NodeTimes {
  std::string origin;  // "run.json: chain kernels=100 capture", for messages and output
  std::map<std::string, NodeTime> by_node;
  std::optional<double> instantiate_ns;     // metrics.instantiate_time median
  std::optional<double> gpu_time_per_iter_ns;  // metrics.gpu_time_per_iter median
  // sections.trace.perturbation.ratio: traced / untraced GPU time per iteration. The node times
  // are traced (CUPTI), so they are this much slower than an untraced replay.
  std::optional<double> trace_slowdown;
  // gap_before_median_ns of the nodes that have one: the GPU idle time before each started.
  std::map<std::string, double> gap_before_ns;
};

// Nodes that no GPU record times but that hold the GPU up get the GPU's idle time they cause:
// - a host node, the idle gap before its successors (the host function runs in that gap; with
//   several successors the smallest gap; none when its successors have no gap);
// - a WHILE node whose body was timed, the idle time between the body's runs: the runs per replay
//   times the gap before the body's first node (the GPU starting the next iteration).
// Both are marked from_gap. Returns how many nodes got a time.
std::size_t add_gap_times(const GraphModel& model, NodeTimes& times);

// Find the result of `report` that dumped `dot_path` (same file name in sections.graph.dot or
// dot_verbose), or the one named by `workload`/`mode`/`exec` when given, and read its per-node
// times. A dump renamed since (no result names its file) is joined to a profile's graph by the
// graph id it carries (`dump_graph_id`, the G of graph_<G>_node_<i>: params.graph). Throws
// gp::Error: kUsage when no result or several results match (the message lists them), kBadInput
// when the matching result has no per-node times or they are malformed.
NodeTimes node_times_from_report(const Report& report, const std::string& report_path,
                                 const std::string& dot_path, const std::string& workload = {},
                                 const std::string& mode = {}, const std::string& exec = {},
                                 std::optional<long long> dump_graph_id = std::nullopt);

// The graph id of the dump's top-level graph (the G of its graph_<G>_node_<i>), if it has one.
std::optional<long long> top_level_graph_id(const GraphModel& model);

// Shape of one cudaGraph_t in the dump (top level, child graph or conditional body).
struct GraphShape {
  GraphId graph_id = -1;
  std::string parent;  // dot_name of the node that runs it; empty for the top level
  std::size_t nodes = 0, edges = 0, depth = 0, max_width = 0, roots = 0, leaves = 0;
};

struct CriticalPath {
  std::vector<std::size_t> nodes;  // indices into GraphModel::nodes, first to last
  std::vector<std::string> names;  // their dot_names
  bool timed = false;
  double time_ns = 0;         // timed: sum of weights along the path
  double serial_time_ns = 0;  // timed: sum of weights of every top-level node
};

struct KernelGroup {
  std::string short_name;
  std::vector<std::string> demangled;  // distinct full names (template instances), in file order
  std::size_t count = 0;
  std::map<std::string, std::size_t> launch_configs;  // "4,256,0" -> count
  std::size_t timed = 0;                              // nodes with a measured time
  double time_ns = 0;                                 // sum of their median times
};

struct CopyGroup {
  std::string direction;  // "HtoD", ...; "unknown" when the dump did not say
  std::size_t count = 0;
  std::uint64_t bytes = 0;
};

// A pattern that costs time, explained: what was seen (evidence, with numbers and node names)
// and what usually helps (advice).
struct Finding {
  std::string id;        // stable, snake_case: "tiny_kernel_chain", "host_node_serializes", ...
  std::string severity;  // "warning" (likely costs time) or "info"
  std::string title;
  std::string evidence;
  std::string advice;
  std::vector<std::string> nodes;  // a few dot_names to look at
};

// How timed nodes spread around the median timed node: the anchor of the heat map's colour steps
// and the one rule for "none stands out" (the heat map's legend and caption, `analyze`'s text).
// Each figure counts for `weight` nodes (a folded box stands for the nodes it times; its figure is
// their mean). Figures <= 0 are not timed.
struct NodeTimeSpread {
  double median_ns = 0, min_ns = 0, max_ns = 0;
  std::size_t timed = 0;   // nodes with a positive time
  bool within_2x = false;  // >= 2 timed nodes, every figure within [0.5x, 2x] the median: none stands out
};
NodeTimeSpread node_time_spread(std::vector<std::pair<double, std::size_t>> figures);
// "all 66 nodes within 2x of the median (1.20 µs): none stands out"; "" unless within_2x.
std::string none_stands_out_text(const NodeTimeSpread& spread);

struct GraphMetrics {
  std::string source;
  bool verbose = false;
  std::size_t node_count = 0, edge_count = 0;
  std::map<std::string, std::size_t> nodes_by_kind;  // "kernel" -> n (only kinds present)
  std::map<std::string, std::size_t> edges_by_kind;  // "kernel->memcpy" -> n
  std::vector<GraphShape> graphs;                    // every cudaGraph_t of the dump, by id

  // The top-level graph (child-graph and conditional nodes count as one node each).
  std::vector<GraphId> top_level_graphs;
  std::size_t depth = 0;  // longest path, in nodes
  std::vector<std::size_t> width_per_level;  // nodes per level of the as-soon-as-possible schedule
  std::size_t max_parallelism = 0;           // the widest level
  std::size_t roots = 0, leaves = 0;
  CriticalPath critical_path;                 // by node count
  std::optional<CriticalPath> timed_critical_path;  // by measured time, with NodeTimes

  std::vector<KernelGroup> kernels;  // by count, then name
  std::vector<CopyGroup> memcpy;     // by direction
  std::size_t memset_count = 0;
  std::uint64_t memset_bytes = 0;
  std::size_t alloc_count = 0;     // mem_alloc nodes
  std::uint64_t alloc_bytes = 0;   // their sizes (verbose dumps only)

  std::string times_origin;  // NodeTimes::origin when times were joined
  std::size_t timed_nodes = 0, untimed_gpu_nodes = 0;
  NodeTimeSpread time_spread;  // of the timed nodes, one figure each

  std::vector<Finding> findings;  // warnings first
};

// Analyse a model; `times` adds the timed critical path, kernel times and time-based findings.
GraphMetrics analyze(const GraphModel& model, const NodeTimes* times = nullptr);

// JSON form of an analysis: schema "graphprof.graph-analysis" version kGraphAnalysisSchema.
// docs/graphs.md documents every field.
inline constexpr const char* kGraphAnalysisSchema = "graphprof.graph-analysis/1";
nlohmann::json to_json(const GraphMetrics& m);

}  // namespace gp
