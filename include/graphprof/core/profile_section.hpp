// sections.profile as plain structs: the whole profile of an application (`graphprof profile`,
// docs/profile.md; fields in docs/report-schema.md), which the console, the page and compare read
// as `const ProfileSection&`. A field is a member, so a misspelt one is a compile error, not a "-"
// in a table.
//
// The codec (src/core/profile_section.cpp) reads a report of any schema and writes back exactly
// what it read: a key a struct does not model, or whose value is not of the modelled type (a
// string where an object was expected, null), stays in that struct's `extra`; numbers keep
// integer or real form and null; a key that was absent stays absent. Readers get the tolerant
// values the report allows: a missing number reads as NaN, a missing string as "", a missing list
// as empty, a missing object as std::nullopt. Host-only.
//
// Adding a figure: a member here (and its key in the struct's `fields`), filled where
// src/profile writes the JSON, read wherever it is shown.
#pragma once
#include <cstdint>
#include <ostream>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include <nlohmann/json.hpp>

namespace gp {

// A number as the report holds it: absent, null (NaN), an integer or a real. Reads as a double
// (NaN when absent or null); `count()` gives an integer exactly.
class ProfileNumber {
 public:
  enum class Form { kAbsent, kNull, kSigned, kUnsigned, kReal };
  ProfileNumber() = default;
  ProfileNumber(double v) : form_(v != v ? Form::kNull : Form::kReal), real_(v) {}  // NaN is null
  template <class I, std::enable_if_t<std::is_integral_v<I> && !std::is_same_v<I, bool>, int> = 0>
  ProfileNumber(I v) {
    if constexpr (std::is_signed_v<I>) {
      form_ = v < 0 ? Form::kSigned : Form::kUnsigned;
      signed_ = static_cast<std::int64_t>(v);
      unsigned_ = static_cast<std::uint64_t>(v);
    } else {
      form_ = Form::kUnsigned;
      unsigned_ = static_cast<std::uint64_t>(v);
      signed_ = static_cast<std::int64_t>(v);
    }
  }
  static ProfileNumber null() {
    ProfileNumber n;
    n.form_ = Form::kNull;
    return n;
  }

  Form form() const { return form_; }
  bool present() const { return form_ != Form::kAbsent; }
  bool is_number() const { return form_ == Form::kSigned || form_ == Form::kUnsigned || form_ == Form::kReal; }
  bool is_integer() const { return form_ == Form::kSigned || form_ == Form::kUnsigned; }
  double value() const {
    switch (form_) {
      case Form::kSigned: return static_cast<double>(signed_);
      case Form::kUnsigned: return static_cast<double>(unsigned_);
      case Form::kReal: return real_;
      default: return std::numeric_limits<double>::quiet_NaN();
    }
  }
  double value_or(double fallback) const { return is_number() ? value() : fallback; }
  operator double() const { return value(); }
  // The value as a count: exact for integers, truncated for reals, 0 when absent, null or negative.
  std::uint64_t count() const {
    if (form_ == Form::kUnsigned) return unsigned_;
    if (form_ == Form::kSigned) return signed_ < 0 ? 0 : static_cast<std::uint64_t>(signed_);
    if (form_ == Form::kReal && real_ > 0) return static_cast<std::uint64_t>(real_);
    return 0;
  }
  std::int64_t signed_value() const { return form_ == Form::kSigned ? signed_ : static_cast<std::int64_t>(count()); }

 private:
  Form form_ = Form::kAbsent;
  std::int64_t signed_ = 0;
  std::uint64_t unsigned_ = 0;
  double real_ = 0;
};

// Written as the report holds it: 12, 1.5, null (absent too).
std::ostream& operator<<(std::ostream& out, const ProfileNumber& n);

// A string as the report holds it: present or absent; reads as "" when absent.
class ProfileText {
 public:
  ProfileText() = default;
  ProfileText(std::string s) : value_(std::move(s)), present_(true) {}
  ProfileText(const char* s) : value_(s), present_(true) {}
  bool present() const { return present_; }
  const std::string& str() const { return value_; }
  operator const std::string&() const { return value_; }
  bool empty() const { return value_.empty(); }
  const char* c_str() const { return value_.c_str(); }
  friend bool operator==(const ProfileText& a, const std::string& b) { return a.value_ == b; }
  friend bool operator==(const ProfileText& a, const char* b) { return a.value_ == b; }
  friend bool operator!=(const ProfileText& a, const std::string& b) { return a.value_ != b; }
  friend bool operator!=(const ProfileText& a, const char* b) { return a.value_ != b; }
  friend std::string operator+(const std::string& a, const ProfileText& b) { return a + b.value_; }
  friend std::string operator+(const ProfileText& a, const std::string& b) { return a.value_ + b; }
  friend std::string operator+(const char* a, const ProfileText& b) { return a + b.value_; }
  friend std::string operator+(const ProfileText& a, const char* b) { return a.value_ + b; }
  friend std::ostream& operator<<(std::ostream& out, const ProfileText& t) { return out << t.value_; }

 private:
  std::string value_;
  bool present_ = false;
};

// A list; written when read (even empty) or when it holds elements.
template <class T>
struct ProfileList : std::vector<T> {
  using std::vector<T>::vector;
  bool present = false;
};

// A field kept as JSON: polymorphic ones (a count or a list) and documents with codecs of their
// own (step_kinds, framework_logs). Absent: std::nullopt.
using ProfileJson = std::optional<nlohmann::json>;
using ProfileFlag = std::optional<bool>;

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
  std::optional<ProfileStats> all, unblocked, idle_latency, queued_latency, queue_latency;
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

// A call site: where the application made a call (capture, instantiate, eager launch).
struct ProfileSite {
  ProfileNumber id;
  ProfileText where, function_where, from;
  ProfileList<ProfileText> stack;
  std::optional<ProfileSource> source;
  nlohmann::json extra = nlohmann::json::object();
  template <class S, class V> static void fields(S& s, V&& v) {
    v("id", s.id), v("where", s.where), v("function_where", s.function_where), v("from", s.from), v("stack", s.stack);
    v("source", s.source);
  }
};

// Python frames of an allocation; `source` (1.13): what `where` is apart from its line number.
struct ProfilePythonStack {
  ProfileText from, where;
  ProfileList<ProfileText> stack;
  std::optional<ProfileSource> source;
  nlohmann::json extra = nlohmann::json::object();
  template <class S, class V> static void fields(S& s, V&& v) {
    v("from", s.from), v("where", s.where), v("stack", s.stack), v("source", s.source);
  }
};

// Where a graph's memory was allocated (the memory ledger).
struct ProfileAllocSite {
  ProfileNumber allocations, bytes;
  std::optional<ProfileSite> site;
  std::optional<ProfilePythonStack> python;
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
  std::optional<ProfileStats> span_traced, span_untraced;
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

// processes[].graphs[]: one executable graph.
struct ProfileGraph {
  ProfileNumber graph, exec, nodes, edges, launches, kernels, kernels_per_launch, kernel_shapes, kernel_time_ns;
  ProfileNumber created_at_ns, first_launch_at_ns, instantiate_ns, upload_ns, capture_stream;
  ProfileNumber set_params_calls, exec_update_calls;  // changes of the exec in place (interposed only)
  ProfileText made_by, capture_mode, signature, dot, dot_verbose, gpu_span_from;
  std::optional<ProfileSite> capture_site, instantiate_site;  // older reports: a string, kept in extra
  std::optional<ProfileStats> gpu_span;
  std::optional<ProfileLaunchCalls> launch_calls;
  std::optional<ProfileGraphMemory> memory;
  std::optional<ProfileNodeSampling> node_sampling;
  std::optional<ProfileGraphStartup> startup;
  ProfileList<ProfileNameCount> kernel_counts;
  ProfileList<ProfileText> kernel_sequence;
  ProfileJson collective_per_launch;
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
    v("collective_per_launch", s.collective_per_launch), v("set_params_calls", s.set_params_calls);
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
  std::optional<ProfileSteadyCoverage> steady;
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
  std::optional<ProfileSite> site;
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
  std::optional<ProfileSite> site;
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
  std::optional<ProfileSite> site;
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
  ProfileText end_reason, cupti_at_end, observe_note;  // null in the report: absent here (kept in `extra`)
  ProfileText node_sampling;  // the rule of --node-sample ("2,1,100"); null without sampling
  ProfileFlag call_sites_recorded, ledgers_recorded;
  ProfileList<ProfileNumber> devices_used;
  ProfileList<ProfileGpu> gpus;
  std::optional<ProfileRankId> rank;
  ProfileList<ProfileGraph> graphs;
  std::optional<ProfileCoverage> coverage;
  std::optional<ProfileStep> step;
  std::optional<ProfileStepRange> step_range;
  std::optional<ProfileProcessStartup> startup;
  ProfileList<ProfileCallTime> syncs, copies, top_eager_kernels;
  ProfileList<ProfileEagerSite> eager_sites;
  ProfileList<ProfileCaptureTrouble> capture_trouble;
  ProfileList<ProfileRecapture> recaptures;
  std::optional<ProfileTimeline> timeline;
  std::optional<ProfileLaunchCalls> graph_launch_calls, eager_launch_calls;
  std::optional<ProfileInterpositionCost> interposition_cost;
  std::optional<ProfileCallSiteCost> call_site_cost;
  std::optional<ProfilePythonFrames> python_frames;
  std::optional<ProfileCallCount> exec_updates, set_params;
  std::optional<ProfileProcessMemory> memory;
  ProfileList<ProfileText> errors, warnings, not_observed, source_line_notes;
  std::optional<ProfileCuptiRefused> cupti_refused;
  std::optional<ProfileKernelActivity> kernel_activity;
  // Kept as JSON: step_kinds (core/step_kinds.hpp reads it), a list of graph ids or a count
  // (late_graphs), the launcher's variables (rank_env).
  ProfileJson step_kinds, late_graphs, eager_records_set_aside, rank_env;
  ProfileList<ProfileText> cupti_notices;
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
    v("rank_env", s.rank_env);
  }
};

// cross_rank.ranks[]: one rank of a multi-rank profile.
struct ProfileRankSummary : ProfileRankId {
  ProfileText host;
  ProfileList<ProfileGpu> gpus;
  ProfileList<ProfileNumber> pids, processes;
  ProfileNumber graph_gpu_ns, graph_launches, collective_ns, collective_wait_ns;
  template <class S, class V> static void fields(S& s, V&& v) {
    ProfileRankId::fields(s, v);
    v("host", s.host), v("gpus", s.gpus), v("pids", s.pids), v("processes", s.processes);
    v("graph_gpu_ns", s.graph_gpu_ns), v("graph_launches", s.graph_launches), v("collective_ns", s.collective_ns);
    v("collective_wait_ns", s.collective_wait_ns);
  }
};

// cross_rank.graphs[].ranks[]: the graph on one rank.
struct ProfileRankGraph {
  ProfileNumber rank, process, graph, exec, launches, gpu_per_launch_ns, collective_per_launch_ns, wait_per_launch_ns;
  ProfileNumber outside_collectives_per_launch_ns;
  ProfileText capture_mode;
  nlohmann::json extra = nlohmann::json::object();
  template <class S, class V> static void fields(S& s, V&& v) {
    v("rank", s.rank), v("process", s.process), v("graph", s.graph), v("exec", s.exec), v("launches", s.launches);
    v("gpu_per_launch_ns", s.gpu_per_launch_ns), v("collective_per_launch_ns", s.collective_per_launch_ns);
    v("wait_per_launch_ns", s.wait_per_launch_ns);
    v("outside_collectives_per_launch_ns", s.outside_collectives_per_launch_ns), v("capture_mode", s.capture_mode);
  }
};

// cross_rank.graphs[].collectives[]: a collective a graph runs.
struct ProfileGraphCollective {
  ProfileText kind, kernel, op, dtype, algorithm;
  ProfileNumber per_launch, bytes;
  nlohmann::json extra = nlohmann::json::object();
  template <class S, class V> static void fields(S& s, V&& v) {
    v("kind", s.kind), v("kernel", s.kernel), v("op", s.op), v("dtype", s.dtype), v("algorithm", s.algorithm);
    v("per_launch", s.per_launch), v("bytes", s.bytes);
  }
};

// cross_rank.graphs[]: one graph matched across the ranks.
struct ProfileCrossRankGraph {
  ProfileText id, signature, call_site, matched_by;
  ProfileNumber nodes, kernels_per_launch, skew, skew_ns, slowest_rank, fastest_rank, busiest_rank, collective_share;
  ProfileList<ProfileNumber> missing_on;
  ProfileList<ProfileRankGraph> ranks;
  ProfileList<ProfileGraphCollective> collectives;
  nlohmann::json extra = nlohmann::json::object();
  template <class S, class V> static void fields(S& s, V&& v) {
    v("id", s.id), v("signature", s.signature), v("call_site", s.call_site), v("matched_by", s.matched_by);
    v("nodes", s.nodes), v("kernels_per_launch", s.kernels_per_launch), v("skew", s.skew), v("skew_ns", s.skew_ns);
    v("slowest_rank", s.slowest_rank), v("fastest_rank", s.fastest_rank), v("busiest_rank", s.busiest_rank);
    v("collective_share", s.collective_share), v("missing_on", s.missing_on), v("ranks", s.ranks);
    v("collectives", s.collectives);
  }
};

// cross_rank.trouble[]: a finding across the ranks.
struct ProfileRankTrouble {
  ProfileText kind, detail, hint;
  ProfileList<ProfileNumber> ranks;
  ProfileJson graph;
  nlohmann::json extra = nlohmann::json::object();
  template <class S, class V> static void fields(S& s, V&& v) {
    v("kind", s.kind), v("detail", s.detail), v("hint", s.hint), v("ranks", s.ranks), v("graph", s.graph);
  }
};

// cross_rank.collectives[]: a rank's collectives of one kind.
struct ProfileRankCollective {
  ProfileNumber rank, in_graphs, eager, total_ns, wait_ns;
  ProfileText kind;
  nlohmann::json extra = nlohmann::json::object();
  template <class S, class V> static void fields(S& s, V&& v) {
    v("rank", s.rank), v("in_graphs", s.in_graphs), v("eager", s.eager), v("total_ns", s.total_ns), v("wait_ns", s.wait_ns);
    v("kind", s.kind);
  }
};

// cross_rank: the ranks of a job side by side (null with one rank).
struct ProfileCrossRank {
  ProfileNumber world_size;
  ProfileList<ProfileText> hosts, notes;
  ProfileList<ProfileNumber> missing_ranks;
  ProfileList<ProfileRankSummary> ranks;
  ProfileList<ProfileCrossRankGraph> graphs;
  ProfileList<ProfileRankTrouble> trouble;
  ProfileList<ProfileRankCollective> collectives;
  nlohmann::json extra = nlohmann::json::object();
  template <class S, class V> static void fields(S& s, V&& v) {
    v("world_size", s.world_size), v("hosts", s.hosts), v("notes", s.notes), v("missing_ranks", s.missing_ranks);
    v("ranks", s.ranks), v("graphs", s.graphs), v("trouble", s.trouble), v("collectives", s.collectives);
  }
};

// overhead_runs[]: one plain or profiled run of --overhead.
struct ProfileOverheadRun {
  ProfileFlag profiled;
  ProfileText window, window_end, observed_by, range, graph_window_end;
  ProfileNumber status, wall_ns, window_ns, steps, exec, host_per_step_ns, range_window_ns, graph_window_ns, graph_steps;
  ProfileList<ProfileNumber> ranges;
  nlohmann::json extra = nlohmann::json::object();
  template <class S, class V> static void fields(S& s, V&& v) {
    v("profiled", s.profiled), v("status", s.status), v("window", s.window), v("window_end", s.window_end);
    v("observed_by", s.observed_by), v("range", s.range), v("graph_window_end", s.graph_window_end);
    v("wall_ns", s.wall_ns), v("window_ns", s.window_ns), v("steps", s.steps), v("exec", s.exec);
    v("host_per_step_ns", s.host_per_step_ns), v("range_window_ns", s.range_window_ns);
    v("graph_window_ns", s.graph_window_ns), v("graph_steps", s.graph_steps), v("ranges", s.ranges);
  }
};

// overhead_changes[]: profiled against plain, one metric.
struct ProfileOverheadChange {
  ProfileText metric;
  ProfileNumber pairs, change, low, high, level, plain_median_ns, profiled_median_ns;
  ProfileFlag wider_than_effect;
  nlohmann::json extra = nlohmann::json::object();
  template <class S, class V> static void fields(S& s, V&& v) {
    v("metric", s.metric), v("pairs", s.pairs), v("change", s.change), v("low", s.low), v("high", s.high);
    v("level", s.level), v("plain_median_ns", s.plain_median_ns), v("profiled_median_ns", s.profiled_median_ns);
    v("wider_than_effect", s.wider_than_effect);
  }
};

// overhead_windows.runs[]: one run of --overhead windows.
struct ProfileOverheadWindowRun {
  ProfileNumber status, wall_ns, processes, windows, compared, change, recording_ns_per_launch, paused_ns_per_launch;
  ProfileNumber through_cupti;
  nlohmann::json extra = nlohmann::json::object();
  template <class S, class V> static void fields(S& s, V&& v) {
    v("status", s.status), v("wall_ns", s.wall_ns), v("processes", s.processes), v("windows", s.windows);
    v("compared", s.compared), v("change", s.change), v("recording_ns_per_launch", s.recording_ns_per_launch);
    v("paused_ns_per_launch", s.paused_ns_per_launch), v("through_cupti", s.through_cupti);
  }
};

// overhead_windows: recording switched on and off in windows of one run (--overhead windows).
struct ProfileOverheadWindows {
  ProfileNumber period_ms, start_ms, windows, change, low, high, level, recording_ns_per_launch, paused_ns_per_launch;
  ProfileText clock;
  ProfileFlag inside_noise;
  ProfileList<ProfileOverheadWindowRun> runs;
  nlohmann::json extra = nlohmann::json::object();
  template <class S, class V> static void fields(S& s, V&& v) {
    v("period_ms", s.period_ms), v("start_ms", s.start_ms), v("windows", s.windows), v("change", s.change);
    v("low", s.low), v("high", s.high), v("level", s.level), v("recording_ns_per_launch", s.recording_ns_per_launch);
    v("paused_ns_per_launch", s.paused_ns_per_launch), v("clock", s.clock), v("inside_noise", s.inside_noise);
    v("runs", s.runs);
  }
};

// One run of the application: runs[] of `profile --repeat` (or a pooled report), or the section
// itself (ProfileSection derives from it).
struct ProfileAppRun {
  ProfileNumber run, exit_status, wall_ns, warmup_wall_ns;
  ProfileText program, exit, trace_level;
  ProfileList<ProfileProcess> processes;
  nlohmann::json extra = nlohmann::json::object();
  template <class S, class V> static void fields(S& s, V&& v) {
    v("run", s.run), v("exit_status", s.exit_status), v("wall_ns", s.wall_ns), v("warmup_wall_ns", s.warmup_wall_ns);
    v("program", s.program), v("exit", s.exit), v("trace_level", s.trace_level), v("processes", s.processes);
  }
};

// sections.profile.
struct ProfileSection : ProfileAppRun {
  ProfileList<ProfileText> command, notes;
  ProfileNumber plain_wall_ns, overhead;
  ProfileList<ProfileNumber> plain_runs_ns;
  ProfileList<ProfileOverheadRun> overhead_runs;
  ProfileList<ProfileOverheadChange> overhead_changes;
  std::optional<ProfileOverheadWindows> overhead_windows;
  std::optional<ProfileCrossRank> cross_rank;
  ProfileList<ProfileAppRun> runs;
  ProfileJson framework_logs;  // core/step_kinds.hpp reads it
  template <class S, class V> static void fields(S& s, V&& v) {
    ProfileAppRun::fields(s, v);
    v("command", s.command), v("notes", s.notes), v("plain_wall_ns", s.plain_wall_ns), v("overhead", s.overhead);
    v("plain_runs_ns", s.plain_runs_ns), v("overhead_runs", s.overhead_runs), v("overhead_changes", s.overhead_changes);
    v("overhead_windows", s.overhead_windows), v("cross_rank", s.cross_rank), v("runs", s.runs);
    v("framework_logs", s.framework_logs);
  }
};

// The lines of a list of strings as a reader shows them: a list with elements of other types
// (kept in `extra` under `key`) gives each element's JSON text for those.
std::vector<std::string> text_lines(const ProfileList<ProfileText>& list, const nlohmann::json& extra, const char* key);

// The section from JSON, never throwing: a value of an unexpected type stays in `extra`. An input
// that is not an object gives an empty section whose `extra` is empty too.
ProfileSection profile_section_from_json(const nlohmann::json& j);
// One processes[] entry alone (tests and tools that hold a process's JSON).
ProfileProcess profile_process_from_json(const nlohmann::json& j);
// Exactly the JSON read (to_json(profile_section_from_json(j)) == j for every object j).
nlohmann::json to_json(const ProfileSection& s);

}  // namespace gp
