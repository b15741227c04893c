// What graphprof makes of a trace session's plain records: the join of every kernel, copy and
// memset of a graph replay to its node in the DOT dump, and per-node, per-kernel and per-API
// statistics over the measured iterations. Host-only; the CPU tests drive it with synthetic
// records and with records captured on a GPU host (tests/data/trace/).
#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "graphprof/core/report.hpp"
#include "graphprof/trace/trace_records.hpp"

namespace gp {

// ---------------------------------------------------------------------------------------------
// The DOT dump, as far as the join needs it

struct DotNode {
  std::string kind;  // "kernel", "memset", "memcpy", or the dump's word for other nodes ("HOST", ...)
  std::string name;  // kernels: the mangled name printed by the dump; else empty
};

struct DotGraphInfo {
  bool found = false;          // the dumped graph has nodes whose ids CUPTI can name (32-bit)
  std::uint32_t graph_id = 0;  // G of the dumped (top-level) graph: the first in the file
  std::map<std::uint32_t, DotNode> nodes;  // node index -> node, top-level graph only
  // The other clusters (child graphs, conditional bodies): graph id -> node index -> node.
  std::map<std::uint32_t, std::map<std::uint32_t, DotNode>> nested;
};

// dot_graph_info() of graph/dot_graph_info.hpp fills it from a dump read by the graph loader.

// ---------------------------------------------------------------------------------------------
// The join: exec node id (kernel records) -> original node (DOT dump)

struct NodeRef {
  std::uint32_t graph_id = 0;  // the graph number in the DOT dump ("graph_<G>")
  std::uint32_t index = 0;     // the node's creation index in that graph
  std::string dot_name() const;  // "graph_<G>_node_<i>"
  bool operator<(const NodeRef& o) const { return graph_id != o.graph_id ? graph_id < o.graph_id : index < o.index; }
  bool operator==(const NodeRef& o) const { return graph_id == o.graph_id && index == o.index; }
};

class NodeJoin {
 public:
  // `dot`: the dump the report points at (sections.graph.dot), or nullptr when none was written.
  // The trace pass builds its own graph, which gets a new graph number; when the dump's top-level
  // graph has the same node count, node i of the traced graph is named after node i of the dump.
  static NodeJoin build(const TraceData& data, const DotGraphInfo* dot);

  // The original node of a record's graph_node_id; empty for nodes no callback announced and
  // outside graphs. Nodes of a conditional body are found through add_flattened_body_nodes.
  std::optional<NodeRef> find(std::uint64_t exec_node_id) const;

  std::uint32_t traced_graph_id() const { return traced_graph_id_; }  // CUPTI id of the traced graph
  std::uint32_t dot_graph_id() const { return dot_graph_id_; }        // "G" used in the names
  // "same graph" | "matched by node position" | "no dump" | "mismatch: <why>" | "no graph"
  const std::string& dot_status() const { return dot_status_; }
  std::size_t size() const { return by_exec_node_.size(); }

 private:
  std::unordered_map<std::uint64_t, NodeRef> by_exec_node_;
  std::uint32_t traced_graph_id_ = 0, dot_graph_id_ = 0;
  std::string dot_status_ = "no graph";
};

// The exec node ids that a conditional body's records carry (the parent exec's id, indices
// after the parent's own nodes) for the body nodes CUPTI announced as clones in a nested graph;
// adds them to `by_exec_node` (exec node id -> original node) without replacing any entry.
// NodeJoin::build calls it; the rule and what is assumed are in trace_analysis.cpp.
void add_flattened_body_nodes(const TraceData& data, std::unordered_map<std::uint64_t, NodeRef>& by_exec_node);

// ---------------------------------------------------------------------------------------------
// A uniform view of kernels, copies and memsets

struct GpuOp {
  const char* kind = "kernel";  // "kernel" | "memcpy" | "memset"
  std::string name;             // kernels: as recorded (mangled); "memcpy HtoD"; "memset"
  std::uint64_t start_ns = 0, end_ns = 0;
  std::uint32_t device_id = 0, stream_id = 0, correlation_id = 0, graph_id = 0;
  std::uint64_t graph_node_id = 0;
  const KernelRecord* kernel = nullptr;  // kernels only
  // correlation_id was 0 in the record and is the launch's, given by claim_loop_body_records.
  bool correlation_inherited = false;
};

// Every GPU record of the session, sorted by start time.
std::vector<GpuOp> gpu_ops(const TraceData& data);

// Records of a graph launch that CUPTI gives no correlation id (seen on the H200 with CUDA 13.0:
// the kernels of a conditional WHILE node's body, correlation 0, graphId = the exec's) get the
// launch's: that of the latest record of the same exec and device that started no later and
// has one (a launch's nodes run before the next launch of the exec starts). `ops` sorted by
// start, as gpu_ops returns them. Returns how many records were given a correlation id.
std::size_t claim_loop_body_records(std::vector<GpuOp>& ops);

// Measured iteration (index into data.windows) of each correlation id whose API call lies inside
// a window. GPU records join through their correlation id.
std::unordered_map<std::uint32_t, std::size_t> iteration_of_correlation(const TraceData& data);

// ---------------------------------------------------------------------------------------------
// Statistics over the measured iterations

struct DurationStats {
  std::size_t count = 0;
  double median = 0, p10 = 0, p90 = 0, mean = 0, total = 0;
};
// The figures summarize() would give (non-finite values not counted; `total` sums them all) by
// selecting the order statistics in place, without sorting: pass the samples with std::move
// when they are not needed afterwards, and nothing is copied.
DurationStats duration_stats(std::vector<double> values);

struct NodeStats {
  NodeRef node;
  std::string kind;           // "kernel" | "memcpy" | "memset"
  std::string name;           // short name ("chain_step", "memcpy HtoD", "memset")
  std::string mangled_name;   // kernels: as recorded
  DurationStats duration;     // one sample per replay
  // GPU idle time before the node: its start minus the latest end, among the same replay's
  // records, that came no later. Absent for a replay's first node.
  std::optional<double> gap_before_median_ns;
  std::size_t gap_samples = 0;
  // Runs per replay (median over the replays that ran it): 1 for most nodes, the trip count for
  // the body of a WHILE node. per_replay: the node's summed time in each replay.
  double runs_per_replay = 1;
  DurationStats per_replay;
};

struct NameStats {
  std::string kind;
  std::string name;  // short name
  DurationStats duration;
  double per_iteration_ns = 0;  // total GPU time of this name per measured iteration
};

struct ApiStats {
  std::string name;
  DurationStats duration;  // host time inside the call, from CUPTI runtime records
  double calls_per_iteration = 0;
};

struct TraceSummary {
  TraceLevel level = TraceLevel::kNode;
  std::size_t iterations = 0;     // measured iterations (windows)
  std::size_t gpu_records = 0;    // GPU records of measured iterations
  std::size_t unattributed = 0;   // graph records of measured iterations with no node
  std::size_t unassigned = 0;     // GPU records after the first window that no iteration claims
  std::vector<NodeStats> nodes;   // graph modes at node level, by graph id then index
  std::vector<NameStats> kernels; // by short name
  std::vector<ApiStats> api;      // calls made inside measured iterations, by name
  std::optional<DurationStats> api_per_call;    // the same calls, all names pooled
  std::optional<DurationStats> graph_span;      // first node start to last node end of each graph launch
  std::optional<DurationStats> iteration_span;  // first GPU start to last GPU end of each iteration
  std::size_t dot_name_mismatches = 0;  // attributed nodes whose kind/name differ from the dump's
  std::string dot_status;
  std::uint32_t traced_graph_id = 0, dot_graph_id = 0;
};

TraceSummary summarize_trace(const TraceData& data, const NodeJoin& join, const DotGraphInfo* dot);

// The fields of sections.trace (docs/tracing.md) that come from the records: level, replays,
// nodes, kernels, api, graph_span, unattributed_records, join, ... (`has_records` set).
TraceSection to_section(const TraceSummary& s);

// The cross-checks against the untraced timing passes of `res`: perturbation (GPU time per
// iteration traced, from `traced_gpu_ns`, vs untraced) and launch_api_check (CUPTI's launch-call
// time vs the host clock's).
void add_timing_checks(TraceSection& t, const ModeResult& res, const TraceSummary& s,
                       const std::vector<double>& traced_gpu_ns);

}  // namespace gp
