// What graphprof makes of one profiled process (profile.hpp, docs/profile.md): graphs and their
// launches, launch-call cost kept apart from queue-full blocking (launch_calls.cpp), work outside
// graphs, coverage, capture trouble (capture_trouble.cpp). Per-graph node statistics reuse the trace
// pass's join and statistics (summarize_trace), one launch per "iteration".
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
#include "graphprof/core/stats.hpp"
#include "api_kinds.hpp"
#include "capture_trouble.hpp"
#include "launch_calls.hpp"
#include "profile_timeline.hpp"
#include "site_analysis.hpp"
#include "steady_coverage.hpp"
#include "rank_inputs.hpp"

namespace gp {

namespace {

using api_kinds::is_graph_launch;
using api_kinds::is_kernel_launch;
using api_kinds::is_sync;
using profile_detail::analyze_calls;
using profile_detail::Extent;
using profile_detail::find_capture_trouble;
using profile_detail::QueueView;


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

// Node sampling: on the H200 the first kernel of a launch traced right after GRAPH_TRACE was
// switched off can come back with a wrong end (1.27 ms for a 3 us kernel, its launch's other
// kernels right). A graph kernel record longer than twice its exec's median GRAPH_TRACE span (the
// whole untraced launch) cannot be one node's: it is set aside before any figure is made of the
// records. The limit per exec; none without GRAPH_TRACE spans.
using RecordLimits = std::unordered_map<std::uint32_t, double>;
RecordLimits node_record_limits(const TraceData& d) {
  std::unordered_map<std::uint32_t, std::vector<double>> spans;  // exec -> its GRAPH_TRACE spans
  for (const auto& g : d.graph_traces) spans[g.graph_id].push_back(duration_ns(g.start_ns, g.end_ns));
  RecordLimits limit;
  for (const auto& [exec, v] : spans) limit[exec] = 2.0 * median(v);
  return limit;
}

bool implausible(const KernelRecord& k, const RecordLimits& limits) {
  const auto it = k.graph_id != 0 ? limits.find(k.graph_id) : limits.end();
  return it != limits.end() && it->second > 0 && duration_ns(k.start_ns, k.end_ns) > it->second;
}


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


// analyze_process, step by step: each step fills part of `out_` and the state the later steps read.
class ProcessAnalysis {
 public:
  ProcessAnalysis(const ProcessRecords& p, std::size_t top_kernels) : p_(p), top_kernels_(top_kernels) {}

  ProcessProfile run() {
    copy_process_facts();
    set_aside_records();
    index_gpu_work();
    work_outside_graphs();
    out_.capture_trouble = find_capture_trouble(p_, captured_calls_);
    sort_launch_calls();
    const QueueView queue(all_launches_, extent_);
    out_.graph_calls = analyze_calls(graph_launches_, queue, extent_);
    out_.eager_calls = analyze_calls(eager_launches_, queue, extent_);
    profile_graphs(queue);
    finish();
    return std::move(out_);
  }

 private:
  // What the records say of the process itself.
  void copy_process_facts() {
    out_.pid = p_.pid;
    out_.ppid = p_.ppid;
    out_.command_line = p_.command_line;
    out_.end_reason = p_.end_reason;
    out_.errors = p_.errors;
    out_.warnings = p_.warnings;
    out_.cupti_notices = p_.cupti_notices;
    out_.refused_subscribes = p_.refused_subscribes;
    out_.refused_result = p_.refused_result;
    out_.refused_caller = p_.refused_caller;
    out_.cupti_at_end = p_.cupti_at_end;
    out_.observed_by = p_.observed_by;
    out_.observe_note = p_.observe_note;
    out_.observed_at = p_.observed_at;
    out_.observed_at_why = p_.observed_at_why;
    out_.trace_level = p_.trace_level;
    out_.node_sampling = p_.node_sampling;
    out_.dropped_records = p_.trace.dropped_records;
    out_.malformed_lines = p_.malformed_lines;
    out_.lost_buffers = p_.lost_buffers;
  }

  // The kernel records no figure is made of: implausible ones (node_record_limits) and those of
  // launches in flight while CONCURRENT_KERNEL was switched (kernels=P%).
  void set_aside_records() {
    const RecordLimits limits = node_record_limits(p_.trace);
    across_ = launches_across_kernel_switches(p_.trace.kernels, p_.kernel_switches);
    for (const auto& k : p_.trace.kernels)
      if (across_.count(k.correlation_id)) ++switched_aside_[k.graph_id];
      else if (implausible(k, limits)) ++set_aside_[k.graph_id];
    for (const auto& sw : p_.kernel_switches) out_.kernel_switches_off += sw.on ? 0 : 1;
    out_.eager_switched_aside = switched_aside_.count(0) ? switched_aside_[0] : 0;
    if (!set_aside_.empty() || !switched_aside_.empty()) {
      kept_ = p_.trace;
      kept_.kernels.erase(std::remove_if(kept_.kernels.begin(), kept_.kernels.end(),
                                         [&](const KernelRecord& k) { return across_.count(k.correlation_id) || implausible(k, limits); }),
                          kept_.kernels.end());
      records_ = &kept_;
    }
  }

  // GPU extent and exec of every launch, by correlation id; when the records end.
  void index_gpu_work() {
    const TraceData& d = *records_;
    std::uint64_t last_record_ns = p_.begin_ns;  // the last API call, GPU work or graph instantiation recorded
    for (const auto& e : p_.execs) last_record_ns = std::max(last_record_ns, e.created_ns);
    const std::vector<GpuOp> ops = gpu_ops(d);
    for (const auto& op : ops) {
      if (op.correlation_id != 0) extent_[op.correlation_id].add(op.start_ns, op.end_ns);
      if (op.graph_id != 0 && op.correlation_id != 0) exec_of_[op.correlation_id] = op.graph_id;
      last_record_ns = std::max(last_record_ns, op.end_ns);
    }
    for (const auto& g : d.graph_traces) {
      graph_trace_span_[g.correlation_id] = duration_ns(g.start_ns, g.end_ns);
      extent_[g.correlation_id].add(g.start_ns, g.end_ns);
      exec_of_[g.correlation_id] = g.graph_id;
      last_record_ns = std::max(last_record_ns, g.end_ns);
    }
    for (const auto& l : p_.launches) exec_of_[l.correlation_id] = l.exec_id;
    for (const auto& k : p_.trace.kernels)  // a launch set aside whole still counts for its exec
      if (k.graph_id != 0 && k.correlation_id != 0 && across_.count(k.correlation_id)) exec_of_.emplace(k.correlation_id, k.graph_id);
    for (const auto& a : d.api) last_record_ns = std::max(last_record_ns, a.end_ns);
    out_.records_end_ns = duration_ns(p_.begin_ns, last_record_ns);
    out_.cuda_wall_ns = duration_ns(p_.begin_ns, std::max(p_.end_ns, last_record_ns));
  }

  // Work outside graphs and coverage.
  void work_outside_graphs() {
    const TraceData& d = *records_;
    std::map<std::string, std::vector<double>> eager_kernel_acc, copy_acc;
    std::map<std::string, std::uint64_t> copy_bytes;
    for (const auto& k : d.kernels) {
      const double t = duration_ns(k.start_ns, k.end_ns);
      if (k.graph_id != 0) {
        ++out_.graph_kernels;
        out_.graph_kernel_ns += t;
      } else {
        ++out_.eager_kernels;
        out_.eager_kernel_ns += t;
        eager_kernel_acc[short_kernel_name(k.name)].push_back(t);
        eager_correlations_.insert(k.correlation_id);
      }
    }
    for (const auto& m : d.memcpys)
      if (m.graph_id == 0) {
        const std::string name = "memcpy " + m.copy_kind;
        copy_acc[name].push_back(duration_ns(m.start_ns, m.end_ns));
        copy_bytes[name] += m.bytes;
      }
    for (const auto& m : d.memsets)
      if (m.graph_id == 0) {
        copy_acc["memset"].push_back(duration_ns(m.start_ns, m.end_ns));
        copy_bytes["memset"] += m.bytes;
      }
    out_.top_eager_kernels = named_counts(eager_kernel_acc, {}, top_kernels_);
    out_.copies = named_counts(copy_acc, copy_bytes, 50);
  }

  // The launch calls made outside captures, graph and eager, and the synchronising calls.
  void sort_launch_calls() {
    std::map<std::string, std::vector<double>> sync_acc;
    // With node sampling the kernels of most eager launches are not recorded: launches count by
    // their calls, as at the other levels, and the eager kernels are estimated from the sample.
    const bool sampled = p_.trace_level == TraceLevel::kNode && !p_.node_sampling.empty() && p_.node_sampling != "all";
    node_level_ = p_.trace_level == TraceLevel::kNode && !sampled;
    for (const auto& a : records_->api) {
      if (a.correlation_id != 0) api_by_correlation_[a.correlation_id] = &a;
      if (is_sync(a)) sync_acc[a.name].push_back(duration_ns(a.start_ns, a.end_ns));
      if (captured_calls_.count(a.correlation_id)) continue;
      if (is_graph_launch(a)) {
        graph_launches_.push_back(&a);
        all_launches_.push_back(&a);
        auto e = exec_of_.find(a.correlation_id);
        if (e != exec_of_.end()) launches_of_exec_[e->second].push_back(&a);
      } else if (is_kernel_launch(a) && (!node_level_ || eager_correlations_.count(a.correlation_id))) {
        eager_launches_.push_back(&a);
        all_launches_.push_back(&a);
      }
    }
    out_.syncs = named_counts(sync_acc, {}, 50);
    out_.graph_launches = graph_launches_.size();
    out_.eager_launches = eager_launches_.size();
    if (sampled && out_.eager_kernels > 0) {
      std::size_t with_records = 0;
      for (const ApiRecord* a : eager_launches_) with_records += eager_correlations_.count(a->correlation_id);
      if (with_records > 0 && with_records < eager_launches_.size()) {
        const double scale = static_cast<double>(eager_launches_.size()) / static_cast<double>(with_records);
        out_.eager_kernel_ns *= scale;
        out_.eager_kernels = static_cast<std::size_t>(static_cast<double>(out_.eager_kernels) * scale + 0.5);
        out_.coverage_estimated = true;
      }
    }
  }

  // Graphs: one entry per exec, in instantiation order.
  void profile_graphs(const QueueView& queue) {
    for (const auto& c : p_.captures)
      if (!c.begin && c.graph_id != 0 && c.return_value == 0) capture_stream_of_graph_[c.graph_id] = c.stream_id;
    execs_ = p_.execs;
    std::stable_sort(execs_.begin(), execs_.end(),
                     [](const ProfiledExec& a, const ProfiledExec& b) { return a.created_ns < b.created_ns; });
    split_records_by_exec();
    // Launches timed by CUDA events (the light default, gl lines): their GPU time where no GPU
    // record gives one.
    event_time_.insert(p_.launch_gpu_ns.begin(), p_.launch_gpu_ns.end());
    for (const auto& e : execs_) out_.graphs.push_back(profile_graph(e, queue));
  }

  // Per-exec record subsets for the node statistics.
  void split_records_by_exec() {
    const TraceData& d = *records_;
    for (const auto& e : execs_) {
      TraceData& t = per_exec_[e.exec_id];
      t.level = d.level;
      t.exec_mappings.push_back(ExecMapping{e.exec_id, e.graph_id});
    }
    auto subset = [&](std::uint32_t exec) -> TraceData* {
      auto it = per_exec_.find(exec);
      return it == per_exec_.end() ? nullptr : &it->second;
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
  }

  // One exec: how it was made, its launch calls, then its launches' GPU work and node statistics.
  GraphProfile profile_graph(const ProfiledExec& e, const QueueView& queue) {
    GraphProfile g;
    g.exec = e;
    g.exec.dot = find_dump(e.dot, p_.source);
    g.exec.dot_verbose = find_dump(e.dot_verbose, p_.source);
    auto cap = capture_stream_of_graph_.find(e.graph_id);
    if (cap != capture_stream_of_graph_.end()) {
      g.made_by = "stream capture";
      g.capture_stream = cap->second;
    }
    if (auto a = api_by_correlation_.find(e.correlation_id); e.correlation_id != 0 && a != api_by_correlation_.end())
      g.instantiate_ns = duration_ns(a->second->start_ns, a->second->end_ns);
    for (const auto& u : p_.uploads)
      if (u.exec_id == e.exec_id)
        if (auto a = api_by_correlation_.find(u.correlation_id); a != api_by_correlation_.end())
          g.upload_ns = g.upload_ns.value_or(0) + duration_ns(a->second->start_ns, a->second->end_ns);
    std::vector<const ApiRecord*>& calls = launches_of_exec_[e.exec_id];
    std::sort(calls.begin(), calls.end(), [](const ApiRecord* a, const ApiRecord* b) { return a->start_ns < b->start_ns; });
    g.launches = calls.size();
    if (auto c = p_.exec_changes.find(e.exec_id); c != p_.exec_changes.end()) {
      g.set_params_calls = c->second.first;
      g.exec_update_calls = c->second.second;
    }
    g.calls = analyze_calls(calls, queue, extent_);
    g.created_at_ns = duration_ns(p_.begin_ns, e.created_ns);
    if (!calls.empty()) g.first_launch_at_ns = duration_ns(p_.begin_ns, calls.front()->start_ns);
    TraceData& t = per_exec_[e.exec_id];
    time_launches(g, calls, t);
    node_statistics(g, t);
    return g;
  }

  // Each launch's call time, GPU span and node sampling figures; the launches the node statistics
  // take go into `t` as its iterations.
  void time_launches(GraphProfile& g, const std::vector<const ApiRecord*>& calls, TraceData& t) {
    // Launches traced node by node (node sampling: a sample of them has kernel records); the node
    // statistics take those launches only.
    std::set<std::uint32_t> traced;
    for (const auto& k : t.kernels) traced.insert(k.correlation_id);
    for (const auto& m : t.memcpys) traced.insert(m.correlation_id);
    for (const auto& m : t.memsets) traced.insert(m.correlation_id);
    if (auto n = set_aside_.find(g.exec.exec_id); n != set_aside_.end()) g.sampling.set_aside = n->second;
    if (auto n = switched_aside_.find(g.exec.exec_id); n != switched_aside_.end()) g.sampling.switched_aside = n->second;
    for (std::size_t i = 0; i < calls.size(); ++i) {
      const ApiRecord* a = calls[i];
      g.launch_call_ns.push_back(duration_ns(a->start_ns, a->end_ns));
      auto x = extent_.find(a->correlation_id);
      if (x != extent_.end()) {
        g.gpu_span_ns.push_back(duration_ns(x->second.start, x->second.end));
      } else if (auto ev = event_time_.find(a->correlation_id); ev != event_time_.end()) {
        g.gpu_span_ns.push_back(static_cast<double>(ev->second));
        ++g.gpu_span_by_events;
      }
      const bool node_traced = traced.count(a->correlation_id) > 0;
      // Stretch: a traced launch's span is its node records' (it has no GRAPH_TRACE span), an
      // untraced one's its GRAPH_TRACE span.
      if (auto gt = graph_trace_span_.find(a->correlation_id); !node_traced && gt != graph_trace_span_.end())
        g.sampling.span_untraced_ns.push_back(gt->second);
      else if (node_traced && x != extent_.end() && x->second.end > 0)
        g.sampling.span_traced_ns.push_back(duration_ns(x->second.start, x->second.end));
      if (node_traced) g.sampling.traced_ordinals.push_back(i);
      if (!traced.empty() && !node_traced) continue;
      t.api.push_back(*a);
      t.windows.push_back(IterationWindow{a->start_ns, a->end_ns});
    }
  }

  // The exec's kernels, its node statistics joined to its dump, and what the ranks compare.
  void node_statistics(GraphProfile& g, const TraceData& t) {
    for (const auto& k : t.kernels) {
      ++g.kernels;
      g.kernel_time_ns += duration_ns(k.start_ns, k.end_ns);
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
      out_.graph_kernel_ns += g.kernel_time_ns * (scale - 1.0);
      out_.graph_kernels += static_cast<std::size_t>(static_cast<double>(g.kernels) * (scale - 1.0) + 0.5);
      out_.coverage_estimated = true;
    }
    describe_graph_for_ranks(g, t, dot.found ? &dot : nullptr, p_.captures);
  }

  // Each dump parsed once, however many execs name it (records may name one dump for thousands).
  const DotGraphInfo& dump_of(const std::string& path) {
    const auto [it, added] = dumps_.try_emplace(path);
    if (!added) return it->second;
    try {
      // Only a regular file: the path comes from the records (a garbled one may name /dev/zero).
      std::error_code ec;
      if (!path.empty() && std::filesystem::is_regular_file(path, ec)) it->second = dot_graph_info(load_dot(path));
    } catch (const Error&) {
      // A dump that is missing or unreadable: the join goes without node names.
    }
    return it->second;
  }

  // The figures made of the whole process once its graphs are known.
  void finish() {
    profile_detail::SteadyInputs s;
    s.begin_ns = p_.begin_ns;
    s.launches_of_exec = &launches_of_exec_;
    s.graph_launches = &graph_launches_;
    s.eager_launches = &eager_launches_;
    s.exec_of = &exec_of_;
    s.execs = &execs_;
    s.kernels = node_level_ ? &records_->kernels : nullptr;
    s.api_by_correlation = &api_by_correlation_;
    out_.steady = profile_detail::steady_coverage(s);
    analyze_sites(p_, SiteInputs{captured_calls_, launches_of_exec_, api_by_correlation_}, out_);
    if (p_.interpose_cost)
      out_.interpose_cost = summarize_interpose_cost(*p_.interpose_cost, p_.trace.api, api_by_correlation_, out_.sites.step);
    out_.timeline =
        profile_detail::make_timeline(p_.begin_ns, out_.records_end_ns, *records_, graph_launches_, eager_launches_, execs_, 120);
    describe_process_for_ranks(out_, p_);
  }

  const ProcessRecords& p_;
  const std::size_t top_kernels_;
  ProcessProfile out_;
  // Records set aside (set_aside_records), by exec; 0: eager.
  std::set<std::uint32_t> across_;  // launches in flight while CONCURRENT_KERNEL was switched
  std::map<std::uint32_t, std::size_t> set_aside_;       // exec -> implausible records (said with its node sampling)
  std::map<std::uint32_t, std::size_t> switched_aside_;  // exec (0: eager) -> records of launches across a switch
  TraceData kept_;                          // the records without those set aside, when there were any
  const TraceData* records_ = &p_.trace;    // the records every figure is made of: p_.trace or kept_
  // By correlation id (index_gpu_work, sort_launch_calls).
  std::unordered_map<std::uint32_t, Extent> extent_;
  std::unordered_map<std::uint32_t, std::uint32_t> exec_of_;  // correlation -> exec
  std::unordered_map<std::uint32_t, double> graph_trace_span_;  // correlation -> GRAPH_TRACE span
  std::unordered_map<std::uint32_t, const ApiRecord*> api_by_correlation_;
  std::set<std::uint32_t> eager_correlations_;  // of eager kernel records
  std::set<std::uint32_t> captured_calls_;      // calls made inside a capture
  // Launch calls outside captures (sort_launch_calls); launches_of_exec_'s sorted by start once
  // profile_graph has taken them.
  bool node_level_ = false;  // every launch traced node by node
  std::vector<const ApiRecord*> graph_launches_, eager_launches_, all_launches_;
  std::map<std::uint32_t, std::vector<const ApiRecord*>> launches_of_exec_;
  // The graphs (profile_graphs).
  std::map<std::uint32_t, std::uint32_t> capture_stream_of_graph_;
  std::vector<ProfiledExec> execs_;  // in instantiation order
  std::map<std::uint32_t, TraceData> per_exec_;
  std::unordered_map<std::uint32_t, std::uint64_t> event_time_;
  std::map<std::string, DotGraphInfo> dumps_;
};

}  // namespace

ProcessProfile analyze_process(const ProcessRecords& p, std::size_t top_kernels) { return ProcessAnalysis(p, top_kernels).run(); }

}  // namespace gp
