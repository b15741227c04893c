// The report of `graphprof profile`: one result for the application (mode "app", with the whole
// profile in sections.profile) and one per graph exec, whose sections.graph and sections.trace have
// the shape `run` writes, so `analyze --report` and `render --report` (heat map) read them.
// docs/report-schema.md documents sections.profile.
#include <algorithm>
#include <cmath>
#include <map>

#include "graphprof/core/metric_catalog.hpp"
#include "graphprof/profile/profile.hpp"
#include "graphprof/core/stats.hpp"
#include "rank_json.hpp"
#include "section_values.hpp"
#include "site_report.hpp"

namespace gp {

using nlohmann::json;
using section_values::number_or_null;
using section_values::numbers;
using section_values::opt;
using section_values::stats;
using section_values::texts;

namespace {

constexpr std::size_t kMaxSamples = 10000;

// Keeps at most kMaxSamples, evenly spaced, so a long application does not bloat the report.
std::vector<double> thinned(const std::vector<double>& v) {
  if (v.size() <= kMaxSamples) return v;
  std::vector<double> out;
  out.reserve(kMaxSamples);
  for (std::size_t i = 0; i < kMaxSamples; ++i) out.push_back(v[i * v.size() / kMaxSamples]);
  return out;
}

Metric metric(const char* unit, Direction dir, const char* description, const std::vector<double>& samples) {
  Metric m;
  m.unit = unit;
  m.direction = dir;
  m.description = description;
  m.repetitions = {thinned(samples)};
  m.resummarize();
  return m;
}

ProfileLaunchCalls calls_of(const LaunchCalls& c) {
  ProfileLaunchCalls out;
  out.all = stats(c.all);
  out.unblocked = stats(c.unblocked);
  out.reference_ns = opt(c.reference_ns);
  out.reference_from = c.reference_from;
  out.idle_calls = c.idle_calls;
  out.blocked = c.blocked;
  out.blocked_wait_ns = c.blocked_wait_ns;
  out.max_in_flight = c.max_in_flight;
  out.in_flight_when_blocked = opt(c.in_flight_when_blocked);
  out.first_call_ns = opt(c.first_call_ns);
  out.queue_latency = stats(c.queue_latency);
  out.idle_latency = stats(c.idle_latency);
  out.queued_latency = stats(c.queued_latency);
  return out;
}

ProfileList<ProfileCallTime> named_of(const std::vector<NamedCount>& v) {
  ProfileList<ProfileCallTime> out;
  out.present = true;
  for (const auto& n : v) {
    ProfileCallTime t;
    t.name = n.name;
    t.count = n.count;
    t.total_ns = n.total_ns;
    t.median_ns = n.median_ns;
    t.bytes = n.bytes;
    out.push_back(std::move(t));
  }
  return out;
}

ProfileOptional<ProfileTimeline> timeline_of(const ProcessTimeline& t) {
  if (t.graph_kernel_ns.empty()) return ProfileOptional<ProfileTimeline>::null();
  ProfileTimeline out;
  out.bin_ns = t.bin_ns;
  out.graph_kernel_ns.present = out.eager_kernel_ns.present = true;
  for (double v : t.graph_kernel_ns) out.graph_kernel_ns.push_back(static_cast<std::int64_t>(std::llround(v)));
  for (double v : t.eager_kernel_ns) out.eager_kernel_ns.push_back(static_cast<std::int64_t>(std::llround(v)));
  out.graph_launches = numbers(t.graph_launches);
  out.eager_launches = numbers(t.eager_launches);
  out.graphs_made = numbers(t.graph_launches.empty() ? std::vector<std::size_t>{} : t.graphs_made);
  return out;
}

double share(double part, double whole) { return whole > 0 ? part / whole : 0.0; }

// Launch ordinals as [first, last] runs: [[1, 20], [40, 40], ...].
json ordinal_runs(const std::vector<std::size_t>& v) {
  json a = json::array();
  for (std::size_t i = 0; i < v.size();) {
    std::size_t j = i;
    while (j + 1 < v.size() && v[j + 1] == v[j] + 1) ++j;
    a.push_back(json::array({v[i], v[j]}));
    i = j + 1;
  }
  return a;
}

// Null unless some launches had node records and some GRAPH_TRACE spans without them.
ProfileOptional<ProfileNodeSampling> sampling_of(const GraphProfile& g) {
  const NodeSamplingFigures& s = g.sampling;
  if (s.traced_ordinals.empty() || s.span_untraced_ns.empty()) return ProfileOptional<ProfileNodeSampling>::null();
  const double traced = s.span_traced_ns.empty() ? 0.0 : median(s.span_traced_ns);
  const double untraced = median(s.span_untraced_ns);
  ProfileNodeSampling out;
  out.traced_launches = s.traced_ordinals.size();
  out.traced_ordinals = ordinal_runs(s.traced_ordinals);
  out.span_traced = stats(duration_stats(s.span_traced_ns));
  out.span_untraced = stats(duration_stats(s.span_untraced_ns));
  out.perturbation = traced > 0 && untraced > 0 ? ProfileNumber(traced / untraced - 1.0) : ProfileNumber::null();
  out.kernel_time_estimate_ns = opt(s.kernel_time_estimate_ns);
  out.set_aside = s.set_aside;
  out.set_aside_switched = s.switched_aside;
  return out;
}

// How the process was observed (CUPTI or interposition), what that does not see, and what
// interposition cost.
void add_observation(ProfileProcess& j, const ProcessProfile& p) {
  j.observed_by = to_string(p.observed_by);
  // What interposition does not see (docs/profile.md): the figures of these are absent or a lower
  // bound in this process, not zero.
  const bool event_times = std::any_of(p.graphs.begin(), p.graphs.end(), [](const GraphProfile& g) { return g.gpu_span_by_events > 0; });
  // Since the interposer answers the driver's look-ups (observed_at said), libraries with a runtime of
  // their own and those that look the driver up are seen; those that take the driver's functions
  // from the shared runtime (cudaGetDriverEntryPoint) are not.
  const char* unseen_launches =
      p.observed_at.empty() ? "eager launches of libraries with a runtime of their own or that look the driver up themselves "
                              "(eager_launches is a lower bound, and their allocations are not in the memory ledger)"
                            : "driver calls of libraries that take the driver's functions from the shared runtime "
                              "(cudaGetDriverEntryPoint): eager_launches is a lower bound where there are any";
  if (!p.observed_at.empty()) j.observed_at = p.observed_at;
  if (!p.observed_at_why.empty()) j.observed_at_why = p.observed_at_why;
  j.not_observed = texts(p.observed_by == Observer::kInterpose
                             ? std::vector<std::string>{unseen_launches,
                                                        event_times ? "GPU times of eager work and of graph nodes (graph launches: a sample timed by CUDA events)"
                                                                    : "GPU times",
                                                        "GPU identity"}
                             : std::vector<std::string>{});
  // The interposer's own time on the application's threads, estimated from its timed calls.
  if (const auto& c = p.interpose_cost; c && c->timed > 0) {
    ProfileInterpositionCost& cost = j.interposition_cost.emplace();
    cost.calls = c->calls;
    cost.timed_calls = c->timed;
    cost.own_ns = c->own_ns;
    cost.per_call_ns = c->per_call_ns;
    cost.step_calls = c->step_calls;
    cost.step_timed_calls = c->step_timed;
    cost.step_per_call_ns = opt(c->step_per_call_ns);
    cost.per_step_ns = opt(c->per_step_ns);
    cost.step_share = opt(c->step_share);
  } else {
    j.interposition_cost = ProfileOptional<ProfileInterpositionCost>::null();
  }
}

// processes[].coverage: how much of the GPU work ran inside graphs, in the whole process and in the
// steady state.
ProfileCoverage coverage_of(const ProcessProfile& p) {
  const double graph_launches = static_cast<double>(p.graph_launches);
  const bool kernels = p.trace_level == TraceLevel::kNode && p.graph_kernels + p.eager_kernels > 0;
  ProfileCoverage c;
  c.estimated = p.coverage_estimated;
  c.graph_kernels = p.graph_kernels;
  c.eager_kernels = p.eager_kernels;
  c.graph_kernel_ns = p.graph_kernel_ns;
  c.eager_kernel_ns = p.eager_kernel_ns;
  // Null without kernel records: at --trace none/graph, and when none reached graphprof.
  c.kernel_time_in_graphs = number_or_null(kernels, share(p.graph_kernel_ns, p.graph_kernel_ns + p.eager_kernel_ns));
  c.kernels_in_graphs = number_or_null(
      kernels, share(static_cast<double>(p.graph_kernels), static_cast<double>(p.graph_kernels + p.eager_kernels)));
  c.graph_launches = p.graph_launches;
  c.eager_launches = p.eager_launches;
  c.eager_launches_per_graph_launch =
      graph_launches > 0 ? ProfileNumber(static_cast<double>(p.eager_launches) / graph_launches) : ProfileNumber::null();
  if (const auto& s = p.steady) {
    const bool k = s->kernel_records && s->graph_kernels + s->eager_kernels > 0;
    const double node_runs_and_eager = s->graph_node_runs + static_cast<double>(s->eager_launches);
    ProfileSteadyCoverage& st = c.steady.emplace();
    st.from_ns = s->from_ns;
    st.to_ns = s->to_ns;
    st.graph_launches = s->graph_launches;
    st.eager_launches = s->eager_launches;
    st.graph_node_runs = s->graph_node_runs;
    st.launches_in_graphs = number_or_null(node_runs_and_eager > 0, share(s->graph_node_runs, node_runs_and_eager));
    st.graph_kernels = s->graph_kernels;
    st.eager_kernels = s->eager_kernels;
    st.graph_kernel_ns = s->graph_kernel_ns;
    st.eager_kernel_ns = s->eager_kernel_ns;
    st.kernel_time_in_graphs = number_or_null(k, share(s->graph_kernel_ns, s->graph_kernel_ns + s->eager_kernel_ns));
  }
  return c;
}

// processes[].graphs[i]: one exec, with its ledger and what the ranks compare.
ProfileGraph graph_of(const ProcessProfile& p, std::size_t i) {
  const GraphProfile& g = p.graphs[i];
  ProfileGraph graph;
  graph.exec = g.exec.exec_id;
  graph.graph = g.exec.graph_id;
  graph.nodes = g.exec.nodes;
  graph.edges = g.exec.edges;
  graph.made_by = g.made_by;
  graph.capture_stream = g.capture_stream ? ProfileNumber(g.capture_stream) : ProfileNumber::null();
  graph.launches = g.launches;
  graph.instantiate_ns = opt(g.instantiate_ns);
  graph.upload_ns = opt(g.upload_ns);
  graph.launch_calls = calls_of(g.calls);
  graph.gpu_span = stats(duration_stats(g.gpu_span_ns));
  // where the spans came from: GPU records (CUPTI), or CUDA events around a sample of the launches
  // (the light default)
  graph.gpu_span_from = g.gpu_span_ns.empty()                          ? ProfileText::null()
                        : g.gpu_span_by_events == g.gpu_span_ns.size() ? ProfileText("events")
                                                                       : ProfileText("gpu records");
  graph.kernels = g.kernels;
  graph.kernel_time_ns = g.kernel_time_ns;
  graph.node_sampling = sampling_of(g);
  graph.dot = g.exec.dot;
  graph.dot_verbose = g.exec.dot_verbose;
  graph.created_at_ns = g.created_at_ns;
  graph.first_launch_at_ns = opt(g.first_launch_at_ns);
  graph.kernel_sequence = texts(g.kernel_sequence);
  if (g.set_params_calls) graph.set_params_calls = *g.set_params_calls;
  if (g.exec_update_calls) graph.exec_update_calls = *g.exec_update_calls;
  if (i < p.sites.graphs.size()) add_graph_ledger(graph, p.sites.graphs[i]);
  add_graph_rank_fields(graph, g);
  return graph;
}

ProfileProcess process_of(const ProcessProfile& p, std::size_t index) {
  ProfileProcess j;
  j.process = index;
  j.pid = p.pid;
  j.ppid = p.ppid;
  j.command_line = p.command_line;
  j.end_reason = ProfileText::or_null(p.end_reason);
  j.errors = texts(p.errors);
  j.warnings = texts(p.warnings);
  j.cupti_notices = texts(p.cupti_notices);
  if (p.refused_subscribes == 0) {
    j.cupti_refused = ProfileOptional<ProfileCuptiRefused>::null();
  } else {
    ProfileCuptiRefused& r = j.cupti_refused.emplace();
    r.subscribe_calls = p.refused_subscribes;
    r.result = p.refused_result;
    r.caller = p.refused_caller;
  }
  j.cupti_at_end = ProfileText::or_null(p.cupti_at_end);
  add_observation(j, p);
  j.observe_note = ProfileText::or_null(p.observe_note);
  j.records_end_ns = p.records_end_ns;
  j.trace_level = to_string(p.trace_level);
  j.node_sampling = ProfileText::or_null(p.node_sampling);
  if (p.kernel_switches_off == 0) {
    j.kernel_activity = ProfileOptional<ProfileKernelActivity>::null();
  } else {
    ProfileKernelActivity& k = j.kernel_activity.emplace();
    k.switched_off = p.kernel_switches_off;
    k.eager_records_set_aside = p.eager_switched_aside;
  }
  j.cuda_wall_ns = p.cuda_wall_ns;
  j.coverage = coverage_of(p);
  j.graph_launch_calls = calls_of(p.graph_calls);
  j.eager_launch_calls = calls_of(p.eager_calls);
  j.graphs.present = true;
  for (std::size_t i = 0; i < p.graphs.size(); ++i) j.graphs.push_back(graph_of(p, i));
  j.top_eager_kernels = named_of(p.top_eager_kernels);
  j.copies = named_of(p.copies);
  j.syncs = named_of(p.syncs);
  j.capture_trouble.present = true;
  for (const auto& t : p.capture_trouble) {
    ProfileCaptureTrouble c;
    c.stream = t.stream_id;
    c.api = t.api;
    c.error = t.error;
    c.end_error = t.end_error;
    c.hint = t.hint;
    c.site = profile_site(t.site);
    j.capture_trouble.push_back(std::move(c));
  }
  j.dropped_records = p.dropped_records;
  j.malformed_lines = p.malformed_lines;
  j.lost_buffers = p.lost_buffers;
  add_sites(j, p);
  j.timeline = timeline_of(p.timeline);
  j.step_kinds = p.step_kinds ? to_json(*p.step_kinds) : json(nullptr);
  add_process_rank_fields(j, p);
  return j;
}

// The application's counts and shares over all its processes (one run).
std::map<std::string, Metric> app_metrics(const std::vector<ProcessProfile>& processes) {
  std::map<std::string, Metric> out;
  double graph_ns = 0, eager_ns = 0;
  std::size_t graph_launches = 0, eager_launches = 0;
  std::vector<double> graph_calls;
  for (const auto& p : processes) {
    graph_ns += p.graph_kernel_ns;
    eager_ns += p.eager_kernel_ns;
    graph_launches += p.graph_launches;
    eager_launches += p.eager_launches;
    for (const auto& g : p.graphs) graph_calls.insert(graph_calls.end(), g.launch_call_ns.begin(), g.launch_call_ns.end());
  }
  out["graph_launches"] = metric("count", Direction::kNone, "cudaGraphLaunch calls", {static_cast<double>(graph_launches)});
  out["eager_launches"] =
      metric("count", Direction::kLowerIsBetter, "kernel launch calls outside graphs", {static_cast<double>(eager_launches)});
  if (graph_ns + eager_ns > 0)
    out["kernel_time_in_graphs"] =
        metric("fraction", Direction::kHigherIsBetter, "share of GPU kernel time inside graphs", {graph_ns / (graph_ns + eager_ns)});
  if (!graph_calls.empty())
    out["graph_launch_cpu_per_call"] =
        metric("ns", Direction::kLowerIsBetter, "host time of each cudaGraphLaunch call (includes queue waits)", graph_calls);
  return out;
}

std::map<std::string, Metric> graph_metrics(const GraphProfile& g) {
  std::map<std::string, Metric> out;
  if (!g.launch_call_ns.empty())
    out[metric_key::kLaunchCpuPerCall] =
        metric("ns", Direction::kLowerIsBetter, "host time of each cudaGraphLaunch call of this graph", g.launch_call_ns);
  if (!g.gpu_span_ns.empty())
    out[metric_key::kGpuTimePerIter] =
        metric("ns", Direction::kLowerIsBetter,
               g.gpu_span_by_events == g.gpu_span_ns.size()
                   ? "GPU time of a sample of the launches, by a pair of CUDA events around each on its stream"
                   : "GPU span of each launch: first node start to last node end",
               g.gpu_span_ns);
  if (g.instantiate_ns)
    out[metric_key::kInstantiateTime] = metric("ns", Direction::kLowerIsBetter, "cudaGraphInstantiate call", {*g.instantiate_ns});
  if (g.upload_ns) out[metric_key::kUploadTime] = metric("ns", Direction::kLowerIsBetter, "cudaGraphUpload calls", {*g.upload_ns});
  return out;
}

}  // namespace

ProfileProcess profile_process(const ProcessProfile& p, std::size_t index) { return process_of(p, index); }

json profile_process_json(const ProcessProfile& p, std::size_t index) { return to_json(process_of(p, index)); }

Report profile_report(const ProfileRun& run, const std::vector<ProcessProfile>& processes) {
  Report report;
  report.settings.command = "profile";
  report.settings.trace = to_string(run.trace_level);

  ModeResult app;
  app.workload = run.program;
  app.mode = Mode::kApp;
  if (run.exit_status != 0) {
    app.status = Status::kFailed;
    app.reason = "the application " + run.exit_description;
  }
  app.metrics["wall_time"] = metric("ns", Direction::kLowerIsBetter, "wall time of the profiled application", {run.wall_ns});
  if (run.plain_wall_ns)
    app.metrics["wall_time_plain"] =
        metric("ns", Direction::kLowerIsBetter, "wall time of the application without the injection (plain runs before and after the profiled one)",
               run.plain_runs_ns.empty() ? std::vector<double>{*run.plain_wall_ns} : run.plain_runs_ns);
  for (auto& [key, m] : app_metrics(processes)) app.metrics[key] = std::move(m);

  ProfileSection& profile = app.sections.profile.emplace();
  profile.program = run.program;
  profile.command = texts(run.command);
  profile.exit_status = run.exit_status;
  profile.exit = run.exit_description;
  profile.wall_ns = run.wall_ns;
  profile.plain_wall_ns = opt(run.plain_wall_ns);
  profile.plain_runs_ns = numbers(run.plain_runs_ns);
  profile.warmup_wall_ns = opt(run.warmup_wall_ns);
  profile.overhead = run.plain_wall_ns && *run.plain_wall_ns > 0 ? ProfileNumber(run.wall_ns / *run.plain_wall_ns - 1.0)
                                                                  : ProfileNumber::null();
  profile.overhead_runs.present = true;
  for (const auto& r : run.overhead_runs) {
    const auto window = r.compared_window_ns();
    const std::uint64_t steps = r.compared_steps();
    ProfileOverheadRun o;
    o.profiled = r.profiled;
    o.status = r.status;
    o.wall_ns = r.wall_ns;
    o.window = r.by_range ? "nvtx range" : "most-launched graph";
    o.window_ns = opt(window);
    o.steps = steps;
    o.exec = r.exec;
    o.window_end = r.by_range ? "range_end" : r.settled ? "synchronised" : "last_launch_call";
    o.observed_by = r.observed_by ? ProfileText(to_string(*r.observed_by)) : ProfileText::null();
    o.host_per_step_ns = window && steps > 0 ? ProfileNumber(*window / static_cast<double>(steps)) : ProfileNumber::null();
    if (!r.range.empty()) {  // --step-range NAME: both windows
      o.range = r.range;
      o.ranges = r.ranges;
      o.range_window_ns = opt(r.range_window_ns);
      o.graph_window_ns = opt(r.window_ns);
      o.graph_steps = r.steps;
      o.graph_window_end = r.settled ? "synchronised" : "last_launch_call";
    }
    profile.overhead_runs.push_back(std::move(o));
  }
  profile.overhead_changes.present = true;
  for (const auto& c : run.overhead_changes) {
    ProfileOverheadChange o;
    o.metric = c.metric;
    o.pairs = c.pairs;
    o.change = c.change;
    o.low = c.low;
    o.high = c.high;
    o.level = 0.95;
    o.wider_than_effect = c.wider_than_effect;
    o.plain_median_ns = c.plain_median_ns;
    o.profiled_median_ns = c.profiled_median_ns;
    profile.overhead_changes.push_back(std::move(o));
    if (c.metric == "wall_time") profile.overhead = c.change;
  }
  profile.overhead_windows = ProfileOptional<ProfileOverheadWindows>::null();
  if (const auto& w = run.overhead_windows) {
    ProfileOverheadWindows& o = profile.overhead_windows.emplace();
    o.runs.present = true;
    for (const auto& r : w->runs) {
      ProfileOverheadWindowRun wr;
      wr.status = r.status;
      wr.wall_ns = r.wall_ns;
      wr.processes = r.processes;
      wr.windows = r.windows;
      wr.compared = r.compared;
      wr.change = opt(r.change);
      wr.recording_ns_per_launch = opt(r.recording_ns);
      wr.paused_ns_per_launch = opt(r.paused_ns);
      if (r.through_cupti > 0) wr.through_cupti = r.through_cupti;
      o.runs.push_back(std::move(wr));
    }
    o.period_ms = w->period_ms;
    o.start_ms = w->start_ms;
    o.clock = "graph launch calls";
    if (const auto& c = w->change) {
      o.windows = c->windows;
      o.change = c->change;
      o.low = c->low;
      o.high = c->high;
      o.level = c->level;
      o.inside_noise = c->inside_noise();
      o.recording_ns_per_launch = c->recording_median_ns;
      o.paused_ns_per_launch = c->paused_median_ns;
    } else {
      o.windows = 0;
      o.change = o.low = o.high = o.level = o.recording_ns_per_launch = o.paused_ns_per_launch = ProfileNumber::null();
      o.inside_noise = ProfileFlag::null();
    }
  }
  profile.trace_level = to_string(run.trace_level);
  profile.framework_logs = run.framework_logs ? to_json(*run.framework_logs) : json(nullptr);
  profile.notes = texts(run.notes);
  profile.processes.present = true;
  for (std::size_t i = 0; i < processes.size(); ++i) profile.processes.push_back(profile_process(processes[i], i + 1));
  profile.cross_rank = cross_rank_view(profile.processes);
  report.results.push_back(std::move(app));

  for (std::size_t i = 0; i < processes.size(); ++i)
    for (const auto& g : processes[i].graphs) {
      ModeResult r;
      r.workload = run.program;
      r.mode = Mode::kApp;
      r.params = {{"process", std::to_string(i + 1)}, {"graph", std::to_string(g.exec.graph_id)}, {"exec", std::to_string(g.exec.exec_id)}};
      r.metrics = graph_metrics(g);
      GraphDumpSection& dump = r.sections.graph.emplace();
      dump.dot = g.exec.dot;
      dump.dot_verbose = g.exec.dot_verbose;
      dump.nodes = static_cast<int>(g.exec.nodes);
      dump.edges = static_cast<int>(g.exec.edges);
      dump.extra = {{"made_by", g.made_by}, {"launches", g.launches}};
      r.sections.trace = to_section(g.trace);
      report.results.push_back(std::move(r));
    }
  return report;
}

std::string graph_signature(std::size_t nodes, const std::vector<std::string>& kernel_sequence) {
  std::string s = std::to_string(nodes) + ":";
  for (std::size_t i = 0; i < kernel_sequence.size(); ++i) s += (i ? "," : "") + kernel_sequence[i];
  return s;
}

namespace {

// Appends `from`'s repetitions to `into` (a metric of another run), or takes it when `into` is new.
void add_run(std::map<std::string, Metric>& into, std::map<std::string, Metric> from) {
  for (auto& [key, m] : from) {
    auto it = into.find(key);
    if (it == into.end()) {
      into.emplace(key, std::move(m));
      continue;
    }
    for (auto& rep : m.repetitions) it->second.repetitions.push_back(std::move(rep));
    it->second.resummarize();
  }
}

std::string graph_key(std::size_t process, const GraphProfile& g) {
  return std::to_string(process) + "/" + graph_signature(g.exec.nodes, g.kernel_sequence);
}

}  // namespace

Report repeated_profile_report(const ProfileRun& run, const std::vector<ProfileRepetition>& runs) {
  if (runs.empty()) return profile_report(run, std::vector<ProcessProfile>{});
  ProfileRun first = run;
  first.exit_status = runs.front().exit_status;
  first.exit_description = runs.front().exit_description;
  first.wall_ns = runs.front().wall_ns;
  Report report = profile_report(first, runs.front().processes);
  const std::size_t n = runs.size();
  report.settings.repeat = static_cast<long long>(n);
  report.settings.processes = static_cast<long long>(n);  // independent runs, as `run --processes` counts them
  // results[0] is the application's; graphs that run 1 did not have are appended below, so it is
  // reached by index each time (a reference would dangle once the vector grows).
  auto app = [&report]() -> ModeResult& { return report.results.front(); };
  ProfileList<ProfileSection> all;
  all.present = true;
  std::map<std::string, std::vector<std::size_t>> results_by_key;  // graph key -> results of run 1, in order
  std::size_t next = 1;  // results[0] is the application's; one per graph follows, as run 1 made them
  for (std::size_t p = 0; p < runs.front().processes.size(); ++p)
    for (const auto& g : runs.front().processes[p].graphs) results_by_key[graph_key(p + 1, g)].push_back(next++);
  for (std::size_t k = 0; k < n; ++k) {
    const ProfileRepetition& rep = runs[k];
    ProfileSection& one = all.emplace_back();
    one.run = k + 1;
    one.exit_status = rep.exit_status;
    one.exit = rep.exit_description;
    one.wall_ns = rep.wall_ns;
    one.processes.present = true;
    for (std::size_t p = 0; p < rep.processes.size(); ++p) one.processes.push_back(process_of(rep.processes[p], p + 1));
    if (rep.exit_status != 0 && app().status == Status::kOk) {
      app().status = Status::kFailed;
      app().reason = "the application " + rep.exit_description + " (run " + std::to_string(k + 1) + " of " + std::to_string(n) + ")";
    }
    if (k == 0) continue;
    std::map<std::string, Metric> metrics = app_metrics(rep.processes);
    metrics["wall_time"] = metric("ns", Direction::kLowerIsBetter, "wall time of the profiled application", {rep.wall_ns});
    add_run(app().metrics, std::move(metrics));
    // The same graph (process, node count, kernel sequence, rank among its equals) gets this run's
    // samples as one more repetition; a graph run 1 did not have gets a result of its own.
    std::map<std::string, std::size_t> seen;
    for (std::size_t p = 0; p < rep.processes.size(); ++p)
      for (const auto& g : rep.processes[p].graphs) {
        const std::string key = graph_key(p + 1, g);
        const std::size_t rank = seen[key]++;
        const auto it = results_by_key.find(key);
        if (it != results_by_key.end() && rank < it->second.size()) {
          add_run(report.results[it->second[rank]].metrics, graph_metrics(g));
          continue;
        }
        ModeResult r;
        r.workload = run.program;
        r.mode = Mode::kApp;
        r.params = {{"process", std::to_string(p + 1)}, {"graph", std::to_string(g.exec.graph_id)},
                    {"exec", std::to_string(g.exec.exec_id)}, {"run", std::to_string(k + 1)}};
        r.metrics = graph_metrics(g);
        report.results.push_back(std::move(r));
      }
  }
  app().sections.profile->runs = std::move(all);
  return report;
}

}  // namespace gp
