// Plain, vendor-neutral trace records. The CUPTI session (src/trace/cupti_session.cpp, cupti_records.hpp)
// converts CUPTI's activity records and resource callbacks into these structs; everything above
// it (the node join, statistics, the Chrome trace writer) reads only these, so the CPU tests can
// drive it with synthetic records. All timestamps are CUPTI's clock in nanoseconds (on Linux
// x86-64 that is CLOCK_REALTIME); GPU and host records share it.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace gp {

// How much the trace pass records. kGraph: one span per graph launch (GRAPH_TRACE), no kernels.
// kNode: every kernel, copy and memset, joined to its graph node.
enum class TraceLevel { kNone, kGraph, kNode };
const char* to_string(TraceLevel l);
// Parses "none" | "graph" | "node"; false for anything else.
bool trace_level_from_string(const std::string& s, TraceLevel& out);
// The same, empty for anything else (a report's trace_level read back).
std::optional<TraceLevel> parse_trace_level(const std::string& s);

// end - start in nanoseconds, 0 when the end comes first (an unreadable record).
inline double duration_ns(std::uint64_t start_ns, std::uint64_t end_ns) {
  return end_ns >= start_ns ? static_cast<double>(end_ns - start_ns) : 0.0;
}

// What every record of GPU work carries: when it ran, where, and the API call that started it.
struct GpuSpan {
  std::uint64_t start_ns = 0, end_ns = 0;
  std::uint32_t device_id = 0, context_id = 0, stream_id = 0;
  std::uint32_t correlation_id = 0;  // equals the launching API call's (cudaGraphLaunch for graphs)
  std::uint32_t graph_id = 0;        // the graph EXEC's id; 0 outside graphs
};

// One kernel, copy or memset: a span that may belong to a graph node.
struct GpuActivity : GpuSpan {
  std::uint64_t graph_node_id = 0;  // the node id inside the exec: (graph_id << 32) | index
};

// One kernel execution (CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL).
struct KernelRecord : GpuActivity {
  std::string name;  // as CUPTI reports it: the mangled name for C++ kernels
  std::array<int, 3> grid{{0, 0, 0}}, block{{0, 0, 0}};
  int shared_bytes = 0;              // static + dynamic
  int registers_per_thread = 0;
};

// One copy (CUPTI_ACTIVITY_KIND_MEMCPY).
struct MemcpyRecord : GpuActivity {
  std::string copy_kind;  // "HtoD", "DtoH", "DtoD", "HtoH", "PtoP", ... ("unknown" when CUPTI says so)
  std::uint64_t bytes = 0;
};

// One memset (CUPTI_ACTIVITY_KIND_MEMSET).
struct MemsetRecord : GpuActivity {
  std::uint32_t value = 0;
  std::uint64_t bytes = 0;
};

// One CUDA runtime API call on a host thread (CUPTI_ACTIVITY_KIND_RUNTIME).
struct ApiRecord {
  std::string name;  // "cudaGraphLaunch", "cudaLaunchKernel", ... (CUPTI's "_v10000" suffix removed)
  std::uint32_t cbid = 0;
  std::uint64_t start_ns = 0, end_ns = 0;
  std::uint32_t process_id = 0, thread_id = 0;
  std::uint32_t correlation_id = 0;
  std::uint32_t return_value = 0;  // cudaError_t of the call
};

// One NVTX event (CUPTI_ACTIVITY_KIND_MARKER). A push/pop range arrives as a kStart and a kEnd
// record with the same id; the end carries no name.
struct MarkerRecord {
  enum class Kind { kInstant, kStart, kEnd };
  Kind kind = Kind::kInstant;
  std::uint64_t timestamp_ns = 0;
  std::uint32_t id = 0;
  std::string name;    // empty on kEnd
  std::string domain;  // empty for NVTX's default domain
  std::uint32_t process_id = 0, thread_id = 0;
};

// One graph launch seen as a whole (CUPTI_ACTIVITY_KIND_GRAPH_TRACE); graph_id is the exec's id,
// as in kernel records, and the stream is the launch stream.
struct GraphTraceRecord : GpuSpan {};

// From the resource callbacks. cudaGraphInstantiate clones every node of the original graph
// into the exec; kernel records name the clone, the DOT dump names the original.
struct NodeMapping {
  std::uint64_t exec_node_id = 0;      // as in KernelRecord::graph_node_id
  std::uint64_t original_node_id = 0;  // (original graph id << 32) | node index
};

// A node created outside instantiation (by stream capture or cudaGraphAdd*Node).
struct NodeCreated {
  std::uint64_t node_id = 0;
};

// cudaGraphInstantiate made exec `exec_id` from graph `original_graph_id`.
struct ExecMapping {
  std::uint32_t exec_id = 0;
  std::uint32_t original_graph_id = 0;
};

// Host-clock bounds (CUPTI clock) of one measured iteration's launch calls in the trace pass.
// API records inside a window belong to that iteration, and so do the GPU records that share
// their correlation ids.
struct IterationWindow {
  std::uint64_t begin_ns = 0, end_ns = 0;
};

// Everything one trace session recorded, already converted. Records are in arrival order, which
// is NOT time order: CUPTI delivers buffers out of order.
struct TraceData {
  TraceLevel level = TraceLevel::kNode;
  std::uint64_t begin_ns = 0, end_ns = 0;  // the session, CUPTI clock
  std::vector<KernelRecord> kernels;
  std::vector<MemcpyRecord> memcpys;
  std::vector<MemsetRecord> memsets;
  std::vector<ApiRecord> api;
  std::vector<MarkerRecord> markers;
  std::vector<GraphTraceRecord> graph_traces;
  std::vector<NodeMapping> node_mappings;
  std::vector<NodeCreated> nodes_created;
  std::vector<ExecMapping> exec_mappings;
  std::vector<IterationWindow> windows;  // filled by the trace pass, not by CUPTI
  std::size_t dropped_records = 0;       // CUPTI could not store them (buffers full)
  std::size_t other_records = 0;         // records of kinds graphprof does not convert
  std::size_t buffers = 0;               // activity buffers CUPTI handed back
  std::size_t largest_buffer_bytes = 0;  // the biggest buffer size used (they grow when they fill)
};

// Lossless JSON form of TraceData (for fixtures and `run --trace-records`).
nlohmann::json to_json(const TraceData& d);
// Throws gp::Error(kBadInput) naming `source` and the field when the document is malformed.
TraceData trace_data_from_json(const nlohmann::json& j, const std::string& source);

}  // namespace gp
