// Typed sections of a result (results[].sections in the report): what the runner and the trace
// pass write next to the metrics, and what graph, trace and the reporters read back. Each has
// one JSON form, documented in docs/report-schema.md (sections.trace also in docs/tracing.md).
// Sections this graphprof does not know are kept as JSON (Sections::other), and so are the fields
// of a known section that this version does not know (`extra`), so reading and writing a report
// (merge) loses nothing. Host-only.
#pragma once
#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "graphprof/core/profile_section.hpp"

namespace gp {

inline constexpr double kNoValue = std::numeric_limits<double>::quiet_NaN();  // written as null

// sections.graph: the DOT dumps of the replayed graph (graph modes).
struct GraphDumpSection {
  std::string dot;          // default flags: node names carry the kernel names
  std::string dot_verbose;  // verbose flags: launch configurations, parameters
  std::string dot_error;    // why a dump could not be written (empty: both written)
  int nodes = 0;
  int edges = 0;
  nlohmann::json extra = nlohmann::json::object();  // fields of other writers (profile: made_by, launches)
  // Nodes without dependencies / without dependents (0: not recorded). A replay that follows the
  // previous replay of a graph with several of either costs more than one after an idle stream
  // (device_methods_note, docs/methodology.md).
  int roots = 0;
  int sinks = 0;
};

// Median and spread of a duration over the traced iterations (sections.trace.graph_span etc.).
struct TraceStats {
  std::size_t count = 0;
  double median_ns = kNoValue, p10_ns = kNoValue, p90_ns = kNoValue;
};

// sections.trace.nodes[]: one graph node over the traced replays.
struct TraceNodeTime {
  std::string dot_name;  // "graph_<G>_node_<i>", the name in the DOT dump
  std::uint32_t graph_id = 0, node_index = 0;
  std::string kind, name, mangled_name;
  std::size_t count = 0;
  double median_ns = kNoValue;  // null in JSON: the node was seen but never timed
  double p10_ns = kNoValue, p90_ns = kNoValue, mean_ns = kNoValue;
  double gap_before_median_ns = kNoValue;
  // Runs per replay (median; the trip count of a WHILE body) and the node's summed time per
  // replay (median). Absent in reports older than 2026-11-30 and from `profile`: read as 1 run.
  double runs_per_replay = kNoValue, per_replay_median_ns = kNoValue;
};

// sections.trace.kernels[]: GPU work by short name.
struct TraceKernelTime {
  std::string kind, name;
  std::size_t count = 0;
  double median_ns = kNoValue, p10_ns = kNoValue, p90_ns = kNoValue, per_iter_ns = kNoValue;
};

// sections.trace.api[]: host time inside the CUDA calls of the measured iterations.
struct TraceApiTime {
  std::string name;
  std::size_t count = 0;
  double median_ns = kNoValue, p10_ns = kNoValue, p90_ns = kNoValue, calls_per_iter = kNoValue;
};

struct TraceJoinInfo {
  std::string dot_status;
  std::uint32_t traced_graph_id = 0, dot_graph_id = 0;
  std::size_t dot_name_mismatches = 0;
};

// One side of sections.trace.perturbation (GPU time per iteration with and without CUPTI).
struct TraceSpread {
  std::size_t n = 0;
  double median_ns = kNoValue, p10_ns = kNoValue, p90_ns = kNoValue, ci_low_ns = kNoValue, ci_high_ns = kNoValue;
};

struct TracePerturbation {
  TraceSpread traced;
  std::optional<TraceSpread> untraced;  // absent when the timing pass had no GPU time
  double ratio = kNoValue;              // traced / untraced median
  std::optional<std::pair<double, double>> ratio_range;
};

struct LaunchApiCheck {
  double cupti_per_call_median_ns = kNoValue;
  double host_clock_per_call_median_ns = kNoValue;
  double ratio = kNoValue;
};

// sections.trace: written by the trace pass (`run --trace`).
struct TraceSection {
  std::string status = "ok";  // "ok" | "unavailable" | "failed"
  std::string reason;
  std::string level;          // "node" | "graph"
  std::string dot_warning;    // the dump could not be read (empty: none)
  // The rest is present when status is "ok" (`has_records`).
  bool has_records = false;
  std::size_t replays = 0, gpu_records = 0, unattributed_records = 0, unassigned_records = 0;
  std::optional<TraceStats> graph_span, iteration_span, api_per_call;
  TraceJoinInfo join;
  std::vector<TraceNodeTime> nodes;
  std::vector<TraceKernelTime> kernels;
  std::vector<TraceApiTime> api;
  std::uint64_t dropped_records = 0;
  int attempts = 0;
  std::size_t cupti_buffer_count = 0, cupti_buffer_largest_bytes = 0;
  TracePerturbation perturbation;
  LaunchApiCheck launch_api_check;
  nlohmann::json extra = nlohmann::json::object();  // fields this version does not know
};

// sections.device_probe: the device's state around a result's timing passes (run, sweep): the
// median device time per kernel of a graph of `chain_kernels` empty kernels in a chain, by each
// device method of the timing passes (back to back, as the GPU pass; behind a latch, as the latched
// pass), before the timing passes and after the last of them, and at `points` around the two
// device passes (src/cuda/device_probe.hpp; docs/findings.md "Parity": about 508 or 685 ns on the
// H200). NaN: not taken; `error`: why a probe failed.
struct DeviceProbeReading {
  double back_to_back_ns = kNoValue;
  double latched_ns = kNoValue;
};

// A reading at a named point of the passes: "before GPU pass", "before latched pass", "after latched pass".
struct DeviceProbePoint {
  std::string at;
  DeviceProbeReading reading;
};

// One process's probes of a result in a merged report (sections.device_probe.processes[]).
struct DeviceProbeLevel {
  double ns_per_kernel = kNoValue;
  double ns_per_kernel_after = kNoValue;
  std::string error;
  double latched_ns_per_kernel = kNoValue;
  double latched_ns_per_kernel_after = kNoValue;
};

struct DeviceProbeSection {
  int chain_kernels = 0;
  double ns_per_kernel = kNoValue;        // back to back, before the timing passes
  double ns_per_kernel_after = kNoValue;  // back to back, after the last pass
  std::string error;
  nlohmann::json extra = nlohmann::json::object();  // fields this version does not know
  // A merged report (merge, --processes, a pooled folder): the probes of every process in merge
  // order, the first process's being the fields above (which readers older than schema 1.3 see);
  // compare judges the device level of the whole side from them. Empty: one process.
  std::vector<DeviceProbeLevel> processes;
  double latched_ns_per_kernel = kNoValue;        // behind a latch, before the timing passes
  double latched_ns_per_kernel_after = kNoValue;  // behind a latch, after the last pass
  std::vector<DeviceProbePoint> points;           // around the GPU and latched passes (first repetition)

  // The probes of each process behind the result: `processes`, or the fields above.
  std::vector<DeviceProbeLevel> levels() const {
    if (!processes.empty()) return processes;
    return {DeviceProbeLevel{ns_per_kernel, ns_per_kernel_after, error, latched_ns_per_kernel,
                             latched_ns_per_kernel_after}};
  }
};

// sections.budget: why a pass has fewer samples than asked (docs/methodology.md).
struct BudgetSection {
  double iteration_seconds = kNoValue;        // host time of one iteration before the warm-up (NaN: not written)
  std::vector<std::string> passes_cut_short;  // "warm-up", "one-off", metric keys
  nlohmann::json extra = nlohmann::json::object();  // fields this version does not know
};

// sections.plugin: the library a workload was loaded from (`--load`, docs/api.md).
struct PluginSection {
  std::string library;       // the path given to --load
  std::string name, version;
  std::string file_fnv1a64;  // digest of the library file
  std::string api_version;   // "MAJOR.MINOR"
  nlohmann::json extra = nlohmann::json::object();
};

// sections.ranks: the result of every rank of `run --ranks` in one (the slowest rank's metrics).
struct RanksSection {
  std::size_t count = 0;
  std::map<std::string, std::vector<double>> median_per_rank;  // metric key -> each rank's median, rank order
  std::map<std::string, std::string> slowest_rank;             // metric key -> the rank whose median was taken
  bool same_output_on_every_rank = false;
  nlohmann::json extra = nlohmann::json::object();
};

struct Sections {
  std::optional<GraphDumpSection> graph;
  std::optional<TraceSection> trace;
  std::optional<DeviceProbeSection> device_probe;
  std::optional<BudgetSection> budget;
  std::optional<PluginSection> plugin;
  std::optional<RanksSection> ranks;
  std::map<std::string, double> workload;  // sections.workload: the workload's own figures
  std::string latched;                     // sections.latched: why the latched pass was skipped
  bool cuda_context_lost = false;          // sections.cuda_context_lost (run_outcome.hpp)
  bool cut_by_time_limit = false;          // sections.cut_by_time_limit (run_outcome.hpp)
  // sections.profile: the whole profile of an application (`graphprof profile`; core/profile_section.hpp,
  // docs/profile.md); empty when the result has none.
  std::optional<ProfileSection> profile;
  nlohmann::json other = nlohmann::json::object();  // sections this graphprof does not know

  bool has_profile() const { return profile.has_value(); }
  bool empty() const {
    return !graph && !trace && !device_probe && !budget && !plugin && !ranks && workload.empty() && latched.empty() &&
           !cuda_context_lost && !cut_by_time_limit && !profile && other.empty();
  }
};

nlohmann::json to_json(const GraphDumpSection& g);
nlohmann::json to_json(const TraceSection& t);
nlohmann::json to_json(const DeviceProbeSection& p);
nlohmann::json to_json(const BudgetSection& b);
nlohmann::json to_json(const PluginSection& p);
nlohmann::json to_json(const RanksSection& r);
nlohmann::json to_json(const Sections& s);
// `where` names the JSON path in error messages ("FILE: results[3].sections"); throws
// input_error (kBadInput) naming the field that is wrong.
Sections sections_from_json(const nlohmann::json& j, const std::string& where);

}  // namespace gp
