// The node join and the statistics of a trace pass (see trace_analysis.hpp, docs/tracing.md).
#include "graphprof/trace/trace_analysis.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <numeric>
#include <set>
#include <tuple>
#include <utility>

#include "graphprof/core/kernel_names.hpp"
#include "graphprof/core/metric_catalog.hpp"
#include "graphprof/core/stats.hpp"

namespace gp {

using nlohmann::json;

// ---------------------------------------------------------------------------------------------
// Join

std::string NodeRef::dot_name() const {
  return "graph_" + std::to_string(graph_id) + "_node_" + std::to_string(index);
}

NodeJoin NodeJoin::build(const TraceData& data, const DotGraphInfo* dot) {
  NodeJoin j;
  auto graph_of = [](std::uint64_t node_id) { return static_cast<std::uint32_t>(node_id >> 32); };
  auto index_of = [](std::uint64_t node_id) { return static_cast<std::uint32_t>(node_id & 0xffffffffu); };

  // The exec that was replayed most: its original graph is the traced graph.
  std::map<std::uint32_t, std::size_t> launches;
  for (const auto& k : data.kernels) if (k.graph_id) ++launches[k.graph_id];
  for (const auto& m : data.memcpys) if (m.graph_id) ++launches[m.graph_id];
  for (const auto& m : data.memsets) if (m.graph_id) ++launches[m.graph_id];
  for (const auto& g : data.graph_traces) if (g.graph_id) ++launches[g.graph_id];
  std::uint32_t exec = 0;
  std::size_t most = 0;
  for (const auto& [id, n] : launches)
    if (n > most) std::tie(exec, most) = std::make_tuple(id, n);
  std::uint32_t traced = 0;
  for (const auto& e : data.exec_mappings)
    if (e.exec_id == exec) traced = e.original_graph_id;
  if (traced == 0)
    for (const auto& m : data.node_mappings)
      if (graph_of(m.exec_node_id) == exec) traced = graph_of(m.original_node_id);
  j.traced_graph_id_ = traced;
  j.dot_graph_id_ = traced;

  // Graphs built in this session (outside instantiation). Exec-internal nodes may be announced
  // as created too; drop those whose graph is an exec.
  std::set<std::uint32_t> exec_ids;
  for (const auto& e : data.exec_mappings) exec_ids.insert(e.exec_id);
  for (const auto& m : data.node_mappings) exec_ids.insert(graph_of(m.exec_node_id));
  std::set<std::uint32_t> built;
  std::size_t traced_nodes = 0;
  for (const auto& n : data.nodes_created) {
    const std::uint32_t g = graph_of(n.node_id);
    if (exec_ids.count(g)) continue;
    built.insert(g);
    if (g == traced) ++traced_nodes;
  }

  std::int64_t offset = 0;
  if (traced == 0) {
    j.dot_status_ = "no graph";
  } else if (dot == nullptr || !dot->found) {
    j.dot_status_ = "no dump";
  } else if (dot->graph_id == traced) {
    j.dot_status_ = "same graph";
  } else if (traced_nodes != 0 && traced_nodes != dot->nodes.size()) {
    j.dot_status_ = "mismatch: the dump's graph_" + std::to_string(dot->graph_id) + " has " +
                    std::to_string(dot->nodes.size()) + " nodes, the traced graph " + std::to_string(traced_nodes);
  } else {
    j.dot_status_ = "matched by node position";
    offset = static_cast<std::int64_t>(dot->graph_id) - static_cast<std::int64_t>(traced);
    j.dot_graph_id_ = dot->graph_id;
  }

  for (const auto& m : data.node_mappings) {
    std::uint32_t g = graph_of(m.original_node_id);
    if (offset != 0 && (g == traced || built.count(g))) g = static_cast<std::uint32_t>(static_cast<std::int64_t>(g) + offset);
    j.by_exec_node_[m.exec_node_id] = NodeRef{g, index_of(m.original_node_id)};
  }
  add_flattened_body_nodes(data, j.by_exec_node_);
  return j;
}

void add_flattened_body_nodes(const TraceData& data, std::unordered_map<std::uint64_t, NodeRef>& by_exec_node) {
  // Seen on the H200 (CUDA 13.0, tests/data/trace/while_*): instantiating a graph with a WHILE
  // node clones the body into a graph of its own (exec 33 -> body 34: clones 34:0, 34:1 of the
  // body's nodes), but the body's kernel records name the node inside the parent exec, numbered
  // after the parent's own nodes (33:2, 33:3). So node k of a nested graph is the parent's node
  // (parent's node count + nodes of the nested graphs before it + k). Nested graphs: clone
  // graphs that are no exec of their own, between the exec's id and the next exec's, taken in
  // id order (one body was observed; the order of several is assumed and the DOT name check in
  // summarize_trace counts any that land on a node of another kernel).
  auto graph_of = [](std::uint64_t id) { return static_cast<std::uint32_t>(id >> 32); };
  auto index_of = [](std::uint64_t id) { return static_cast<std::uint32_t>(id & 0xffffffffu); };
  std::set<std::uint32_t> execs;
  for (const auto& e : data.exec_mappings) execs.insert(e.exec_id);
  std::map<std::uint32_t, std::uint32_t> clone_nodes;  // clone graph -> node count (highest index + 1)
  for (const auto& m : data.node_mappings) {
    auto& n = clone_nodes[graph_of(m.exec_node_id)];
    n = std::max(n, index_of(m.exec_node_id) + 1);
  }
  for (auto e = execs.begin(); e != execs.end(); ++e) {
    const auto own = clone_nodes.find(*e);
    if (own == clone_nodes.end()) continue;
    const auto next = std::next(e);
    std::uint64_t base = own->second;
    for (auto g = std::next(own); g != clone_nodes.end() && (next == execs.end() || g->first < *next); ++g) {
      for (std::uint32_t k = 0; k < g->second; ++k) {
        const auto ref = by_exec_node.find((static_cast<std::uint64_t>(g->first) << 32) | k);
        if (ref == by_exec_node.end() || base + k > 0xffffffffu) continue;
        by_exec_node.emplace((static_cast<std::uint64_t>(*e) << 32) | (base + k), ref->second);
      }
      base += g->second;
    }
  }
}

std::optional<NodeRef> NodeJoin::find(std::uint64_t exec_node_id) const {
  auto it = by_exec_node_.find(exec_node_id);
  if (it == by_exec_node_.end()) return std::nullopt;
  return it->second;
}

// ---------------------------------------------------------------------------------------------
// Uniform view and iteration assignment

namespace {
// A plain GPU operation from any activity record; the fields are the same for all three kinds.
template <typename Record>
GpuOp gpu_op(const Record& r, const char* kind, std::string name) {
  GpuOp o;
  o.kind = kind;
  o.name = std::move(name);
  o.start_ns = r.start_ns;
  o.end_ns = r.end_ns;
  o.device_id = r.device_id;
  o.stream_id = r.stream_id;
  o.correlation_id = r.correlation_id;
  o.graph_id = r.graph_id;
  o.graph_node_id = r.graph_node_id;
  return o;
}
}  // namespace

std::vector<GpuOp> gpu_ops(const TraceData& d) {
  std::vector<GpuOp> ops;
  ops.reserve(d.kernels.size() + d.memcpys.size() + d.memsets.size());
  for (const auto& k : d.kernels) {
    ops.push_back(gpu_op(k, "kernel", k.name));
    ops.back().kernel = &k;
  }
  for (const auto& m : d.memcpys) ops.push_back(gpu_op(m, "memcpy", "memcpy " + m.copy_kind));
  for (const auto& m : d.memsets) ops.push_back(gpu_op(m, "memset", "memset"));
  std::stable_sort(ops.begin(), ops.end(), [](const GpuOp& a, const GpuOp& b) { return a.start_ns < b.start_ns; });
  return ops;
}

std::size_t claim_loop_body_records(std::vector<GpuOp>& ops) {
  // Latest correlation id seen per (device, exec), walking in start order.
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint32_t> latest;
  std::size_t claimed = 0;
  for (GpuOp& op : ops) {
    if (op.graph_id == 0) continue;
    const auto key = std::make_pair(op.device_id, op.graph_id);
    if (op.correlation_id != 0) {
      latest[key] = op.correlation_id;
      continue;
    }
    const auto it = latest.find(key);
    if (it == latest.end()) continue;
    op.correlation_id = it->second;
    op.correlation_inherited = true;
    ++claimed;
  }
  return claimed;
}

namespace {

// Index of the window that contains [start, end], or npos.
std::size_t window_of(const std::vector<IterationWindow>& w, std::uint64_t start, std::uint64_t end) {
  auto it = std::upper_bound(w.begin(), w.end(), start,
                             [](std::uint64_t t, const IterationWindow& x) { return t < x.begin_ns; });
  if (it == w.begin()) return std::string::npos;
  --it;
  if (start < it->begin_ns || end > it->end_ns) return std::string::npos;
  return static_cast<std::size_t>(it - w.begin());
}

std::vector<IterationWindow> sorted_windows(const TraceData& d) {
  std::vector<IterationWindow> w = d.windows;
  std::sort(w.begin(), w.end(), [](const auto& a, const auto& b) { return a.begin_ns < b.begin_ns; });
  return w;
}

}  // namespace

std::unordered_map<std::uint32_t, std::size_t> iteration_of_correlation(const TraceData& d) {
  const std::vector<IterationWindow> w = sorted_windows(d);
  std::unordered_map<std::uint32_t, std::size_t> out;
  for (const auto& a : d.api) {
    if (a.correlation_id == 0) continue;
    const std::size_t i = window_of(w, a.start_ns, a.end_ns);
    if (i != std::string::npos) out[a.correlation_id] = i;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Statistics

namespace {

// Order statistics of `v` by selection (std::nth_element), asked for in ascending order of rank:
// each is found in the part above the previous one, O(n) in all where a sort costs O(n log n).
// `v` is reordered.
class OrderStatistics {
 public:
  explicit OrderStatistics(std::vector<double>& v) : v_(v) {}
  // The quantile as quantile_sorted() computes it on the sorted values (0 < q < 1, q not below
  // the previous call's), to the last bit.
  double quantile(double q) {
    const double pos = q * static_cast<double>(v_.size() - 1);
    const auto lo = static_cast<std::size_t>(std::floor(pos));
    const std::size_t hi = std::min(lo + 1, v_.size() - 1);
    const double frac = pos - static_cast<double>(lo);
    const double a = at(lo), b = at(hi);
    return a + (b - a) * frac;
  }

 private:
  double at(std::size_t k) {
    if (k >= placed_) {  // below placed_, only the statistics already asked for are in place
      std::nth_element(v_.begin() + static_cast<std::ptrdiff_t>(placed_), v_.begin() + static_cast<std::ptrdiff_t>(k),
                       v_.end());
      placed_ = k + 1;
    }
    return v_[k];
  }
  std::vector<double>& v_;
  std::size_t placed_ = 0;
};

// median() without its copy and sort; `v` (not empty) is reordered.
double median_in_place(std::vector<double>& v) { return OrderStatistics(v).quantile(0.5); }

}  // namespace

DurationStats duration_stats(std::vector<double> values) {
  DurationStats s;
  if (values.empty()) return s;
  for (double v : values) s.total += v;
  values.erase(std::remove_if(values.begin(), values.end(), [](double v) { return !std::isfinite(v); }), values.end());
  if (values.empty()) return s;
  s.count = values.size();
  s.mean = std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
  OrderStatistics order(values);
  s.p10 = order.quantile(0.10);
  s.median = order.quantile(0.5);
  s.p90 = order.quantile(0.90);
  return s;
}

namespace {

// The short name of a GPU operation (short_kernel_name for a kernel), worked out once per name.
class ShortNames {
 public:
  const std::string& of(const GpuOp& op) {
    auto it = names_.find(op.name);
    if (it == names_.end())
      it = names_.emplace(op.name, op.kernel ? short_kernel_name(op.name) : op.name).first;
    return it->second;
  }

 private:
  std::unordered_map<std::string, std::string> names_;
};

// One node's records over the replays.
struct NodeAcc {
  std::string kind, name, mangled;
  std::vector<double> durations, gaps;
  std::map<std::size_t, std::pair<std::size_t, double>> per_replay;  // replay -> runs, summed time
};

// The GPU records of the replays, added up by node, by kind and name, and by launch.
struct RecordSums {
  std::map<NodeRef, NodeAcc> nodes;
  std::map<std::pair<std::string, std::string>, std::vector<double>> names;
  std::map<std::uint32_t, std::pair<std::uint64_t, std::uint64_t>> launch_span;  // correlation -> [start, end]
  std::vector<double> iter_spans;
};

// Adds each replay's records (sorted by start) to `sums`; counts the records and those no node
// was found for in `s`.
void add_replays(const std::vector<std::vector<const GpuOp*>>& by_iter, const NodeJoin& join, RecordSums& sums, TraceSummary& s) {
  ShortNames short_names;
  for (std::size_t replay = 0; replay < by_iter.size(); ++replay) {
    const auto& ops_of_iter = by_iter[replay];
    if (ops_of_iter.empty()) continue;
    std::uint64_t lo = std::numeric_limits<std::uint64_t>::max(), hi = 0;
    std::multiset<std::uint64_t> ends;  // ends of the records of this replay that started earlier
    for (const GpuOp* op : ops_of_iter) {  // sorted by start
      ++s.gpu_records;
      const double dur = static_cast<double>(op->end_ns >= op->start_ns ? op->end_ns - op->start_ns : 0);
      lo = std::min(lo, op->start_ns);
      hi = std::max(hi, op->end_ns);
      sums.names[{op->kind, short_names.of(*op)}].push_back(dur);
      std::optional<double> gap;
      auto e = ends.upper_bound(op->start_ns);
      if (e != ends.begin()) gap = static_cast<double>(op->start_ns - *std::prev(e));
      ends.insert(op->end_ns);
      if (op->graph_id == 0) continue;
      auto& span = sums.launch_span.try_emplace(op->correlation_id, op->start_ns, op->end_ns).first->second;
      span.first = std::min(span.first, op->start_ns);
      span.second = std::max(span.second, op->end_ns);
      const auto ref = join.find(op->graph_node_id);
      if (!ref) {
        ++s.unattributed;
        continue;
      }
      NodeAcc& acc = sums.nodes[*ref];
      if (acc.durations.empty()) {
        acc.kind = op->kind;
        acc.name = short_names.of(*op);
        if (op->kernel) acc.mangled = op->name;
      }
      acc.durations.push_back(dur);
      auto& runs = acc.per_replay[replay];
      ++runs.first;
      runs.second += dur;
      if (gap) acc.gaps.push_back(*gap);
    }
    sums.iter_spans.push_back(static_cast<double>(hi - lo));
  }
}

// The graph spans (of each launch's records; at graph level, of each GRAPH_TRACE record) and the
// iteration spans.
void add_spans(const TraceData& data, std::size_t windows, const std::unordered_map<std::uint32_t, std::size_t>& iter_of,
               RecordSums& sums, TraceSummary& s) {
  if (data.level == TraceLevel::kGraph) {
    // No per-node records: graph launches are the GPU's view of an iteration.
    std::vector<std::vector<const GraphTraceRecord*>> g_by_iter(windows);
    std::vector<double> spans;
    for (const auto& g : data.graph_traces) {
      auto it = iter_of.find(g.correlation_id);
      if (it == iter_of.end()) continue;
      g_by_iter[it->second].push_back(&g);
      spans.push_back(static_cast<double>(g.end_ns >= g.start_ns ? g.end_ns - g.start_ns : 0));
    }
    if (!spans.empty()) s.graph_span = duration_stats(std::move(spans));
    for (const auto& gs : g_by_iter) {
      if (gs.empty()) continue;
      std::uint64_t lo = std::numeric_limits<std::uint64_t>::max(), hi = 0;
      for (const auto* g : gs) lo = std::min(lo, g->start_ns), hi = std::max(hi, g->end_ns);
      sums.iter_spans.push_back(static_cast<double>(hi - lo));
    }
  } else if (!sums.launch_span.empty()) {
    std::vector<double> spans;
    for (const auto& [corr, se] : sums.launch_span) spans.push_back(static_cast<double>(se.second - se.first));
    s.graph_span = duration_stats(std::move(spans));
  }
  if (!sums.iter_spans.empty()) s.iteration_span = duration_stats(std::move(sums.iter_spans));
}

// One node's statistics; `mismatches` counts a node whose kind or kernel is not its dump's.
NodeStats node_stats(const NodeRef& ref, NodeAcc& acc, const DotGraphInfo* dot, std::size_t& mismatches) {
  NodeStats n;
  n.node = ref;
  n.kind = acc.kind;
  n.name = acc.name;
  n.mangled_name = acc.mangled;
  n.duration = duration_stats(std::move(acc.durations));
  n.gap_samples = acc.gaps.size();
  if (!acc.gaps.empty()) n.gap_before_median_ns = median_in_place(acc.gaps);
  std::vector<double> runs, sums;
  runs.reserve(acc.per_replay.size());
  sums.reserve(acc.per_replay.size());
  for (const auto& [replay, rs] : acc.per_replay) {
    runs.push_back(static_cast<double>(rs.first));
    sums.push_back(rs.second);
  }
  if (!runs.empty()) n.runs_per_replay = median_in_place(runs);
  n.per_replay = duration_stats(std::move(sums));
  if (dot != nullptr && dot->found) {
    const auto nested = dot->nested.find(ref.graph_id);
    const auto* graph = ref.graph_id == dot->graph_id ? &dot->nodes
                        : nested != dot->nested.end() ? &nested->second
                                                      : nullptr;
    if (graph != nullptr) {
      auto d = graph->find(ref.index);
      if (d == graph->end() || d->second.kind != n.kind ||
          (n.kind == "kernel" && !d->second.name.empty() && d->second.name != n.mangled_name))
        ++mismatches;
    }
  }
  return n;
}

// The GPU operations by kind and name, most time per iteration first.
void add_name_stats(std::map<std::pair<std::string, std::string>, std::vector<double>>& names, TraceSummary& s) {
  const double iters = static_cast<double>(std::max<std::size_t>(1, s.iterations));
  for (auto& [key, durs] : names) {
    NameStats n;
    n.kind = key.first;
    n.name = key.second;
    n.duration = duration_stats(std::move(durs));
    n.per_iteration_ns = n.duration.total / iters;
    s.kernels.push_back(std::move(n));
  }
  std::sort(s.kernels.begin(), s.kernels.end(),
            [](const NameStats& a, const NameStats& b) { return a.per_iteration_ns > b.per_iteration_ns; });
}

// The API calls made inside the iterations' windows, by name and all together.
void add_api_stats(const TraceData& data, const std::vector<IterationWindow>& windows, TraceSummary& s) {
  const double iters = static_cast<double>(std::max<std::size_t>(1, s.iterations));
  std::map<std::string, std::vector<double>> api_acc;
  std::vector<double> all_calls;
  for (const auto& a : data.api)
    if (window_of(windows, a.start_ns, a.end_ns) != std::string::npos) {
      const double d = static_cast<double>(a.end_ns >= a.start_ns ? a.end_ns - a.start_ns : 0);
      api_acc[a.name].push_back(d);
      all_calls.push_back(d);
    }
  if (!all_calls.empty()) s.api_per_call = duration_stats(std::move(all_calls));
  for (auto& [name, durs] : api_acc) {
    ApiStats a;
    a.name = name;
    a.calls_per_iteration = static_cast<double>(durs.size()) / iters;
    a.duration = duration_stats(std::move(durs));
    s.api.push_back(std::move(a));
  }
}

}  // namespace

TraceSummary summarize_trace(const TraceData& data, const NodeJoin& join, const DotGraphInfo* dot) {
  TraceSummary s;
  s.level = data.level;
  s.iterations = data.windows.size();
  s.dot_status = join.dot_status();
  s.traced_graph_id = join.traced_graph_id();
  s.dot_graph_id = join.dot_graph_id();

  const std::vector<IterationWindow> windows = sorted_windows(data);
  const auto iter_of = iteration_of_correlation(data);
  const std::uint64_t first_begin = windows.empty() ? std::numeric_limits<std::uint64_t>::max() : windows.front().begin_ns;

  std::vector<GpuOp> ops = gpu_ops(data);
  claim_loop_body_records(ops);
  std::vector<std::vector<const GpuOp*>> by_iter(windows.size());
  for (const auto& op : ops) {
    auto it = iter_of.find(op.correlation_id);
    if (it != iter_of.end()) by_iter[it->second].push_back(&op);
    else if (op.start_ns >= first_begin) ++s.unassigned;
  }

  RecordSums sums;
  add_replays(by_iter, join, sums, s);
  add_spans(data, windows.size(), iter_of, sums, s);
  for (auto& [ref, acc] : sums.nodes) s.nodes.push_back(node_stats(ref, acc, dot, s.dot_name_mismatches));
  add_name_stats(sums.names, s);
  add_api_stats(data, windows, s);
  return s;
}

namespace {
std::optional<TraceStats> stats_of(const std::optional<DurationStats>& d) {
  if (!d) return std::nullopt;
  return TraceStats{d->count, d->median, d->p10, d->p90};
}
}  // namespace

TraceSection to_section(const TraceSummary& s) {
  TraceSection t;
  t.level = to_string(s.level);
  t.has_records = true;
  t.replays = s.iterations;
  t.gpu_records = s.gpu_records;
  t.unattributed_records = s.unattributed;
  t.unassigned_records = s.unassigned;
  t.graph_span = stats_of(s.graph_span);
  t.iteration_span = stats_of(s.iteration_span);
  t.api_per_call = stats_of(s.api_per_call);
  t.join = TraceJoinInfo{s.dot_status, s.traced_graph_id, s.dot_graph_id, s.dot_name_mismatches};
  for (const auto& n : s.nodes)
    t.nodes.push_back({n.node.dot_name(), n.node.graph_id, n.node.index, n.kind, n.name, n.mangled_name, n.duration.count,
                       n.duration.median, n.duration.p10, n.duration.p90, n.duration.mean,
                       n.gap_before_median_ns.value_or(kNoValue), n.runs_per_replay,
                       n.per_replay.count > 0 ? n.per_replay.median : kNoValue});
  for (const auto& k : s.kernels)
    t.kernels.push_back({k.kind, k.name, k.duration.count, k.duration.median, k.duration.p10, k.duration.p90,
                         k.per_iteration_ns});
  for (const auto& a : s.api)
    t.api.push_back({a.name, a.duration.count, a.duration.median, a.duration.p10, a.duration.p90, a.calls_per_iteration});
  return t;
}

namespace {
TraceSpread spread_of(const Summary& s) { return TraceSpread{s.n, s.median, s.p10, s.p90, s.ci_low, s.ci_high}; }
}  // namespace

void add_timing_checks(TraceSection& t, const ModeResult& res, const TraceSummary& s,
                       const std::vector<double>& traced_gpu_ns) {
  // Traced vs untraced GPU time per iteration, with the spread of both, so users can see whether
  // a per-node figure from the trace is distorted and by how much.
  TracePerturbation& p = t.perturbation;
  p = TracePerturbation{};
  const Summary traced = summarize(traced_gpu_ns);
  p.traced = spread_of(traced);
  const auto gpu = res.metrics.find(metric_key::kGpuTimePerIter);
  if (gpu != res.metrics.end() && gpu->second.summary.n > 0) {
    const Summary& untraced = gpu->second.summary;
    p.untraced = spread_of(untraced);
    if (untraced.median > 0) {
      p.ratio = traced.median / untraced.median;
      // The ratio's range implied by both medians' confidence intervals.
      if (untraced.ci_high > 0 && untraced.ci_low > 0)
        p.ratio_range = std::make_pair(traced.ci_low / untraced.ci_high, traced.ci_high / untraced.ci_low);
    }
  }
  // CUPTI's view of the launch calls next to the host clock's view from the launch pass.
  LaunchApiCheck& c = t.launch_api_check;
  c = LaunchApiCheck{};
  const auto launch = res.metrics.find(metric_key::kLaunchCpuPerCall);
  const double host = launch == res.metrics.end() ? kNoValue : launch->second.summary.median;
  if (s.api_per_call) c.cupti_per_call_median_ns = s.api_per_call->median;
  c.host_clock_per_call_median_ns = host;
  if (s.api_per_call && std::isfinite(host) && host > 0) c.ratio = s.api_per_call->median / host;
}

}  // namespace gp
