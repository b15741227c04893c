// The plain graph model that a cudaGraphDebugDotPrint dump is loaded into. Everything above the
// loader (analysis, collapsing, rendering, JSON) works on these structs and never sees Graphviz.
// The loader (src/graph/dot_loader.cpp) reads DOT with graphprof's own reader (dot_reader.cpp).
//
// Compact on purpose (a 1,000,000-node dump must load in a few times its size): texts
// that a big graph repeats (kernel names, node types, shapes) and launch configurations are
// shared between the nodes that carry them, and an edge holds its two ends as 32-bit indices.
#pragma once
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "graphprof/core/kernel_names.hpp"

namespace gp {

// An immutable text shared by every node that carries it: 8 bytes per node for a kernel name a
// graph repeats a million times. The texts live in a process-wide pool that only grows (bounded
// by the distinct texts of the dumps a process reads); thread-safe. Reads like a const
// std::string: converts to one, compares with strings and literals, concatenates with `+`.
class SharedText {
 public:
  SharedText() = default;  // ""
  SharedText(const char* text);  // NOLINT(google-explicit-constructor): literals in ternaries
  explicit SharedText(std::string_view text);
  SharedText& operator=(const char* text) { return *this = SharedText(text); }
  SharedText& operator=(const std::string& text) { return *this = SharedText(std::string_view(text)); }

  const std::string& str() const;
  operator const std::string&() const { return str(); }  // NOLINT(google-explicit-constructor)
  const char* c_str() const { return str().c_str(); }
  bool empty() const { return text_ == nullptr; }
  std::size_t size() const { return str().size(); }
  std::size_t find(std::string_view what, std::size_t pos = 0) const { return std::string_view(str()).find(what, pos); }
  std::size_t rfind(std::string_view what, std::size_t pos = std::string::npos) const {
    return std::string_view(str()).rfind(what, pos);
  }
  std::string substr(std::size_t pos, std::size_t count = std::string::npos) const { return str().substr(pos, count); }

  // Equal texts are one pool entry: equality is identity.
  friend bool operator==(const SharedText& a, const SharedText& b) { return a.text_ == b.text_; }
  friend bool operator!=(const SharedText& a, const SharedText& b) { return a.text_ != b.text_; }
  friend bool operator<(const SharedText& a, const SharedText& b) { return a.str() < b.str(); }

 private:
  const std::string* text_ = nullptr;  // into the pool; nullptr is ""
};

inline bool operator==(const SharedText& a, const std::string& b) { return a.str() == b; }
inline bool operator==(const std::string& a, const SharedText& b) { return a == b.str(); }
inline bool operator==(const SharedText& a, const char* b) { return a.str() == b; }
inline bool operator==(const char* a, const SharedText& b) { return a == b.str(); }
inline bool operator!=(const SharedText& a, const std::string& b) { return !(a == b); }
inline bool operator!=(const std::string& a, const SharedText& b) { return !(a == b); }
inline bool operator!=(const SharedText& a, const char* b) { return !(a == b); }
inline bool operator!=(const char* a, const SharedText& b) { return !(a == b); }
inline std::string operator+(const std::string& a, const SharedText& b) { return a + b.str(); }
inline std::string operator+(const SharedText& a, const std::string& b) { return a.str() + b; }
inline std::string operator+(const char* a, const SharedText& b) { return a + b.str(); }
inline std::string operator+(const SharedText& a, const char* b) { return a.str() + b; }
std::ostream& operator<<(std::ostream& out, const SharedText& t);

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

// A launch configuration shared by every node with the same one (a pool like SharedText's,
// keyed on the text): 8 bytes where std::optional<LaunchConfig> took 96. Reads like
// std::optional<LaunchConfig>.
class SharedLaunch {
 public:
  SharedLaunch() = default;  // none
  SharedLaunch(const std::optional<LaunchConfig>& config);  // NOLINT(google-explicit-constructor)
  bool has_value() const { return config_ != nullptr; }
  explicit operator bool() const { return config_ != nullptr; }
  const LaunchConfig& operator*() const { return *config_; }
  const LaunchConfig* operator->() const { return config_; }

 private:
  const LaunchConfig* config_ = nullptr;
};

struct GraphNode {
  std::string dot_name;  // "graph_129_node_3": the key that per-node times are joined on
  GraphId graph_id = -1;     // <G> of the name: the driver's process-wide graph serial number
  std::int64_t index = -1;   // <i> of the name: creation index within its graph
  int topo_id = -1;      // "(topoId: N)" when the dump has it (verbose); reverse topological
  NodeKind kind = NodeKind::kOther;
  SharedText type_text;  // the driver's word for the type: "KERNEL", "MEMCPY", "EVENT_WAIT", ...

  // Kernels. `mangled` is what the driver printed; the other two are derived from it.
  SharedText mangled, demangled, short_name;
  SharedLaunch launch;

  // Copies, memsets and allocations.
  std::optional<std::uint64_t> bytes;
  SharedText copy_direction;  // memcpy: "HtoD", "DtoH", "DtoD", "HtoH", ... as printed
  std::optional<std::uint64_t> memset_value;

  // Child-graph and conditional nodes: the graphs they run.
  std::vector<GraphId> child_graphs;
  SharedText conditional_type;  // "IF", "WHILE", "SWITCH"

  SharedText shape, style;  // as in the dump (helps tell the default from the verbose form)
};

struct GraphEdge {
  std::uint32_t from = 0, to = 0;  // indices into GraphModel::nodes (the reader allows < 2^32)
  int port = -1;                   // headlabel: the edge's slot in the head's dependency list, if printed
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
  std::vector<GraphCluster> clusters;  // sorted by graph_id, distinct (cluster() relies on it)
  std::vector<std::string> warnings;   // tolerated oddities, e.g. a node that has no label

  // Index of the node called `dot_name`, if any (linear; build a map for repeated lookups).
  std::optional<std::size_t> find(const std::string& dot_name) const;
  // The cluster of `graph_id` (binary search), nullptr if the dump has none.
  const GraphCluster* cluster(GraphId graph_id) const;
};

// Load a cudaGraphDebugDotPrint dump (default or verbose form, from any program). Throws
// gp::Error(kBadInput) naming the file when it is unreadable, empty, not DOT, truncated, cyclic
// or not a CUDA graph dump; "not valid DOT" messages give the line. Thread-safe: the reader keeps
// no global state (cgraph, which read dumps before, did), so dumps may load concurrently.
GraphModel load_dot(const std::string& path);
// The same for DOT text in memory; `source` names it in messages.
GraphModel load_dot_text(const std::string& text, const std::string& source);

// Parses "4,256,0", "(4,2,1),(256,1,1),0" or CUDA 13's "{16,16},{16,16},0" (text: with parentheses);
// nullopt when the text has another shape.
std::optional<LaunchConfig> parse_launch_config(const std::string& text);

}  // namespace gp
