// What graphprof makes of one profiled process (profile.hpp, docs/profile.md): graphs and their
// launches, launch-call cost kept apart from queue-full blocking, work outside graphs, coverage,
// capture trouble. Per-graph node statistics reuse the trace pass's join and statistics
// (summarize_trace), one launch per "iteration".
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <unordered_map>

#include "graphprof/graph/dot_graph_info.hpp"
#include "graphprof/core/error.hpp"
#include "graphprof/profile/profile.hpp"
#include "graphprof/core/cuda_error_text.hpp"
#include "graphprof/core/stats.hpp"
#include "api_kinds.hpp"
#include "profile_timeline.hpp"
#include "site_analysis.hpp"
#include "steady_coverage.hpp"
#include "rank_inputs.hpp"

namespace gp {

namespace {

using api_kinds::is_graph_launch;
using api_kinds::is_kernel_launch;
using api_kinds::is_sync;
using api_kinds::starts_with;

bool is_capture_error(std::uint32_t e) { return e >= 900 && e <= 908; }

double duration(std::uint64_t start, std::uint64_t end) { return end >= start ? static_cast<double>(end - start) : 0.0; }

struct Extent {
  std::uint64_t start = std::numeric_limits<std::uint64_t>::max(), end = 0;
  void add(std::uint64_t s, std::uint64_t e) {
    start = std::min(start, s);
    end = std::max(end, e);
  }
};

// When the GPU will have finished the work submitted before a given host time, and how many
// launches were in flight then: launch calls sorted by the time they returned, with the running
// maximum of their work's end; and the sorted call ends and work ends for counting.
class QueueView {
 public:
  QueueView(const std::vector<const ApiRecord*>& launches, const std::unordered_map<std::uint32_t, Extent>& extent) {
    for (const ApiRecord* a : launches) {
      auto it = extent.find(a->correlation_id);
      if (it == extent.end()) continue;
      subs_.emplace_back(a->end_ns, it->second.end);
      call_ends_.push_back(a->end_ns);
      work_ends_.push_back(std::max(a->end_ns, it->second.end));
    }
    std::sort(subs_.begin(), subs_.end());
    std::sort(call_ends_.begin(), call_ends_.end());
    std::sort(work_ends_.begin(), work_ends_.end());
    std::uint64_t m = 0;
    for (auto& s : subs_) s.second = m = std::max(m, s.second);
  }
  bool empty() const { return subs_.empty(); }
  // End of the GPU work of every launch call that returned at or before `t` (0 when none).
  std::uint64_t pending_end(std::uint64_t t) const {
    auto it = std::upper_bound(subs_.begin(), subs_.end(), std::make_pair(t, std::numeric_limits<std::uint64_t>::max()));
    return it == subs_.begin() ? 0 : std::prev(it)->second;
  }
  // Launches that had returned by `t` and whose GPU work had not finished by then.
  std::size_t in_flight(std::uint64_t t) const {
    const auto returned = std::upper_bound(call_ends_.begin(), call_ends_.end(), t) - call_ends_.begin();
    const auto finished = std::upper_bound(work_ends_.begin(), work_ends_.end(), t) - work_ends_.begin();
    return returned > finished ? static_cast<std::size_t>(returned - finished) : 0;
  }

 private:
  std::vector<std::pair<std::uint64_t, std::uint64_t>> subs_;
  std::vector<std::uint64_t> call_ends_, work_ends_;
};

std::optional<DurationStats> stats_if_any(const std::vector<double>& v) {
  if (v.empty()) return std::nullopt;
  return duration_stats(v);
}

LaunchCalls analyze_calls(std::vector<const ApiRecord*> calls, const QueueView& queue,
                          const std::unordered_map<std::uint32_t, Extent>& extent) {
  LaunchCalls out;
  if (calls.empty()) return out;
  std::sort(calls.begin(), calls.end(), [](const ApiRecord* a, const ApiRecord* b) { return a->start_ns < b->start_ns; });
  std::vector<double> all;
  for (const ApiRecord* a : calls) all.push_back(duration(a->start_ns, a->end_ns));
  out.all = duration_stats(all);
  out.first_call_ns = all.front();
  if (queue.empty()) {
    out.unblocked = out.all;
    return out;
  }
  std::vector<double> latency, idle_latency, queued_latency;
  std::vector<bool> busy_whole(calls.size());
  std::vector<std::size_t> flight(calls.size());
  for (std::size_t i = 0; i < calls.size(); ++i) {
    const std::uint64_t pending = queue.pending_end(calls[i]->start_ns);
    const bool idle = pending <= calls[i]->start_ns;
    if (idle) ++out.idle_calls;
    busy_whole[i] = pending >= calls[i]->end_ns;
    flight[i] = queue.in_flight(calls[i]->start_ns);
    out.max_in_flight = std::max(out.max_in_flight, flight[i]);
    auto e = extent.find(calls[i]->correlation_id);
    if (e == extent.end()) continue;
    const double l = e->second.start > calls[i]->end_ns ? static_cast<double>(e->second.start - calls[i]->end_ns) : 0.0;
    latency.push_back(l);
    (idle ? idle_latency : queued_latency).push_back(l);
  }
  // A queue at most half as full as it ever got cannot have been what a call waited for.
  std::vector<double> shallow;
  for (std::size_t i = 0; i < calls.size(); ++i)
    if (2 * flight[i] <= out.max_in_flight) shallow.push_back(all[i]);
  if (shallow.size() >= 5) {
    out.reference_ns = median(shallow);
    out.reference_from = "queue at most half full";
  } else {
    std::vector<double> sorted = all;
    std::sort(sorted.begin(), sorted.end());
    out.reference_ns = quantile_sorted(sorted, 0.10);
    out.reference_from = "10th percentile";
  }
  const double ref = *out.reference_ns;
  const double limit = std::max(2.0 * ref, ref + 5000.0);
  std::vector<double> unblocked, blocked_flight;
  for (std::size_t i = 0; i < calls.size(); ++i) {
    if (busy_whole[i] && all[i] > limit) {
      ++out.blocked;
      out.blocked_wait_ns += all[i] - ref;
      blocked_flight.push_back(static_cast<double>(flight[i]));
    } else {
      unblocked.push_back(all[i]);
    }
  }
  out.unblocked = duration_stats(unblocked);
  if (!blocked_flight.empty()) out.in_flight_when_blocked = median(blocked_flight);
  out.queue_latency = stats_if_any(latency);
  out.idle_latency = stats_if_any(idle_latency);
  out.queued_latency = stats_if_any(queued_latency);
  return out;
}

std::vector<NamedCount> named_counts(std::map<std::string, std::vector<double>>& acc,
                                     const std::map<std::string, std::uint64_t>& bytes, std::size_t keep) {
  std::vector<NamedCount> out;
  for (auto& [name, durs] : acc) {
    NamedCount n;
    n.name = name;
    n.count = durs.size();
    for (double d : durs) n.total_ns += d;
    n.median_ns = median(durs);
    auto b = bytes.find(name);
    if (b != bytes.end()) n.bytes = b->second;
    out.push_back(std::move(n));
  }
  std::sort(out.begin(), out.end(), [](const NamedCount& a, const NamedCount& b) {
    return a.total_ns != b.total_ns ? a.total_ns > b.total_ns : a.name < b.name;
  });
  if (out.size() > keep) out.resize(keep);
  return out;
}

// The dump as recorded, or, when that path is gone (the output folder was moved or unpacked
// elsewhere), the file of the same name next to the records.
std::string find_dump(const std::string& recorded, const std::string& records_file) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (recorded.empty() || fs::exists(recorded, ec)) return recorded;
  const fs::path nearby = fs::path(records_file).parent_path() / fs::path(recorded).filename();
  return fs::exists(nearby, ec) ? nearby.string() : recorded;
}

// Capture regions per host thread (BeginCapture to EndCapture) and what went wrong inside them.
// Also marks the API calls made inside a capture: their launches are recorded, not executed.
std::vector<CaptureTrouble> find_capture_trouble(const ProcessRecords& p, std::set<std::uint32_t>& captured_calls) {
  std::map<std::uint32_t, std::uint32_t> stream_of;  // correlation of a capture call -> stream
  for (const auto& c : p.captures) stream_of[c.correlation_id] = c.stream_id;
  // The end of each capture as the callbacks saw it (the first EndCapture on the same stream after
  // the begin), for when the EndCapture call has no API record of its own.
  // The ends of each stream in correlation order (the first recorded of equal ones first), each
  // begin's found by binary search: a pass over every capture call for each begin took 19 s for
  // 200,000 begins that never ended.
  std::map<std::uint32_t, std::vector<const CaptureCall*>> ends_of_stream;
  for (const auto& e : p.captures)
    if (!e.begin) ends_of_stream[e.stream_id].push_back(&e);
  for (auto& [stream, ends] : ends_of_stream)
    std::stable_sort(ends.begin(), ends.end(), [](const CaptureCall* a, const CaptureCall* b) { return a->correlation_id < b->correlation_id; });
  std::map<std::uint32_t, const CaptureCall*> end_of;  // begin's correlation -> its end
  for (const auto& b : p.captures) {
    if (!b.begin || b.return_value != 0) continue;
    const auto ends = ends_of_stream.find(b.stream_id);
    if (ends == ends_of_stream.end()) continue;
    const auto e = std::upper_bound(ends->second.begin(), ends->second.end(), b.correlation_id,
                                    [](std::uint32_t c, const CaptureCall* x) { return c < x->correlation_id; });
    if (e == ends->second.end()) continue;
    const auto [at, added] = end_of.emplace(b.correlation_id, *e);
    if (!added && (*e)->correlation_id < at->second->correlation_id) at->second = *e;
  }
  std::map<std::uint32_t, std::vector<const ApiRecord*>> by_thread;
  for (const auto& a : p.trace.api) by_thread[a.thread_id].push_back(&a);
  std::vector<CaptureTrouble> out;
  for (auto& [tid, calls] : by_thread) {
    std::sort(calls.begin(), calls.end(), [](const ApiRecord* a, const ApiRecord* b) { return a->start_ns < b->start_ns; });
    bool capturing = false;
    const CaptureCall* end = nullptr;
    std::optional<CaptureTrouble> trouble;
    for (const ApiRecord* a : calls) {
      if (capturing && end != nullptr && a->correlation_id > end->correlation_id) {
        // The capture ended before this call, though its EndCapture has no record.
        capturing = false;
        if (trouble && !trouble->api.empty()) {
          trouble->end_error = cuda_error_name_of(end->return_value);
          out.push_back(*trouble);
        }
        trouble.reset();
      }
      if (starts_with(a->name, "cudaStreamBeginCapture") || starts_with(a->name, "cuStreamBeginCapture")) {
        capturing = a->return_value == 0;
        const auto e = end_of.find(a->correlation_id);
        end = e != end_of.end() ? e->second : nullptr;
        trouble.reset();
        if (!capturing) {
          CaptureTrouble t;
          t.stream_id = stream_of.count(a->correlation_id) ? stream_of[a->correlation_id] : 0;
          t.begin_correlation = a->correlation_id;
          t.api = a->name;
          t.error = cuda_error_name_of(static_cast<int>(a->return_value));
          t.hint = capture_error_hint(static_cast<int>(a->return_value), a->name);
          out.push_back(t);
        } else {
          trouble = CaptureTrouble{};
          trouble->stream_id = stream_of.count(a->correlation_id) ? stream_of[a->correlation_id] : 0;
          trouble->begin_correlation = a->correlation_id;
        }
        continue;
      }
      if (!capturing) continue;
      if (starts_with(a->name, "cudaStreamEndCapture") || starts_with(a->name, "cuStreamEndCapture")) {
        capturing = false;
        if (trouble && (a->return_value != 0 || !trouble->api.empty())) {
          trouble->end_error = a->return_value != 0 ? cuda_error_name_of(static_cast<int>(a->return_value)) : "cudaSuccess";
          if (trouble->api.empty()) {
            trouble->api = a->name;
            trouble->error = trouble->end_error;
            trouble->hint = capture_error_hint(static_cast<int>(a->return_value), a->name);
          }
          out.push_back(*trouble);
        }
        trouble.reset();
        continue;
      }
      captured_calls.insert(a->correlation_id);
      if (trouble && trouble->api.empty() && is_capture_error(a->return_value)) {
        trouble->api = a->name;
        trouble->error = cuda_error_name_of(static_cast<int>(a->return_value));
        trouble->hint = capture_error_hint(static_cast<int>(a->return_value), a->name);
      }
    }
    // A capture still open when the process ended (killed, or crashed inside the region).
    if (capturing && trouble && !trouble->api.empty()) out.push_back(*trouble);
  }
  return out;
}

// Node sampling: on the H200 the first kernel of a launch traced right after GRAPH_TRACE was
// switched off can come back with a wrong end (1.27 ms for a 3 us kernel, its launch's other
// kernels right). A graph kernel record longer than twice its exec's median GRAPH_TRACE span (the
// whole untraced launch) cannot be one node's: it is set aside before any figure is made of the
// records. The limit per exec; none without GRAPH_TRACE spans.
using RecordLimits = std::unordered_map<std::uint32_t, double>;
RecordLimits node_record_limits(const TraceData& d) {
  std::unordered_map<std::uint32_t, std::vector<double>> spans;  // exec -> its GRAPH_TRACE spans
  for (const auto& g : d.graph_traces) spans[g.graph_id].push_back(duration(g.start_ns, g.end_ns));
  RecordLimits limit;
  for (const auto& [exec, v] : spans) limit[exec] = 2.0 * median(v);
  return limit;
}

bool implausible(const KernelRecord& k, const RecordLimits& limits) {
  const auto it = k.graph_id != 0 ? limits.find(k.graph_id) : limits.end();
  return it != limits.end() && it->second > 0 && duration(k.start_ns, k.end_ns) > it->second;
}

}  // namespace

namespace {

// The interposer's own cost (ip_cost, ic): the whole run's estimate, and the steps' — the timed
// calls that started in a step, scaled to every recorded call that started in one.
InterposeCostSummary summarize_interpose_cost(const InterposeCostRecord& c, const std::vector<ApiRecord>& api,
                                                              const std::unordered_map<std::uint32_t, const ApiRecord*>& by_correlation,
                                                              const StepDefinition& step) {
  InterposeCostSummary s;
  s.calls = c.calls;
  s.timed = c.timed.size();
  double all = 0;
  for (const auto& t : c.timed) all += t.second;
  if (s.timed > 0) {
    s.per_call_ns = all / static_cast<double>(s.timed);
    s.own_ns = s.per_call_ns * static_cast<double>(c.calls);
  }
  if (step.steps == 0 || step.last_ns <= step.first_ns) return s;
  for (const ApiRecord& a : api)
    if (step.contains(a.start_ns)) ++s.step_calls;
  double own = 0;
  for (const auto& [co, ns] : c.timed) {
    const auto a = by_correlation.find(co);
    if (a == by_correlation.end() || !step.contains(a->second->start_ns)) continue;
    ++s.step_timed;
    own += ns;
  }
  if (s.step_timed == 0) return s;
  s.step_per_call_ns = own / static_cast<double>(s.step_timed);
  const double steps = static_cast<double>(step.steps);
  s.per_step_ns = *s.step_per_call_ns * static_cast<double>(s.step_calls) / steps;
  s.step_share = *s.per_step_ns / (static_cast<double>(step.last_ns - step.first_ns) / steps);
  return s;
}

}  // namespace

ProcessProfile analyze_process(const ProcessRecords& p, std::size_t top_kernels) {
  ProcessProfile out;
  out.pid = p.pid;
  out.ppid = p.ppid;
  out.command_line = p.command_line;
  out.end_reason = p.end_reason;
  out.errors = p.errors;
  out.warnings = p.warnings;
  out.cupti_notices = p.cupti_notices;
  out.refused_subscribes = p.refused_subscribes;
  out.refused_result = p.refused_result;
  out.refused_caller = p.refused_caller;
  out.cupti_at_end = p.cupti_at_end;
  out.observed_by = p.observed_by.empty() ? "cupti" : p.observed_by;
  out.observe_note = p.observe_note;
  out.observed_at = p.observed_at;
  out.observed_at_why = p.observed_at_why;
  out.trace_level = p.trace_level;
  out.node_sampling = p.node_sampling;
  out.dropped_records = p.trace.dropped_records;
  out.malformed_lines = p.malformed_lines;
  out.lost_buffers = p.lost_buffers;
  const RecordLimits limits = node_record_limits(p.trace);
  std::map<std::uint32_t, std::size_t> set_aside;  // exec -> implausible records (said with its node sampling)
  // Every record of a launch in flight while CONCURRENT_KERNEL was switched (kernels=P%).
  const std::set<std::uint32_t> across = launches_across_kernel_switches(p.trace.kernels, p.kernel_switches);
  std::map<std::uint32_t, std::size_t> switched_aside;  // exec (0: eager) -> those records
  for (const auto& k : p.trace.kernels)
    if (across.count(k.correlation_id)) ++switched_aside[k.graph_id];
    else if (implausible(k, limits)) ++set_aside[k.graph_id];
  for (const auto& sw : p.kernel_switches) out.kernel_switches_off += sw.on ? 0 : 1;
  out.eager_switched_aside = switched_aside.count(0) ? switched_aside[0] : 0;
  TraceData kept;  // the records without the implausible ones, when there were any
  if (!set_aside.empty() || !switched_aside.empty()) {
    kept = p.trace;
    kept.kernels.erase(std::remove_if(kept.kernels.begin(), kept.kernels.end(),
                                      [&](const KernelRecord& k) { return across.count(k.correlation_id) || implausible(k, limits); }),
                       kept.kernels.end());
  }
  const TraceData& d = set_aside.empty() && switched_aside.empty() ? p.trace : kept;

  // GPU extent and exec of every launch, by correlation id.
  std::unordered_map<std::uint32_t, Extent> extent;
  std::unordered_map<std::uint32_t, std::uint32_t> exec_of;  // correlation -> exec
  std::set<std::uint32_t> eager_correlations;
  std::uint64_t last_record_ns = p.begin_ns;  // the last API call, GPU work or graph instantiation recorded
  for (const auto& e : p.execs) last_record_ns = std::max(last_record_ns, e.created_ns);
  const std::vector<GpuOp> ops = gpu_ops(d);
  for (const auto& op : ops) {
    if (op.correlation_id != 0) extent[op.correlation_id].add(op.start_ns, op.end_ns);
    if (op.graph_id != 0 && op.correlation_id != 0) exec_of[op.correlation_id] = op.graph_id;
    last_record_ns = std::max(last_record_ns, op.end_ns);
  }
  std::unordered_map<std::uint32_t, double> graph_trace_span;  // correlation -> GRAPH_TRACE span
  for (const auto& g : d.graph_traces) {
    graph_trace_span[g.correlation_id] = duration(g.start_ns, g.end_ns);
    extent[g.correlation_id].add(g.start_ns, g.end_ns);
    exec_of[g.correlation_id] = g.graph_id;
    last_record_ns = std::max(last_record_ns, g.end_ns);
  }
  for (const auto& l : p.launches) exec_of[l.correlation_id] = l.exec_id;
  for (const auto& k : p.trace.kernels)  // a launch set aside whole still counts for its exec
    if (k.graph_id != 0 && k.correlation_id != 0 && across.count(k.correlation_id)) exec_of.emplace(k.correlation_id, k.graph_id);
  for (const auto& a : d.api) last_record_ns = std::max(last_record_ns, a.end_ns);
  out.records_end_ns = duration(p.begin_ns, last_record_ns);
  out.cuda_wall_ns = duration(p.begin_ns, std::max(p.end_ns, last_record_ns));

  // Work outside graphs and coverage.
  std::map<std::string, std::vector<double>> eager_kernel_acc, copy_acc, sync_acc;
  std::map<std::string, std::uint64_t> copy_bytes;
  for (const auto& k : d.kernels) {
    const double t = duration(k.start_ns, k.end_ns);
    if (k.graph_id != 0) {
      ++out.graph_kernels;
      out.graph_kernel_ns += t;
    } else {
      ++out.eager_kernels;
      out.eager_kernel_ns += t;
      eager_kernel_acc[short_kernel_name(k.name)].push_back(t);
      eager_correlations.insert(k.correlation_id);
    }
  }
  for (const auto& m : d.memcpys)
    if (m.graph_id == 0) {
      const std::string name = "memcpy " + m.copy_kind;
      copy_acc[name].push_back(duration(m.start_ns, m.end_ns));
      copy_bytes[name] += m.bytes;
    }
  for (const auto& m : d.memsets)
    if (m.graph_id == 0) {
      copy_acc["memset"].push_back(duration(m.start_ns, m.end_ns));
      copy_bytes["memset"] += m.bytes;
    }
  out.top_eager_kernels = named_counts(eager_kernel_acc, {}, top_kernels);
  out.copies = named_counts(copy_acc, copy_bytes, 50);

  std::set<std::uint32_t> captured_calls;
  out.capture_trouble = find_capture_trouble(p, captured_calls);

  std::vector<const ApiRecord*> graph_launches, eager_launches, all_launches;
  std::map<std::uint32_t, std::vector<const ApiRecord*>> launches_of_exec;
  std::unordered_map<std::uint32_t, const ApiRecord*> api_by_correlation;
  // With node sampling the kernels of most eager launches are not recorded: launches count by
  // their calls, as at the other levels, and the eager kernels are estimated from the sample.
  const bool sampled = p.trace_level >= 2 && !p.node_sampling.empty() && p.node_sampling != "all";
  const bool node_level = p.trace_level >= 2 && !sampled;
  for (const auto& a : d.api) {
    if (a.correlation_id != 0) api_by_correlation[a.correlation_id] = &a;
    if (is_sync(a)) sync_acc[a.name].push_back(duration(a.start_ns, a.end_ns));
    if (captured_calls.count(a.correlation_id)) continue;
    if (is_graph_launch(a)) {
      graph_launches.push_back(&a);
      all_launches.push_back(&a);
      auto e = exec_of.find(a.correlation_id);
      if (e != exec_of.end()) launches_of_exec[e->second].push_back(&a);
    } else if (is_kernel_launch(a) && (!node_level || eager_correlations.count(a.correlation_id))) {
      eager_launches.push_back(&a);
      all_launches.push_back(&a);
    }
  }
  out.syncs = named_counts(sync_acc, {}, 50);
  out.graph_launches = graph_launches.size();
  out.eager_launches = eager_launches.size();
  if (sampled && out.eager_kernels > 0) {
    std::size_t with_records = 0;
    for (const ApiRecord* a : eager_launches) with_records += eager_correlations.count(a->correlation_id);
    if (with_records > 0 && with_records < eager_launches.size()) {
      const double scale = static_cast<double>(eager_launches.size()) / static_cast<double>(with_records);
      out.eager_kernel_ns *= scale;
      out.eager_kernels = static_cast<std::size_t>(static_cast<double>(out.eager_kernels) * scale + 0.5);
      out.coverage_estimated = true;
    }
  }
  const QueueView queue(all_launches, extent);
  out.graph_calls = analyze_calls(graph_launches, queue, extent);
  out.eager_calls = analyze_calls(eager_launches, queue, extent);

  // Graphs: one entry per exec, in instantiation order.
  std::map<std::uint32_t, std::uint32_t> capture_stream_of_graph;
  for (const auto& c : p.captures)
    if (!c.begin && c.graph_id != 0 && c.return_value == 0) capture_stream_of_graph[c.graph_id] = c.stream_id;
  std::vector<ProfiledExec> execs = p.execs;
  std::stable_sort(execs.begin(), execs.end(), [](const ProfiledExec& a, const ProfiledExec& b) { return a.created_ns < b.created_ns; });
  // Each dump parsed once, however many execs name it (records may name one dump for thousands).
  std::map<std::string, DotGraphInfo> dumps;
  auto dump_of = [&](const std::string& path) -> const DotGraphInfo& {
    const auto [it, added] = dumps.try_emplace(path);
    if (!added) return it->second;
    try {
      // Only a regular file: the path comes from the records (a garbled one may name /dev/zero).
      std::error_code ec;
      if (!path.empty() && std::filesystem::is_regular_file(path, ec)) it->second = dot_graph_info(load_dot(path));
    } catch (const Error&) {
      // A dump that is missing or unreadable: the join goes without node names.
    }
    return it->second;
  };
  // Per-exec record subsets for the node statistics.
  std::map<std::uint32_t, TraceData> per_exec;
  for (const auto& e : execs) {
    TraceData& t = per_exec[e.exec_id];
    t.level = d.level;
    t.exec_mappings.push_back(ExecMapping{e.exec_id, e.graph_id});
  }
  auto subset = [&](std::uint32_t exec) -> TraceData* {
    auto it = per_exec.find(exec);
    return it == per_exec.end() ? nullptr : &it->second;
  };
  for (const auto& k : d.kernels)
    if (TraceData* t = k.graph_id ? subset(k.graph_id) : nullptr) t->kernels.push_back(k);
  for (const auto& m : d.memcpys)
    if (TraceData* t = m.graph_id ? subset(m.graph_id) : nullptr) t->memcpys.push_back(m);
  for (const auto& m : d.memsets)
    if (TraceData* t = m.graph_id ? subset(m.graph_id) : nullptr) t->memsets.push_back(m);
  for (const auto& g : d.graph_traces)
    if (TraceData* t = subset(g.graph_id)) t->graph_traces.push_back(g);
  for (const auto& m : d.node_mappings)
    if (TraceData* t = subset(static_cast<std::uint32_t>(m.exec_node_id >> 32))) t->node_mappings.push_back(m);

  // Launches timed by CUDA events (the light default, gl lines): their GPU time where no GPU
  // record gives one.
  const std::unordered_map<std::uint32_t, std::uint64_t> event_time(p.launch_gpu_ns.begin(), p.launch_gpu_ns.end());
  for (const auto& e : execs) {
    GraphProfile g;
    g.exec = e;
    g.exec.dot = find_dump(e.dot, p.source);
    g.exec.dot_verbose = find_dump(e.dot_verbose, p.source);
    auto cap = capture_stream_of_graph.find(e.graph_id);
    if (cap != capture_stream_of_graph.end()) {
      g.made_by = "stream capture";
      g.capture_stream = cap->second;
    }
    if (auto a = api_by_correlation.find(e.correlation_id); e.correlation_id != 0 && a != api_by_correlation.end())
      g.instantiate_ns = duration(a->second->start_ns, a->second->end_ns);
    for (const auto& u : p.uploads)
      if (u.exec_id == e.exec_id)
        if (auto a = api_by_correlation.find(u.correlation_id); a != api_by_correlation.end())
          g.upload_ns = g.upload_ns.value_or(0) + duration(a->second->start_ns, a->second->end_ns);
    std::vector<const ApiRecord*>& calls = launches_of_exec[e.exec_id];
    std::sort(calls.begin(), calls.end(), [](const ApiRecord* a, const ApiRecord* b) { return a->start_ns < b->start_ns; });
    g.launches = calls.size();
    if (auto c = p.exec_changes.find(e.exec_id); c != p.exec_changes.end()) {
      g.set_params_calls = c->second.first;
      g.exec_update_calls = c->second.second;
    }
    g.calls = analyze_calls(calls, queue, extent);
    g.created_at_ns = duration(p.begin_ns, e.created_ns);
    if (!calls.empty()) g.first_launch_at_ns = duration(p.begin_ns, calls.front()->start_ns);
    TraceData& t = per_exec[e.exec_id];
    // Launches traced node by node (node sampling: a sample of them has kernel records); the node
    // statistics take those launches only.
    std::set<std::uint32_t> traced;
    for (const auto& k : t.kernels) traced.insert(k.correlation_id);
    for (const auto& m : t.memcpys) traced.insert(m.correlation_id);
    for (const auto& m : t.memsets) traced.insert(m.correlation_id);
    if (auto n = set_aside.find(e.exec_id); n != set_aside.end()) g.sampling.set_aside = n->second;
    if (auto n = switched_aside.find(e.exec_id); n != switched_aside.end()) g.sampling.switched_aside = n->second;
    for (std::size_t i = 0; i < calls.size(); ++i) {
      const ApiRecord* a = calls[i];
      g.launch_call_ns.push_back(duration(a->start_ns, a->end_ns));
      auto x = extent.find(a->correlation_id);
      if (x != extent.end()) {
        g.gpu_span_ns.push_back(duration(x->second.start, x->second.end));
      } else if (auto ev = event_time.find(a->correlation_id); ev != event_time.end()) {
        g.gpu_span_ns.push_back(static_cast<double>(ev->second));
        ++g.gpu_span_by_events;
      }
      const bool node_traced = traced.count(a->correlation_id) > 0;
      // Stretch: a traced launch's span is its node records' (it has no GRAPH_TRACE span), an
      // untraced one's its GRAPH_TRACE span.
      if (auto gt = graph_trace_span.find(a->correlation_id); !node_traced && gt != graph_trace_span.end())
        g.sampling.span_untraced_ns.push_back(gt->second);
      else if (node_traced && x != extent.end() && x->second.end > 0)
        g.sampling.span_traced_ns.push_back(duration(x->second.start, x->second.end));
      if (node_traced) g.sampling.traced_ordinals.push_back(i);
      if (!traced.empty() && !node_traced) continue;
      t.api.push_back(*a);
      t.windows.push_back(IterationWindow{a->start_ns, a->end_ns});
    }
    for (const auto& k : t.kernels) {
      ++g.kernels;
      g.kernel_time_ns += duration(k.start_ns, k.end_ns);
    }
    const DotGraphInfo& dot = dump_of(g.exec.dot);
    const NodeJoin join = NodeJoin::build(t, dot.found ? &dot : nullptr);
    g.trace = summarize_trace(t, join, dot.found ? &dot : nullptr);
    for (const NodeStats& n : g.trace.nodes) g.kernel_sequence.push_back(n.name);
    // Node sampling: the kernels of the launches not traced node by node are estimated from those
    // that were (the same graph runs the same kernels each launch) for the coverage figures.
    const std::size_t n_traced = g.sampling.traced_ordinals.size();
    if (n_traced > 0 && n_traced < g.launches) {
      const double scale = static_cast<double>(g.launches) / static_cast<double>(n_traced);
      g.sampling.kernel_time_estimate_ns = g.kernel_time_ns * scale;
      out.graph_kernel_ns += g.kernel_time_ns * (scale - 1.0);
      out.graph_kernels += static_cast<std::size_t>(static_cast<double>(g.kernels) * (scale - 1.0) + 0.5);
      out.coverage_estimated = true;
    }
    describe_graph_for_ranks(g, t, dot.found ? &dot : nullptr, p.captures);
    out.graphs.push_back(std::move(g));
  }
  {
    profile_detail::SteadyInputs s;
    s.begin_ns = p.begin_ns;
    s.launches_of_exec = &launches_of_exec;
    s.graph_launches = &graph_launches;
    s.eager_launches = &eager_launches;
    s.exec_of = &exec_of;
    s.execs = &execs;
    s.kernels = node_level ? &d.kernels : nullptr;
    s.api_by_correlation = &api_by_correlation;
    out.steady = profile_detail::steady_coverage(s);
  }
  analyze_sites(p, SiteInputs{captured_calls, launches_of_exec, api_by_correlation}, out);
  if (p.interpose_cost) out.interpose_cost = summarize_interpose_cost(*p.interpose_cost, p.trace.api, api_by_correlation, out.sites.step);
  out.timeline = profile_detail::make_timeline(p.begin_ns, out.records_end_ns, d, graph_launches, eager_launches, execs, 120);
  describe_process_for_ranks(out, p);
  return out;
}

}  // namespace gp
