// `graphprof profile -- CMD`: what the injection library (src/inject/cupti_inject/graphprof_inject.cpp) recorded
// in each process of an unmodified CUDA application, read back from its per-process line files,
// and what graphprof makes of it: per graph (launches, call cost kept apart from queue-full
// blocking, per-node GPU time joined to the DOT dump), work outside graphs, graph coverage,
// capture trouble. Host-only; the CPU tests drive it with recorded line files (tests/data/profile/).
// docs/profile.md describes the figures, docs/report-schema.md the report section.
#pragma once
#include <cstddef>
#include <cstdint>
#include <istream>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "graphprof/profile/observer.hpp"
#include "graphprof/core/report.hpp"
#include "graphprof/core/step_kinds.hpp"
#include "graphprof/trace/trace_analysis.hpp"
#include "graphprof/trace/trace_records.hpp"
#include "graphprof/profile/profile_sites.hpp"
#include "graphprof/profile/profile_ranks.hpp"
#include "graphprof/profile/overhead_windows.hpp"
#include "graphprof/profile/framework_logs.hpp"

namespace gp {

// ---------------------------------------------------------------------------------------------
// What one process wrote (proc-<pid>.jsonl)

// A graph exec the application instantiated (GRAPHEXEC_CREATED callback).
struct ProfiledExec {
  std::uint32_t exec_id = 0;
  std::uint32_t graph_id = 0;  // the original cudaGraph_t's id: the "G" of graph_<G>_node_<i> in the dump
  std::size_t nodes = 0, edges = 0;
  std::uint32_t correlation_id = 0;  // of the cudaGraphInstantiate* call that made it (0: unknown)
  std::uint64_t created_ns = 0;
  std::string dot, dot_verbose;  // paths the library wrote (empty: no dump)
};

// cudaStreamBeginCapture / cudaStreamEndCapture as the runtime callbacks saw them.
struct CaptureCall {
  bool begin = true;
  std::uint32_t stream_id = 0;
  std::uint32_t graph_id = 0;  // end only: the graph made (0 when the capture failed)
  std::uint32_t correlation_id = 0;
  int return_value = 0;  // cudaError_t
  int mode = -1;         // begin only: cudaStreamCaptureMode (0 global, 1 thread-local, 2 relaxed; -1 not recorded)
};

// A call that names a graph exec: cudaGraphUpload, and cudaGraphLaunch at --trace none (the
// other levels learn the exec of a launch from its GPU records).
struct ExecCall {
  std::uint32_t exec_id = 0, correlation_id = 0;
};

// Node sampling with kernels=P%: when the injection switched CONCURRENT_KERNEL (CUPTI clock). The
// kind is on from the start until the first switch.
struct KernelSwitch {
  std::uint64_t ts_ns = 0;
  bool on = false;
  // A switch off: every call on this stream (CUPTI id) with a correlation id below done_before had
  // finished (the injection's drain event); 0: not said.
  std::uint32_t done_before = 0, stream_id = 0;
};

// The correlation ids of kernel records made while CONCURRENT_KERNEL was being switched: a record
// whose kernel ran (start to end) across a switch off, or that ended after one and started before
// the kind was on again (a launch in flight when the kind went off: CUPTI gives such kernels wrong
// times), unless the switch off says the record's launch had finished (its stream, a correlation
// id below done_before: the record's times and the switch's differ by clock conversion only).
// Every record of such a launch is set aside (profile_analysis.cpp); empty without switches.
// Host-only, CPU-tested.
std::set<std::uint32_t> launches_across_kernel_switches(const std::vector<KernelRecord>& kernels,
                                                        const std::vector<KernelSwitch>& switches);

// What interposition cost the application's threads (the ip_cost and ic lines of an interposed
// process): calls made through the interposer, and each call timed at random: its correlation id
// and its time in the interposer less the real call's.
struct InterposeCostRecord {
  std::uint64_t calls = 0;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> timed;  // correlation id, own ns
};

// The same, analysed: over the whole run, and in the steps (the timed calls made from the first
// step to the last, scaled to all the calls made there), which leaves the start-up's naming of
// new call sites out.
struct InterposeCostSummary {
  std::uint64_t calls = 0, timed = 0;
  double own_ns = 0, per_call_ns = 0;  // the whole run, estimated
  std::uint64_t step_calls = 0, step_timed = 0;
  std::optional<double> step_per_call_ns, per_step_ns, step_share;
};

struct ProcessRecords {
  std::string source;  // the file
  int pid = 0, ppid = 0;
  std::string command_line;
  std::uint64_t begin_ns = 0;  // CUDA initialisation in this process (CUPTI clock)
  std::uint64_t end_ns = 0;    // when the library flushed at exit or on a signal; 0 if it never did
  std::string end_reason;      // "exit", "SIGINT", "SIGTERM"; empty: the process died before flushing
  TraceLevel trace_level = TraceLevel::kNode;  // the process line's level (0, 1, 2)
  // How the process was observed (the process line's "observed"; older records: CUPTI).
  // observe_note: why interposition was asked for and not used.
  Observer observed_by = Observer::kCupti;
  std::string observe_note;
  // Interposed: where ("runtime": the shared runtime's functions and the driver's; "driver": the
  // driver's only, for a process without the shared runtime) and, for "driver", why not the
  // runtime. Empty in records from before the interposer answered the driver's look-ups.
  std::string observed_at, observed_at_why;
  // What interposition cost the application's threads (the ip_cost line): calls made through the
  // interposer, how many of them were timed at random, their time in it less the real calls'.
  std::optional<InterposeCostRecord> interpose_cost;
  std::string node_sampling;   // the rule at node level ("all", "W,K,M": node_sampling.hpp); empty: not said
  std::vector<std::string> errors;  // why profiling could not start (CUPTI busy, ...)
  std::vector<std::string> warnings;  // graphprof's remarks: the application used CUPTI itself, ...
  std::vector<std::string> cupti_notices;  // what CUPTI reported to graphprof's subscriber ("warning CUPTI_ERROR_...: text")
  // The application's own cuptiSubscribe calls CUPTI refused while graphprof held it (its profiler
  // could not attach): how many, the first one's result and calling module (cupti_refused line).
  std::size_t refused_subscribes = 0;
  std::string refused_result, refused_caller;
  // What became of graphprof's CUPTI session at the end (the end line's "cupti"): "graphprof",
  // "finalized_elsewhere", "activity_taken", "teardown_timeout"; empty: not said (no end line).
  std::string cupti_at_end;
  TraceData trace;                  // kernels, copies, memsets, API calls, graph spans, node clones
  std::vector<ProfiledExec> execs;
  std::vector<CaptureCall> captures;
  std::vector<ExecCall> uploads;
  std::vector<ExecCall> launches;
  // Changes of execs in place, per exec id (interposed, ux lines): SetParams calls on their nodes
  // and exec updates.
  std::map<std::uint32_t, std::pair<std::uint64_t, std::uint64_t>> exec_changes;
  // Graph launches timed on the GPU by a pair of CUDA events at the light default (gl lines):
  // correlation id of the launch call, GPU nanoseconds.
  std::vector<std::pair<std::uint32_t, std::uint64_t>> launch_gpu_ns;
  std::vector<KernelSwitch> kernel_switches;  // in the order written (ks lines)
  std::size_t malformed_lines = 0;  // e.g. the last line of a process killed while writing
  std::size_t lost_buffers = 0;     // activity buffers the library could not write in time
  SiteRecords sites;                // call sites and ledger samples (profile_sites.hpp)
  // Who the process is in a multi-process job (the "rank" and "device" lines).
  std::map<std::string, std::string> rank_env;  // the launcher's variables that were set (graphprof/core/rank_env.hpp)
  std::string host, host_from;                  // host name; "gethostname" or "SLURMD_NODENAME"
  std::vector<GpuIdentity> gpus;                // devices it created a context on
  // The framework's reasons for running without graphs that this process logged (framework_logs.hpp;
  // set by the caller from the run's log file, not by the line reader).
  std::vector<FrameworkLogEntry> framework_log;
};

// Reads one line file. Unparseable lines are counted, not fatal (a killed process may leave half
// a line); a file that cannot be opened throws gp::Error(kBadInput).
ProcessRecords parse_process_records(std::istream& in, const std::string& source);
ProcessRecords read_process_records(const std::string& path);

// ---------------------------------------------------------------------------------------------
// Analysis

// Host time of launch calls, with the calls that waited for room in the device's queue set apart.
// For each call graphprof knows, from the GPU records, when all work submitted before it will have
// finished and how many earlier launches were still in flight (submitted, not finished). A call is
// "blocked" when the GPU was busy with earlier work for the whole call AND it took more than
// max(2 x reference, reference + 5 us). The reference is the median of the calls made while at most
// half as many launches were in flight as the most ever seen (a queue at most half full cannot
// block), or the 10th percentile of all calls when fewer than 5 such calls exist. A blocked call's
// host cost is taken to be the reference; the rest is queue wait. Needs GPU records (--trace graph
// or node); without them only `all` is filled.
struct LaunchCalls {
  DurationStats all;             // every call
  DurationStats unblocked;       // calls not flagged as blocked: the host cost
  std::optional<double> reference_ns;
  std::string reference_from;    // "queue at most half full" | "10th percentile" | "" (no GPU records)
  std::size_t idle_calls = 0;    // made while the GPU had no earlier work pending
  std::size_t blocked = 0;
  double blocked_wait_ns = 0;    // sum over blocked calls of (duration - reference)
  std::size_t max_in_flight = 0;        // most earlier launches (all kinds) in flight when one of these calls began
  std::optional<double> in_flight_when_blocked;  // median over the blocked calls
  std::optional<double> first_call_ns;  // the first call (graph: first launch of the exec)
  std::optional<DurationStats> queue_latency;   // call end -> its first GPU work starts, every call
  std::optional<DurationStats> idle_latency;    // the same for calls made to an idle GPU: launch latency
  std::optional<DurationStats> queued_latency;  // calls made while earlier work was pending: queueing
};

// Node sampling (node_sampling.hpp): which launches of a graph were traced node by node, and how
// much that tracing stretched them (node-record spans of traced vs GRAPH_TRACE spans of untraced launches).
struct NodeSamplingFigures {
  std::vector<std::size_t> traced_ordinals;       // launch ordinals (0 = first) with kernel records
  std::vector<double> span_traced_ns;             // first node record to last, of each traced launch
  std::vector<double> span_untraced_ns;           // ... of each launch without node tracing
  std::optional<double> kernel_time_estimate_ns;  // all launches' kernel time, from the traced ones
  std::size_t set_aside = 0;  // node records longer than twice an untraced launch, left out (profile_analysis.cpp)
  std::size_t switched_aside = 0;  // node records of launches in flight when CONCURRENT_KERNEL was switched, left out
};

struct GraphProfile {
  ProfiledExec exec;
  std::string made_by = "explicit API";  // or "stream capture"
  std::uint32_t capture_stream = 0;      // stream capture: the origin stream's CUPTI id
  std::size_t launches = 0;
  std::optional<double> instantiate_ns, upload_ns;
  LaunchCalls calls;
  std::vector<double> launch_call_ns;    // raw, per launch, in launch order
  std::vector<double> gpu_span_ns;       // raw, per launch: first node start to last node end (or, timed by
                                         // events at the light default, a sample of the launches)
  std::size_t gpu_span_by_events = 0;    // of those, launches timed by CUDA events (no CUPTI)
  double kernel_time_ns = 0;             // all its kernels' GPU time
  std::size_t kernels = 0;
  TraceSummary trace;                    // per-node statistics joined to the dump (sections.trace)
  // When it was made and first launched, from the process's CUDA initialisation (CUPTI clock).
  double created_at_ns = 0;
  std::optional<double> first_launch_at_ns;
  // Its kernels in node order (short names), from the GPU records joined to the dump: with the
  // node count, what matches one graph across runs and reports (compare's graph-health view).
  std::vector<std::string> kernel_sequence;
  // For matching the graph across ranks and naming its collectives (src/profile/rank_inputs.cpp).
  std::string capture_mode;              // "global", "thread-local", "relaxed" ("" not captured or not recorded)
  std::string signature;                 // hash of the kernel names of one launch (sorted), "" without kernels
  std::size_t kernels_per_launch = 0;
  std::vector<std::pair<std::string, std::size_t>> kernel_counts;  // short name -> kernels per launch
  std::vector<CollectiveUse> collectives;                          // its NCCL kernels
  std::vector<double> collective_ns_per_launch;                    // NCCL kernel time of each launch
  NodeSamplingFigures sampling;
  // Changes of the exec in place (interposed only; absent otherwise): SetParams calls on its nodes
  // and exec updates, in all (XLA's command buffers are updated before each launch).
  std::optional<std::uint64_t> set_params_calls, exec_update_calls;
};

// Coverage in the steady state: from the first launch of the most-launched graph to the last graph
// launch (warm-up, autotuning and captures left out). Launches by their calls' start; kernels by the
// launch that made them (only with every kernel traced: node level without sampling).
struct SteadyCoverage {
  double from_ns = 0, to_ns = 0;  // from the process's CUDA initialisation
  std::size_t graph_launches = 0, eager_launches = 0;
  double graph_node_runs = 0;  // the nodes the graph launches inside ran
  bool kernel_records = false;
  std::size_t graph_kernels = 0, eager_kernels = 0;
  double graph_kernel_ns = 0, eager_kernel_ns = 0;
};

// The run of one process cut into equal time bins (CUDA initialisation to its last record), so a
// reader sees its phases: warm-up, captures, steady state, re-captures. Per bin: kernel time inside
// and outside graphs (node level), graph and eager launch calls, graphs instantiated.
struct ProcessTimeline {
  double bin_ns = 0;
  std::vector<double> graph_kernel_ns, eager_kernel_ns;
  std::vector<std::size_t> graph_launches, eager_launches, graphs_made;
};

struct NamedCount {
  std::string name;
  std::size_t count = 0;
  double total_ns = 0;
  double median_ns = 0;
  std::uint64_t bytes = 0;  // copies and memsets
};

// A capture that went wrong, with the call that broke it.
struct CaptureTrouble {
  std::uint32_t stream_id = 0;
  std::string api;        // the first call inside the capture that failed (or EndCapture itself)
  std::string error;      // e.g. "cudaErrorStreamCaptureUnsupported"
  std::string end_error;  // what cudaStreamEndCapture returned ("" if it was never called)
  std::string hint;
  std::uint32_t begin_correlation = 0;  // of its cudaStreamBeginCapture call
  std::optional<SiteSummary> site;      // where that call was made
};

struct ProcessProfile {
  int pid = 0, ppid = 0;
  std::string command_line;
  std::string end_reason;
  std::vector<std::string> errors;
  std::vector<std::string> warnings;
  std::vector<std::string> cupti_notices;
  std::size_t refused_subscribes = 0;         // as in ProcessRecords
  std::string refused_result, refused_caller;
  std::string cupti_at_end;  // as in ProcessRecords
  Observer observed_by = Observer::kCupti;  // as in ProcessRecords
  std::string observe_note;                 // as in ProcessRecords
  std::string observed_at, observed_at_why;  // as in ProcessRecords
  // What interposition cost the application's threads (ip_cost and ic lines): over the whole run,
  // and in the steps (the timed calls made from the first step to the last, scaled to all the calls
  // made there), which leaves the start-up's naming of new call sites out.
  std::optional<InterposeCostSummary> interpose_cost;
  TraceLevel trace_level = TraceLevel::kNode;
  std::string node_sampling;  // as in ProcessRecords
  std::size_t kernel_switches_off = 0;   // kernels=P%: times CONCURRENT_KERNEL was switched off between samples
  std::size_t eager_switched_aside = 0;  // ... eager kernel records in flight then, left out
  double cuda_wall_ns = 0;  // CUDA initialisation to the final flush
  double records_end_ns = 0;  // CUDA initialisation to the last API call, GPU work or graph instantiation recorded
  std::vector<GraphProfile> graphs;
  // Coverage (node level): kernels and kernel time inside graphs vs outside. With node sampling the
  // graph side is estimated from the traced launches (coverage_estimated).
  bool coverage_estimated = false;
  std::optional<SteadyCoverage> steady;  // empty without a graph launched twice
  std::size_t graph_kernels = 0, eager_kernels = 0;
  double graph_kernel_ns = 0, eager_kernel_ns = 0;
  std::size_t graph_launches = 0;  // cudaGraphLaunch calls
  std::size_t eager_launches = 0;  // kernel launch calls outside capture (cudaLaunchKernel, cuLaunchKernel, ...)
  LaunchCalls graph_calls;         // all graph launches of the process
  LaunchCalls eager_calls;         // eager kernel launches
  std::vector<NamedCount> top_eager_kernels;  // by total GPU time
  std::vector<NamedCount> copies;  // outside graphs: "memcpy HtoD", ..., "memset"
  std::vector<NamedCount> syncs;   // host calls that wait for the GPU (host time)
  std::vector<CaptureTrouble> capture_trouble;
  std::size_t dropped_records = 0, malformed_lines = 0, lost_buffers = 0;
  ProcessTimeline timeline;
  SiteProfile sites;  // call sites, ledgers, re-captures (profile_sites.hpp)
  // Its place in a multi-process job (graphprof/profile/profile_ranks.hpp).
  RankIdentity rank;
  std::map<std::string, std::string> rank_env;
  std::string host, host_from;
  std::vector<GpuIdentity> gpus;
  std::vector<std::uint32_t> devices_used;     // device ids of its GPU records
  std::vector<CollectiveUse> eager_collectives;  // NCCL kernels outside graphs
  // Steps by kind, the eager steps' shapes and cost, the framework's reasons, the capture plan
  // (graphprof/core/step_kinds.hpp); absent without graph launches and reasons.
  std::optional<StepKinds> step_kinds;
};

ProcessProfile analyze_process(const ProcessRecords& records, std::size_t top_kernels = 15);


// ---------------------------------------------------------------------------------------------
// The report

// One run of `profile --overhead N` (plain runs carry the injection's graph-launch callbacks alone:
// GRAPHPROF_PROFILE_LEVEL=clock, and with --step-range its NVTX range hooks). The steady-state
// window of the most-launched graph (the `clock` lines): its first launch call to the first
// synchronisation after its last (or to the last launch call, one step fewer). With --step-range
// NAME also the window of the NVTX ranges NAME: the first one's start to the last one's end, a
// step per range; `by_range` when that is the window compared (every run of the series had them).
struct OverheadRun {
  bool profiled = false;
  int status = 0;
  double wall_ns = 0;
  std::optional<double> window_ns;  // the most-launched graph's
  std::uint64_t steps = 0;
  std::uint32_t exec = 0;  // the exec the window is of
  bool settled = false;    // the window ends when a call waited for the GPU's work after the last launch
  std::optional<Observer> observed_by;  // how the window's process was observed; empty: no window
  std::string range;       // --step-range NAME ("" without)
  std::optional<double> range_window_ns;
  std::uint64_t ranges = 0;  // NAME ranges of the process that closed most of them
  bool by_range = false;
  std::optional<double> compared_window_ns() const { return by_range ? range_window_ns : window_ns; }
  std::uint64_t compared_steps() const { return by_range ? ranges : steps; }
};

// The change of one figure over the pairs (compare's paired_change), for the report.
struct OverheadChange {
  std::string metric;  // "steady_window", "host_per_step", "wall_time"
  std::size_t pairs = 0;
  double change = 0, low = 0, high = 0;  // profiled / plain - 1, 95 % interval
  bool wider_than_effect = false;
  double plain_median_ns = 0, profiled_median_ns = 0;
};

// The steady-state window of one run's records (the `clock` lines of every proc-*.jsonl in `dir`):
// the exec launched most often in any process. Empty without clock lines. `settled_ns`: when the
// first call that waited for the GPU (a synchronisation) returned after the exec's last launch,
// 0 when none did; with it the window holds the GPU work of every launch, which a GPU-bound loop's
// last launch call returns long before.
struct SteadyWindow {
  std::uint32_t exec = 0;
  std::uint64_t launches = 0, first_ns = 0, last_ns = 0, settled_ns = 0;
  Observer observed_by = Observer::kCupti;  // the process line's "observed" of the window's process
};
std::optional<SteadyWindow> read_steady_window(const std::string& dir);

// --step-range NAME: the NVTX ranges NAME of one run's records (the `nvtx` lines of every
// proc-*.jsonl in `dir`), of the process that closed most of them: how many, the first one's start
// and the last one's end. Empty when no process closed one.
struct RangeWindow {
  std::uint64_t ranges = 0, first_ns = 0, last_ns = 0;
};
std::optional<RangeWindow> read_range_window(const std::string& dir);

// Both windows of one run, from one pass over its record files (--overhead reads them per run; a
// node-level file is large); the ranges' only when `ranges` (--step-range).
struct RunWindows {
  std::optional<SteadyWindow> steady;
  std::optional<RangeWindow> range;
};
RunWindows read_run_windows(const std::string& dir, bool ranges);

// --overhead with --step-range NAME: the runs compare the ranges' window when every run had NAME
// ranges (sets by_range on all); otherwise the most-launched graph's, and the returned note says
// why ("" when the ranges are used or none was asked for).
std::string choose_overhead_window(std::vector<OverheadRun>& runs, const std::string& range);

// --overhead-windows N: each run's windows (graphprof/profile/overhead_windows.hpp) and the change
// over all of them.
struct WindowsRun {
  int status = 0;
  double wall_ns = 0;
  std::size_t processes = 0;  // processes that wrote windows
  std::size_t windows = 0;    // whole windows written, of both kinds
  std::size_t compared = 0;   // recording windows held against the paused ones beside them
  std::size_t through_cupti = 0;  // processes CUPTI observed (not interposed: no windows)
  std::optional<double> change, recording_ns, paused_ns;  // the run's own median change; medians per launch
};
struct WindowsOverhead {
  unsigned period_ms = 0, start_ms = 0;
  std::vector<WindowsRun> runs;
  std::optional<WindowsChange> change;  // over every compared window of every run
};

struct ProfileRun {
  std::string program;                    // workload name in the report
  std::vector<std::string> command;       // CMD ARGS...
  int exit_status = 0;                    // the application's (128 + signal when killed)
  std::string exit_description;           // "exited with status 1", "killed by SIGINT"
  double wall_ns = 0;                     // as graphprof saw it: start to end of the child
  // --overhead N: a warm-up run without the injection (not counted) fills the caches first; then
  // N plain and N profiled runs alternate; plain_wall_ns is the mean of the plain runs.
  std::optional<double> plain_wall_ns;
  std::vector<double> plain_runs_ns;
  std::optional<double> warmup_wall_ns;
  TraceLevel trace_level = TraceLevel::kNode;
  std::vector<std::string> notes;         // CUDA_INJECTION64_PATH already set, ...
  std::vector<OverheadRun> overhead_runs;        // --overhead N: every run, in the order they ran
  std::vector<OverheadChange> overhead_changes;  // ... and the changes over the pairs
  std::optional<WindowsOverhead> overhead_windows;  // --overhead-windows N
  std::optional<FrameworkLogs> framework_logs;      // the framework logs asked for (sections.profile.framework_logs)
};

// One result for the application (mode "app", sections.profile) and one per graph exec
// (params process/graph/exec; sections.graph and sections.trace as `run` writes them, so
// analyze/render --report read them).
Report profile_report(const ProfileRun& run, const std::vector<ProcessProfile>& processes);

// `profile --repeat N`: one run of the application.
struct ProfileRepetition {
  int exit_status = 0;
  std::string exit_description;
  double wall_ns = 0;
  std::vector<ProcessProfile> processes;
};

// The report of N runs of one application (docs/profile.md, "--repeat"): the first run as
// profile_report writes it, every run in sections.profile.runs, settings.processes = N and each
// metric with one repetition per run (the app's, and a graph's when the same graph, by process,
// node count, kernel sequence and rank among its equals, is in that run), so `compare` counts
// the runs as independent.
Report repeated_profile_report(const ProfileRun& run, const std::vector<ProfileRepetition>& runs);

// One process as sections.profile.processes[] holds it (`index` from 1), typed and as JSON.
ProfileProcess profile_process(const ProcessProfile& p, std::size_t index);
nlohmann::json profile_process_json(const ProcessProfile& p, std::size_t index);

// The key that matches one graph across runs and reports: "<nodes>:<kernel sequence>".
std::string graph_signature(std::size_t nodes, const std::vector<std::string>& kernel_sequence);

// `graphprof merge` of the profile reports of a job's nodes (src/profile/profile_rank_merge.cpp).
// are_rank_profiles: two or more profile reports whose processes carry ranks, not the same ranks
// on the same hosts in all (those are repeated profiles of one job: the ordinary merge pools them).
// merge_rank_profiles joins them by global rank: every process (renumbered, with "report"), the
// per-graph results, and the cross-rank view over all of them. A global rank in two reports is
// bad input (Error kBadInput naming both); reports of different builds are kUntrusted.
bool are_rank_profiles(const std::vector<Report>& reports);
Report merge_rank_profiles(const std::vector<Report>& reports, const std::vector<std::string>& sources);

}  // namespace gp
