// The plain graph model that a cudaGraphDebugDotPrint dump is loaded into. Everything above the
// loader (analysis, collapsing, rendering, JSON) works on these structs and never sees Graphviz.
// src/graph/dot_loader.cpp is the only file that includes cgraph.h.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gp {

// What a graph node does, as the driver names it in the dump (first word of the label).
enum class NodeKind {
  kKernel,
  kMemcpy,
  kMemset,
  kHost,
  kEventRecord,
  kEventWait,
  kMemAlloc,
  kMemFree,
  kEmpty,
  kChildGraph,
  kConditional,
  kExtSemSignal,
  kExtSemWait,
  kBatchMemOp,
  kOther,  // a type this version does not know, or a node without a label; see GraphNode::type_text
};
inline constexpr int kNodeKindCount = static_cast<int>(NodeKind::kOther) + 1;

// The <G> of "graph_<G>": the driver's process-wide graph serial number. 64-bit, so that a
// large number in a hostile or future dump is read as it is or refused, never wrapped.
using GraphId = std::int64_t;

// Stable snake_case names used in JSON and text: "kernel", "memcpy", "event_record", ...
const char* to_string(NodeKind k);

struct Dim3 {
  std::uint64_t x = 1, y = 1, z = 1;
  std::uint64_t volume() const { return x * y * z; }
  bool operator==(const Dim3& o) const { return x == o.x && y == o.y && z == o.z; }
};

// A kernel's launch configuration as the dump prints it: <<<grid,block,dynamic shared memory>>>.
// Only verbose dumps (or the KernelNodeParams flag) carry it.
struct LaunchConfig {
  Dim3 grid, block;
  std::uint64_t shared_bytes = 0;
  std::string text;  // "4,256,0" exactly as printed, for display and grouping
};

struct GraphNode {
  std::string dot_name;  // "graph_129_node_3": the key that per-node times are joined on
  GraphId graph_id = -1;     // <G> of the name: the driver's process-wide graph serial number
  std::int64_t index = -1;   // <i> of the name: creation index within its graph
  int topo_id = -1;      // "(topoId: N)" when the dump has it (verbose); reverse topological
  NodeKind kind = NodeKind::kOther;
  std::string type_text;  // the driver's word for the type: "KERNEL", "MEMCPY", "EVENT_WAIT", ...

  // Kernels. `mangled` is what the driver printed; the other two are derived from it.
  std::string mangled, demangled, short_name;
  std::optional<LaunchConfig> launch;

  // Copies, memsets and allocations.
  std::optional<std::uint64_t> bytes;
  std::string copy_direction;  // memcpy: "HtoD", "DtoH", "DtoD", "HtoH", ... as printed
  std::optional<std::uint64_t> memset_value;

  // Child-graph and conditional nodes: the graphs they run.
  std::vector<GraphId> child_graphs;
  std::string conditional_type;  // "IF", "WHILE", "SWITCH"

  std::string shape, style;  // as in the dump (helps tell the default from the verbose form)
};

struct GraphEdge {
  std::size_t from = 0, to = 0;  // indices into GraphModel::nodes
  int port = -1;                 // headlabel: the edge's slot in the head's dependency list, if printed
};

// One cudaGraph_t of the dump: the top-level graph, a child graph or a conditional body.
struct GraphCluster {
  GraphId graph_id = -1;
  std::vector<std::size_t> nodes;  // indices into GraphModel::nodes, in file order
  // The node that runs this graph (child-graph or conditional node); nullopt for top level.
  std::optional<std::size_t> parent_node;
};

struct GraphModel {
  std::string source;  // file name, for messages
  bool verbose = false;  // record labels seen: the dump was written with the verbose flag
  std::vector<GraphNode> nodes;  // in file order
  std::vector<GraphEdge> edges;  // grouped by tail node, in node order
  std::vector<GraphCluster> clusters;  // sorted by graph_id
  std::vector<std::string> warnings;   // tolerated oddities, e.g. a node that has no label

  // Index of the node called `dot_name`, if any (linear; build a map for repeated lookups).
  std::optional<std::size_t> find(const std::string& dot_name) const;
  const GraphCluster* cluster(GraphId graph_id) const;
};

// Load a cudaGraphDebugDotPrint dump (default or verbose form, from any program). Throws
// gp::Error(kBadInput) naming the file when it is unreadable, empty, not DOT, truncated, cyclic
// or not a CUDA graph dump. Graphviz keeps global state: load one dump at a time.
GraphModel load_dot(const std::string& path);
// The same for DOT text in memory; `source` names it in messages.
GraphModel load_dot_text(const std::string& text, const std::string& source);

// Kernel names. demangle_kernel_name returns the input unchanged when it is not a mangled C++
// name (extern "C" kernels, cuBLAS's sm90_xmma_...). kernel_base_name drops the return type,
// namespaces, template arguments and the parameter list: "void ns::k<4>(float*)" -> "k".
std::string demangle_kernel_name(const std::string& mangled);
std::string kernel_base_name(const std::string& demangled);

// Parses "4,256,0", "(4,2,1),(256,1,1),0" or CUDA 13's "{16,16},{16,16},0" (text: with parentheses);
// nullopt when the text has another shape.
std::optional<LaunchConfig> parse_launch_config(const std::string& text);

}  // namespace gp
