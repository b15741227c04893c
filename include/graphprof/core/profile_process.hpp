// processes[] of sections.profile as plain structs: one profiled process with its graphs, coverage,
// call sites, ledgers and the rest of its analysis (docs/report-schema.md). How the section is read,
// written back and extended: profile_section.hpp. Host-only.
#pragma once
#include <optional>

#include <nlohmann/json.hpp>

#include "graphprof/core/profile_values.hpp"

namespace gp {

// Each struct lists its fields once, `fields(self, visit)`: visit(key, member) for every key.

// Median and spread of a duration (launch calls, GPU spans).
struct ProfileStats {
  ProfileNumber count, median_ns, p10_ns, p90_ns, mean_ns, total_ns;
  nlohmann::json extra = nlohmann::json::object();
  template <class S, class V> static void fields(S& s, V&& v) {
    v("count", s.count), v("median_ns", s.median_ns), v("p10_ns", s.p10_ns), v("p90_ns", s.p90_ns);
    v("mean_ns", s.mean_ns), v("total_ns", s.total_ns);
  }
};

// Launch calls on the host: graph_launch_calls, eager_launch_calls, graphs[].launch_calls.
struct ProfileLaunchCalls {
  ProfileOptional<ProfileStats> all, unblocked, idle_latency, queued_latency, queue_latency;
  ProfileNumber blocked, blocked_wait_ns, first_call_ns, idle_calls, in_flight_when_blocked, max_in_flight, reference_ns;
  ProfileText reference_from;
  nlohmann::json extra = nlohmann::json::object();
  template <class S, class V> static void fields(S& s, V&& v) {
    v("all", s.all), v("unblocked", s.unblocked), v("idle_latency", s.idle_latency), v("queued_latency", s.queued_latency);
    v("queue_latency", s.queue_latency), v("blocked", s.blocked), v("blocked_wait_ns", s.blocked_wait_ns);
    v("first_call_ns", s.first_call_ns), v("idle_calls", s.idle_calls), v("in_flight_when_blocked", s.in_flight_when_blocked);
    v("max_in_flight", s.max_in_flight), v("reference_ns", s.reference_ns), v("reference_from", s.reference_from);
  }
};

// The source line of a call site's frame.
struct ProfileSource {
  ProfileText file, function, text;
  ProfileNumber line;
  nlohmann::json extra = nlohmann::json::object();
  template <class S, class V> static void fields(S& s, V&& v) {
    v("file", s.file), v("function", s.function), v("text", s.text), v("line", s.line);
  }
};

// A native frame of a call site: module and offset, and the symbol and line where known.
struct ProfileFrame {
  ProfileText module, offset, function, file;  // offset: "0x1a2b"
  ProfileNumber line;
  ProfileFlag inlined;
  nlohmann::json extra = nlohmann::json::object();
  template <class S, class V> static void fields(S& s, V&& v) {
    v("module", s.module), v("offset", s.offset), v("function", s.function), v("file", s.file), v("line", s.line);
    v("inlined", s.inlined);
  }
};

// A call site: where the application made a call (capture, instantiate, eager launch).
struct ProfileSite {
  ProfileNumber id;
  ProfileText where, function_where, from;
  ProfileList<ProfileText> stack;
  ProfileList<ProfileFrame> frames;
  ProfileOptional<ProfileSource> source;
  nlohmann::json extra = nlohmann::json::object();
  template <class S, class V> static void fields(S& s, V&& v) {
    v("id", s.id), v("where", s.where), v("function_where", s.function_where), v("from", s.from), v("stack", s.stack);
    v("frames", s.frames), v("source", s.source);
  }
};

// Python frames of an allocation; `source` (1.13): what `where` is apart from its line number.
struct ProfilePythonStack {
  ProfileText from, where;
  ProfileList<ProfileText> stack;
  ProfileOptional<ProfileSource> source;
  nlohmann::json extra = nlohmann::json::object();
  template <class S, class V> static void fields(S& s, V&& v) {
    v("from", s.from), v("where", s.where), v("stack", s.stack), v("source", s.source);
  }
};

// Where a graph's memory was allocated (the memory ledger).
struct ProfileAllocSite {
  ProfileNumber allocations, bytes;
  ProfileOptional<ProfileSite> site;
  ProfileOptional<ProfilePythonStack> python;
  nlohmann::json extra = nlohmann::json::object();
  template <class S, class V> static void fields(S& s, V&& v) {
    v("allocations", s.allocations), v("bytes", s.bytes), v("site", s.site), v("python", s.python);
  }
};

// graphs[].memory: the graph's memory ledger.
struct ProfileGraphMemory {
  ProfileNumber before_capture_alloc_bytes, before_capture_allocs, before_capture_freed_bytes;
  ProfileText before_capture_since;
  ProfileNumber capture_alloc_bytes, capture_allocs, capture_free_delta_bytes, capture_vmm_bytes;
  ProfileNumber graph_pool_reserved_after_bytes, instantiate_free_delta_bytes, memory_node_bytes, memory_nodes;
  ProfileNumber upload_free_delta_bytes;
  ProfileFlag reuses_memory;
  ProfileList<ProfileAllocSite> capture_alloc_sites, before_capture_alloc_sites;
  nlohmann::json extra = nlohmann::json::object();
  template <class S, class V> static void fields(S& s, V&& v) {
    v("before_capture_alloc_bytes", s.before_capture_alloc_bytes), v("before_capture_allocs", s.before_capture_allocs);
    v("before_capture_freed_bytes", s.before_capture_freed_bytes), v("before_capture_since", s.before_capture_since);
    v("capture_alloc_bytes", s.capture_alloc_bytes), v("capture_allocs", s.capture_allocs);
    v("capture_free_delta_bytes", s.capture_free_delta_bytes), v("capture_vmm_bytes", s.capture_vmm_bytes);
    v("graph_pool_reserved_after_bytes", s.graph_pool_reserved_after_bytes);
    v("instantiate_free_delta_bytes", s.instantiate_free_delta_bytes), v("memory_node_bytes", s.memory_node_bytes);
    v("memory_nodes", s.memory_nodes), v("upload_free_delta_bytes", s.upload_free_delta_bytes);
    v("reuses_memory", s.reuses_memory), v("capture_alloc_sites", s.capture_alloc_sites);
    v("before_capture_alloc_sites", s.before_capture_alloc_sites);
  }
};

// graphs[].node_sampling: node-level records of some launches (--trace node sampling).
struct ProfileNodeSampling {
  ProfileNumber kernel_time_estimate_ns, perturbation, traced_launches, set_aside, set_aside_switched;
  ProfileOptional<ProfileStats> span_traced, span_untraced;
  ProfileJson traced_ordinals;  // [[first, last], ...]: checked where it is read (a malformed one is exit 3)
  nlohmann::json extra = nlohmann::json::object();
  template <class S, class V> static void fields(S& s, V&& v) {
    v("kernel_time_estimate_ns", s.kernel_time_estimate_ns), v("perturbation", s.perturbation);
    v("traced_launches", s.traced_launches), v("span_traced", s.span_traced), v("span_untraced", s.span_untraced);
    v("traced_ordinals", s.traced_ordinals), v("set_aside", s.set_aside), v("set_aside_switched", s.set_aside_switched);
  }
};

struct ProfileGraphStartup {
  ProfileNumber capture_ns, created_after_first_step_ns, first_launch_ns;
  nlohmann::json extra = nlohmann::json::object();
  template <class S, class V> static void fields(S& s, V&& v) {
    v("capture_ns", s.capture_ns), v("created_after_first_step_ns", s.created_after_first_step_ns);
    v("first_launch_ns", s.first_launch_ns);
  }
};

// A name and how often: kernels of a graph or of an eager site.
struct ProfileNameCount {
  ProfileText name;
  ProfileNumber count;
  nlohmann::json extra = nlohmann::json::object();
  template <class S, class V> static void fields(S& s, V&& v) { v("name", s.name), v("count", s.count); }
};

// A collective (NCCL) kernel: processes[].eager_collectives[], graphs[].collectives[] (with
// count and total_ns) and cross_rank.graphs[].collectives[] (without).
struct ProfileGraphCollective {
  ProfileText kind, kernel, op, dtype, algorithm;
  ProfileNumber count, total_ns, per_launch, bytes;
  nlohmann::json extra = nlohmann::json::object();
  template <class S, class V> static void fields(S& s, V&& v) {
    v("kind", s.kind), v("kernel", s.kernel), v("op", s.op), v("dtype", s.dtype), v("algorithm", s.algorithm);
    v("count", s.count), v("total_ns", s.total_ns), v("per_launch", s.per_launch), v("bytes", s.bytes);
  }
};

// processes[].graphs[]: one executable graph.
struct ProfileGraph {
  ProfileNumber graph, exec, nodes, edges, launches, kernels, kernels_per_launch, kernel_shapes, kernel_time_ns;
  ProfileNumber created_at_ns, first_launch_at_ns, instantiate_ns, upload_ns, capture_stream;
  ProfileNumber set_params_calls, exec_update_calls;  // changes of the exec in place (interposed only)
  ProfileText made_by, capture_mode, signature, dot, dot_verbose, gpu_span_from;
  ProfileOptional<ProfileSite> capture_site, instantiate_site;  // older reports: a string, kept in extra
  ProfileOptional<ProfileStats> gpu_span;
  ProfileOptional<ProfileLaunchCalls> launch_calls;
  ProfileOptional<ProfileGraphMemory> memory;
  ProfileOptional<ProfileNodeSampling> node_sampling;
  ProfileOptional<ProfileGraphStartup> startup;
  ProfileList<ProfileNameCount> kernel_counts;
  ProfileList<ProfileText> kernel_sequence;
  ProfileList<ProfileGraphCollective> collectives;
  ProfileOptional<ProfileStats> collective_per_launch;  // NCCL kernel time per launch
  nlohmann::json extra = nlohmann::json::object();
  template <class S, class V> static void fields(S& s, V&& v) {
    v("graph", s.graph), v("exec", s.exec), v("nodes", s.nodes), v("edges", s.edges), v("launches", s.launches);
    v("kernels", s.kernels), v("kernels_per_launch", s.kernels_per_launch), v("kernel_shapes", s.kernel_shapes);
    v("kernel_time_ns", s.kernel_time_ns), v("created_at_ns", s.created_at_ns), v("first_launch_at_ns", s.first_launch_at_ns);
    v("instantiate_ns", s.instantiate_ns), v("upload_ns", s.upload_ns), v("capture_stream", s.capture_stream);
    v("made_by", s.made_by), v("capture_mode", s.capture_mode), v("signature", s.signature), v("dot", s.dot);
    v("dot_verbose", s.dot_verbose), v("gpu_span_from", s.gpu_span_from), v("capture_site", s.capture_site);
    v("instantiate_site", s.instantiate_site), v("gpu_span", s.gpu_span), v("launch_calls", s.launch_calls);
    v("memory", s.memory), v("node_sampling", s.node_sampling), v("startup", s.startup);
    v("kernel_counts", s.kernel_counts), v("kernel_sequence", s.kernel_sequence);
    v("collectives", s.collectives), v("collective_per_launch", s.collective_per_launch);
    v("set_params_calls", s.set_params_calls);
    v("exec_update_calls", s.exec_update_calls);
  }
};

// coverage.steady: the same figures over the steady state.
struct ProfileSteadyCoverage {
  ProfileNumber graph_kernel_ns, eager_kernel_ns, graph_kernels, eager_kernels, graph_launches, eager_launches;
  ProfileNumber graph_node_runs, kernel_time_in_graphs, kernels_in_graphs, eager_launches_per_graph_launch;
  ProfileNumber launches_in_graphs, from_ns, to_ns;  // coverage.steady only
  nlohmann::json extra = nlohmann::json::object();
  template <class S, class V> static void fields(S& s, V&& v) {
    v("graph_kernel_ns", s.graph_kernel_ns), v("eager_kernel_ns", s.eager_kernel_ns), v("graph_kernels", s.graph_kernels);
    v("eager_kernels", s.eager_kernels), v("graph_launches", s.graph_launches), v("eager_launches", s.eager_launches);
    v("graph_node_runs", s.graph_node_runs), v("kernel_time_in_graphs", s.kernel_time_in_graphs);
    v("kernels_in_graphs", s.kernels_in_graphs), v("eager_launches_per_graph_launch", s.eager_launches_per_graph_launch);
    v("launches_in_graphs", s.launches_in_graphs), v("from_ns", s.from_ns), v("to_ns", s.to_ns);
  }
};

// processes[].coverage: how much of the GPU work ran inside graphs.
struct ProfileCoverage : ProfileSteadyCoverage {
  ProfileFlag estimated;
  ProfileOptional<ProfileSteadyCoverage> steady;
  template <class S, class V> static void fields(S& s, V&& v) {
    ProfileSteadyCoverage::fields(s, v);
    v("estimated", s.estimated), v("steady", s.steady);
  }
};

// processes[].step: what a step is.
struct ProfileStep {
  ProfileNumber steps, exec, graph, other_graphs, span_ns;
  ProfileText from, range;  // range: the NVTX range's name (from "nvtx range")
  nlohmann::json extra = nlohmann::json::object();
  template <class S, class V> static void fields(S& s, V&& v) {
    v("steps", s.steps), v("exec", s.exec), v("graph", s.graph), v("other_graphs", s.other_graphs), v("span_ns", s.span_ns);
    v("from", s.from), v("range", s.range);
  }
};

// processes[].step_range: the NVTX range --step-range asked for (null without it).
struct ProfileStepRange {
  ProfileText name;
  ProfileFlag used;
  ProfileNumber ranges;
  ProfileJson missing;
  nlohmann::json extra = nlohmann::json::object();
  template <class S, class V> static void fields(S& s, V&& v) {
    v("name", s.name), v("used", s.used), v("ranges", s.ranges), v("missing", s.missing);
  }
};

// A CUDA call or kernel by name: syncs, copies, top_eager_kernels.
struct ProfileCallTime {
  ProfileText name;
  ProfileNumber count, bytes, median_ns, total_ns;
  nlohmann::json extra = nlohmann::json::object();
  template <class S, class V> static void fields(S& s, V&& v) {
    v("name", s.name), v("count", s.count), v("bytes", s.bytes), v("median_ns", s.median_ns), v("total_ns", s.total_ns);
  }
};

// processes[].eager_sites[]: a call site of eager launches.
struct ProfileEagerSite {
  ProfileText api, kind, hint;
  ProfileNumber calls, calls_in_steps, gpu_ns, host_ns, per_step, stacks, taken;
  ProfileList<ProfileNameCount> kernels;
  ProfileOptional<ProfileSite> site;
  nlohmann::json extra = nlohmann::json::object();
  template <class S, class V> static void fields(S& s, V&& v) {
    v("api", s.api), v("kind", s.kind), v("hint", s.hint), v("calls", s.calls), v("calls_in_steps", s.calls_in_steps);
    v("gpu_ns", s.gpu_ns), v("host_ns", s.host_ns), v("per_step", s.per_step), v("stacks", s.stacks), v("taken", s.taken);
    v("kernels", s.kernels), v("site", s.site);
  }
};

// processes[].capture_trouble[]: a capture that failed.
struct ProfileCaptureTrouble {
  ProfileText api, error, end_error, hint;
  ProfileNumber stream;
  ProfileOptional<ProfileSite> site;
  nlohmann::json extra = nlohmann::json::object();
  template <class S, class V> static void fields(S& s, V&& v) {
    v("api", s.api), v("error", s.error), v("end_error", s.end_error), v("hint", s.hint), v("stream", s.stream);
    v("site", s.site);
  }
};

// processes[].recaptures[]: one site that captured several graphs.
struct ProfileRecapture {
  ProfileList<ProfileNumber> graphs, nodes;
  ProfileNumber shapes, traced;
  ProfileOptional<ProfileSite> site;
  nlohmann::json extra = nlohmann::json::object();
  template <class S, class V> static void fields(S& s, V&& v) {
    v("graphs", s.graphs), v("nodes", s.nodes), v("shapes", s.shapes), v("traced", s.traced), v("site", s.site);
  }
};

// Which rank of a job a process is (processes[].rank).
struct ProfileRankId {
  ProfileNumber rank, local_rank, world_size, local_world_size, node_rank;
  ProfileText from;
  nlohmann::json extra = nlohmann::json::object();
  template <class S, class V> static void fields(S& s, V&& v) {
    v("rank", s.rank), v("local_rank", s.local_rank), v("world_size", s.world_size);
    v("local_world_size", s.local_world_size), v("node_rank", s.node_rank), v("from", s.from);
  }
};

struct ProfileGpu {
  ProfileNumber ordinal;
  ProfileText uuid, pci_bus_id;
  nlohmann::json extra = nlohmann::json::object();
  template <class S, class V> static void fields(S& s, V&& v) { v("ordinal", s.ordinal), v("uuid", s.uuid), v("pci_bus_id", s.pci_bus_id); }
};

struct ProfileProcessStartup {
  ProfileNumber cuda_to_first_replay_ns, graph_making_ns, graph_making_share, process_start_resolution_ns;
  ProfileNumber start_to_first_replay_ns, wall_ns;
  nlohmann::json extra = nlohmann::json::object();
  template <class S, class V> static void fields(S& s, V&& v) {
    v("cuda_to_first_replay_ns", s.cuda_to_first_replay_ns), v("graph_making_ns", s.graph_making_ns);
    v("graph_making_share", s.graph_making_share), v("process_start_resolution_ns", s.process_start_resolution_ns);
    v("start_to_first_replay_ns", s.start_to_first_replay_ns), v("wall_ns", s.wall_ns);
  }
};

struct ProfileTimeline {
  ProfileNumber bin_ns;
  ProfileList<ProfileNumber> eager_kernel_ns, eager_launches, graph_kernel_ns, graph_launches, graphs_made;
  nlohmann::json extra = nlohmann::json::object();
  template <class S, class V> static void fields(S& s, V&& v) {
    v("bin_ns", s.bin_ns), v("eager_kernel_ns", s.eager_kernel_ns), v("eager_launches", s.eager_launches);
    v("graph_kernel_ns", s.graph_kernel_ns), v("graph_launches", s.graph_launches), v("graphs_made", s.graphs_made);
  }
};

// processes[].interposition_cost: graphprof's own time inside the interposed calls.
struct ProfileInterpositionCost {
  ProfileNumber calls, own_ns, per_call_ns, per_step_ns, step_calls, step_per_call_ns, step_share, step_timed_calls;
  ProfileNumber timed_calls;
  nlohmann::json extra = nlohmann::json::object();
  template <class S, class V> static void fields(S& s, V&& v) {
    v("calls", s.calls), v("own_ns", s.own_ns), v("per_call_ns", s.per_call_ns), v("per_step_ns", s.per_step_ns);
    v("step_calls", s.step_calls), v("step_per_call_ns", s.step_per_call_ns), v("step_share", s.step_share);
    v("step_timed_calls", s.step_timed_calls), v("timed_calls", s.timed_calls);
  }
};

// processes[].call_site_cost: what naming call sites cost.
struct ProfileCallSiteCost {
  ProfileNumber calls, full_unwinds, named_off_thread, naming_ns, new_sites, new_sites_ns, ns, sample_every;
  ProfileNumber sample_every_max, sample_first, skipped;
  nlohmann::json extra = nlohmann::json::object();
  template <class S, class V> static void fields(S& s, V&& v) {
    v("calls", s.calls), v("full_unwinds", s.full_unwinds), v("named_off_thread", s.named_off_thread);
    v("naming_ns", s.naming_ns), v("new_sites", s.new_sites), v("new_sites_ns", s.new_sites_ns), v("ns", s.ns);
    v("sample_every", s.sample_every), v("sample_every_max", s.sample_every_max), v("sample_first", s.sample_first);
    v("skipped", s.skipped);
  }
};

struct ProfilePythonFrames {
  ProfileFlag can_take, stopped;
  ProfileNumber held, slow, taken, wait_ns;
  ProfileText mode;
  nlohmann::json extra = nlohmann::json::object();
  template <class S, class V> static void fields(S& s, V&& v) {
    v("can_take", s.can_take), v("stopped", s.stopped), v("held", s.held), v("slow", s.slow), v("taken", s.taken);
    v("wait_ns", s.wait_ns), v("mode", s.mode);
  }
};

// Calls and their failures (exec_updates, set_params).
struct ProfileCallCount {
  ProfileNumber calls, failures;
  nlohmann::json extra = nlohmann::json::object();
  template <class S, class V> static void fields(S& s, V&& v) { v("calls", s.calls), v("failures", s.failures); }
};

struct ProfileProcessMemory {
  ProfileNumber capture_alloc_bytes, capture_vmm_bytes, graph_pool_reserved_high_bytes, memory_node_bytes;
  nlohmann::json extra = nlohmann::json::object();
  template <class S, class V> static void fields(S& s, V&& v) {
    v("capture_alloc_bytes", s.capture_alloc_bytes), v("capture_vmm_bytes", s.capture_vmm_bytes);
    v("graph_pool_reserved_high_bytes", s.graph_pool_reserved_high_bytes), v("memory_node_bytes", s.memory_node_bytes);
  }
};

// processes[].cupti_refused: the application's own CUPTI client could not subscribe.
struct ProfileCuptiRefused {
  ProfileNumber subscribe_calls;
  ProfileText caller, result;
  nlohmann::json extra = nlohmann::json::object();
  template <class S, class V> static void fields(S& s, V&& v) {
    v("subscribe_calls", s.subscribe_calls), v("caller", s.caller), v("result", s.result);
  }
};

// processes[].kernel_activity: kernel records switched on for the node samples only.
struct ProfileKernelActivity {
  ProfileNumber switched_off, eager_records_set_aside;
  nlohmann::json extra = nlohmann::json::object();
  template <class S, class V> static void fields(S& s, V&& v) {
    v("switched_off", s.switched_off), v("eager_records_set_aside", s.eager_records_set_aside);
  }
};

// processes[]: one profiled process.
struct ProfileProcess {
  ProfileNumber process, pid, ppid, cuda_wall_ns, records_end_ns, dropped_records, lost_buffers, malformed_lines;
  ProfileText command_line, host, host_from, observed_by, observed_at, observed_at_why, trace_level;
  ProfileText report;  // graphprof merge by rank: the report the process came from
  ProfileText end_reason, cupti_at_end, observe_note;  // null in the report: absent here (kept in `extra`)
  ProfileText node_sampling;  // the rule of --node-sample ("2,1,100"); null without sampling
  ProfileFlag call_sites_recorded, ledgers_recorded;
  ProfileList<ProfileNumber> devices_used;
  ProfileList<ProfileGpu> gpus;
  ProfileOptional<ProfileRankId> rank;
  ProfileList<ProfileGraph> graphs;
  ProfileOptional<ProfileCoverage> coverage;
  ProfileOptional<ProfileStep> step;
  ProfileOptional<ProfileStepRange> step_range;
  ProfileOptional<ProfileProcessStartup> startup;
  ProfileList<ProfileCallTime> syncs, copies, top_eager_kernels;
  ProfileList<ProfileEagerSite> eager_sites;
  ProfileList<ProfileCaptureTrouble> capture_trouble;
  ProfileList<ProfileRecapture> recaptures;
  ProfileOptional<ProfileTimeline> timeline;
  ProfileOptional<ProfileLaunchCalls> graph_launch_calls, eager_launch_calls;
  ProfileOptional<ProfileInterpositionCost> interposition_cost;
  ProfileOptional<ProfileCallSiteCost> call_site_cost;
  ProfileOptional<ProfilePythonFrames> python_frames;
  ProfileOptional<ProfileCallCount> exec_updates, set_params;
  ProfileOptional<ProfileProcessMemory> memory;
  ProfileList<ProfileText> errors, warnings, not_observed, source_line_notes;
  ProfileOptional<ProfileCuptiRefused> cupti_refused;
  ProfileOptional<ProfileKernelActivity> kernel_activity;
  // Kept as JSON: step_kinds (core/step_kinds.hpp reads it), a list of graph ids or a count
  // (late_graphs), the launcher's variables (rank_env).
  ProfileJson step_kinds, late_graphs, eager_records_set_aside, rank_env;
  ProfileList<ProfileText> cupti_notices, rank_problems;
  ProfileList<ProfileGraphCollective> eager_collectives;
  nlohmann::json extra = nlohmann::json::object();
  template <class S, class V> static void fields(S& s, V&& v) {
    v("process", s.process), v("pid", s.pid), v("ppid", s.ppid), v("cuda_wall_ns", s.cuda_wall_ns);
    v("records_end_ns", s.records_end_ns), v("dropped_records", s.dropped_records), v("lost_buffers", s.lost_buffers);
    v("malformed_lines", s.malformed_lines), v("command_line", s.command_line), v("host", s.host);
    v("host_from", s.host_from), v("observed_by", s.observed_by), v("trace_level", s.trace_level);
    v("observed_at", s.observed_at), v("observed_at_why", s.observed_at_why), v("observe_note", s.observe_note);
    v("end_reason", s.end_reason), v("call_sites_recorded", s.call_sites_recorded);
    v("ledgers_recorded", s.ledgers_recorded), v("devices_used", s.devices_used), v("gpus", s.gpus), v("rank", s.rank);
    v("graphs", s.graphs), v("coverage", s.coverage), v("step", s.step), v("startup", s.startup), v("syncs", s.syncs);
    v("copies", s.copies), v("top_eager_kernels", s.top_eager_kernels), v("eager_sites", s.eager_sites);
    v("capture_trouble", s.capture_trouble), v("recaptures", s.recaptures), v("timeline", s.timeline);
    v("graph_launch_calls", s.graph_launch_calls), v("eager_launch_calls", s.eager_launch_calls);
    v("interposition_cost", s.interposition_cost), v("call_site_cost", s.call_site_cost);
    v("python_frames", s.python_frames), v("exec_updates", s.exec_updates), v("set_params", s.set_params);
    v("memory", s.memory), v("errors", s.errors), v("warnings", s.warnings), v("not_observed", s.not_observed);
    v("source_line_notes", s.source_line_notes), v("step_kinds", s.step_kinds), v("late_graphs", s.late_graphs);
    v("cupti_at_end", s.cupti_at_end), v("node_sampling", s.node_sampling), v("step_range", s.step_range);
    v("observe_note", s.observe_note), v("kernel_activity", s.kernel_activity), v("cupti_refused", s.cupti_refused);
    v("cupti_notices", s.cupti_notices), v("eager_records_set_aside", s.eager_records_set_aside);
    v("rank_env", s.rank_env), v("rank_problems", s.rank_problems), v("eager_collectives", s.eager_collectives);
    v("report", s.report);
  }
};

}  // namespace gp
