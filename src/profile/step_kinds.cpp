// Steps by kind: which graphs each step launched (or none), what the eager steps cost, which
// launch configurations fell back, the framework's own reasons joined to the code they name, and a
// capture plan (graphprof/core/step_kinds.hpp; docs/profile.md "Steps by kind"). How the loop is
// cut into steps: step_cuts.cpp; the code behind eager steps and the reasons: step_reasons.cpp.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <unordered_map>

#include "graphprof/core/kernel_names.hpp"
#include "graphprof/core/stats.hpp"
#include "graphprof/core/text_format.hpp"
#include "api_kinds.hpp"
#include "site_analysis.hpp"
#include "steps.hpp"

namespace gp {

namespace {

using profile_detail::Call;
using profile_detail::cut_steps;
using profile_detail::eager_where_of;
using profile_detail::join_reasons;
using profile_detail::Step;

double span_ns(std::uint64_t a, std::uint64_t b) { return b > a ? static_cast<double>(b - a) : 0.0; }

// The kernels of one launch configuration: "name@gx,gy,gz", the re-capture table's signature.
std::string shape_of(const KernelRecord& k) {
  return k.name + "@" + std::to_string(k.grid[0]) + "," + std::to_string(k.grid[1]) + "," + std::to_string(k.grid[2]);
}
std::string name_of_shape(const std::string& s) { return s.substr(0, s.rfind('@')); }
double volume_of_shape(const std::string& s) {
  int x = 0, y = 0, z = 0;
  std::sscanf(s.c_str() + s.rfind('@') + 1, "%d,%d,%d", &x, &y, &z);
  return static_cast<double>(x) * y * z;
}
std::string shape_text(const std::string& s) { return short_kernel_name(name_of_shape(s)) + " grid " + s.substr(s.rfind('@') + 1); }

using Shapes = std::set<std::string>;

struct Verdict {
  std::string verdict;
  std::uint32_t graph = 0;
  std::vector<std::string> example;
};

// One eager step's kernels held against the captured graphs'.
Verdict judge(const Shapes& step, const std::map<std::uint32_t, Shapes>& graphs) {
  Verdict v;
  std::size_t best = 0;
  for (const auto& [g, shapes] : graphs)
    if (!shapes.empty() && shapes.size() > best && std::includes(step.begin(), step.end(), shapes.begin(), shapes.end()))
      v.graph = g, best = shapes.size();
  if (v.graph != 0) {
    v.verdict = "matches_graph";
    return v;
  }
  // The nearest graph: the most kernel names in common.
  std::set<std::string> names;
  for (const auto& s : step) names.insert(name_of_shape(s));
  std::size_t common = 0;
  for (const auto& [g, shapes] : graphs) {
    std::set<std::string> mine;
    for (const auto& s : shapes) mine.insert(name_of_shape(s));
    std::size_t n = 0;
    for (const auto& x : mine) n += names.count(x);
    if (n > common) v.graph = g, common = n;
  }
  v.verdict = "unlike_graphs";
  if (v.graph == 0) return v;
  // Larger: every kernel the two share by name that runs with another grid runs with a larger one
  // in the eager step, and at least one does.
  std::map<std::string, double> graph_volume;
  std::map<std::string, std::string> graph_grid;  // a kernel name -> its largest grid in the graph
  for (const auto& s : graphs.at(v.graph))
    if (volume_of_shape(s) >= graph_volume[name_of_shape(s)]) {
      graph_volume[name_of_shape(s)] = volume_of_shape(s);
      graph_grid[name_of_shape(s)] = s.substr(s.rfind('@') + 1);
    }
  std::size_t larger = 0, smaller = 0;
  for (const auto& s : step) {
    if (graphs.at(v.graph).count(s)) continue;
    auto it = graph_volume.find(name_of_shape(s));
    if (it == graph_volume.end()) continue;
    const double vol = volume_of_shape(s);
    if (vol > it->second) ++larger;
    else if (vol < it->second) ++smaller;
    if (v.example.size() < 3)
      v.example.push_back(shape_text(s) + " (graph_" + std::to_string(v.graph) + ": " + graph_grid[name_of_shape(s)] + ")");
  }
  if (larger > 0 && smaller == 0) v.verdict = "larger_than_graphs";
  return v;
}

// The capture plan: what each graph earns, what a capture of each group of eager steps would.
void make_plan(const ProcessProfile& out, const std::set<std::uint32_t>& step_graphs, std::size_t n_steps, StepKinds& sk) {
  std::map<std::uint32_t, std::size_t> index_of_graph;
  for (std::size_t i = 0; i < out.graphs.size(); ++i) index_of_graph[out.graphs[i].exec.graph_id] = i;
  std::vector<double> startups;
  for (std::size_t i = 0; i < out.graphs.size(); ++i) {
    const GraphProfile& g = out.graphs[i];
    PlanGraph pg;
    pg.graph = g.exec.graph_id;
    pg.launches = g.launches;
    if (n_steps != 0) pg.per_1000_steps = 1000.0 * static_cast<double>(g.launches) / static_cast<double>(n_steps);
    if (i < out.sites.graphs.size()) {
      const GraphLedger& l = out.sites.graphs[i];
      if (l.capture_ns || g.instantiate_ns) pg.startup_ns = l.capture_ns.value_or(0) + g.instantiate_ns.value_or(0) + g.upload_ns.value_or(0);
      if (out.sites.ledgers_recorded)
        pg.memory_bytes = static_cast<double>(l.capture_alloc_bytes + l.capture_vmm_bytes + l.memory_node_bytes);
      pg.shares_pool = l.reuses_memory;
    }
    if (pg.startup_ns) startups.push_back(*pg.startup_ns);
    pg.verdict = g.launches == 0                                                             ? "never launched"
                 : static_cast<double>(g.launches) < std::max(2.0, 0.01 * static_cast<double>(n_steps)) ? "launched rarely"
                                                                                              : "earns its keep";
    sk.plan_graphs.push_back(std::move(pg));
  }
  const std::optional<double> startup = startups.empty() ? std::nullopt : std::optional<double>(median(startups));
  for (std::size_t c = 0; c < sk.clusters.size(); ++c) {
    const EagerCluster& cl = sk.clusters[c];
    PlanCluster pc;
    pc.cluster = c;
    pc.steps = cl.steps;
    std::uint32_t nearest = cl.graph;
    if (nearest == 0)  // no shapes to tell: the step's graph that holds the most memory
      for (const PlanGraph& g : sk.plan_graphs)
        if (step_graphs.count(g.graph) && g.memory_bytes &&
            (nearest == 0 || *g.memory_bytes > sk.plan_graphs[index_of_graph[nearest]].memory_bytes.value_or(0)))
          nearest = g.graph;
    for (const PlanGraph& g : sk.plan_graphs)
      if (g.graph == nearest) pc.memory_bytes = g.memory_bytes;
    pc.startup_ns = startup;
    const double share = n_steps == 0 ? 0 : static_cast<double>(cl.steps) / static_cast<double>(n_steps);
    if (cl.extra_host_ns && *cl.extra_host_ns > 0) {
      pc.saving_per_1000_steps_ns = 1000.0 * share * *cl.extra_host_ns;
      if (startup && share > 0) pc.pays_back_steps = *startup / (share * *cl.extra_host_ns);
    }
    pc.verdict = cl.verdict == "matches_graph"                               ? "fix the dispatch"
                 : cl.verdict == "varies"                                     ? "pad to a bucket"
                 : !pc.saving_per_1000_steps_ns                               ? "not worth a capture"
                                                                              : "capture";
    sk.plan_clusters.push_back(std::move(pc));
  }
  sk.padding = "not measured: the records do not say which allocation a copy wrote or how much of it the launch used";
}

// The median of `of` over the steps `idx`: none when one of them has no figure (NaN) or `idx` is empty.
std::optional<double> median_over(const std::vector<double>& of, const std::vector<std::size_t>& idx) {
  std::vector<double> v;
  for (std::size_t i : idx) {
    if (!std::isfinite(of[i])) return std::nullopt;
    v.push_back(of[i]);
  }
  if (v.empty()) return std::nullopt;
  return median(std::move(v));
}

// How much more the steps `mine` take than the steps `ref` (medians of `of`), where both have one.
std::optional<double> extra(const std::vector<double>& of, const std::vector<std::size_t>& mine, const std::vector<std::size_t>& ref) {
  const auto a = median_over(of, mine), b = median_over(of, ref);
  if (!a || !b) return std::nullopt;
  return *a - *b;
}

// Eager steps given one verdict against one graph, and the shapes they ran.
struct EagerGroup {
  Verdict v;
  std::vector<std::size_t> steps;
  std::set<Shapes> shapes;
};

// analyze_step_kinds, step by step: the launches and the step's graphs, the steps, their kinds and
// times, the shapes that fell back, the reasons and the plan.
class StepKindsAnalysis {
 public:
  StepKindsAnalysis(const ProcessRecords& p, const SiteInputs& in, ProcessProfile& out) : p_(p), in_(in), out_(out) {}

  void run() {
    index_graph_launches();
    find_step_graphs();
    collect_host_calls();
    steps_ = cut_steps(p_, out_, launches_, step_launches_, eager_, syncs_, thread_, sk_);
    sk_.steps = steps_.size();
    gpu_times();
    group_kinds();
    sk_.eager_where = eager_where_of(p_.sites, steps_);
    find_fallbacks();
    join_reasons(p_, in_, steps_, eager_gpu_, sk_);
    make_plan(out_, step_graphs_, steps_.size(), sk_);
    if (sk_.steps == 0 && sk_.reasons.empty()) return;
    out_.step_kinds = std::move(sk_);
  }

 private:
  // Every graph launch call, sorted by start, with the graph it ran.
  void index_graph_launches() {
    for (std::size_t i = 0; i < out_.graphs.size(); ++i) {
      graph_of_exec_[out_.graphs[i].exec.exec_id] = out_.graphs[i].exec.graph_id;
      index_of_graph_[out_.graphs[i].exec.graph_id] = i;
    }
    for (const auto& [exec, calls] : in_.launches_of_exec)
      for (const ApiRecord* a : calls)
        launches_.push_back(
            Call{a->start_ns, a->end_ns, a->thread_id, a->correlation_id, graph_of_exec_.count(exec) ? graph_of_exec_[exec] : 0});
    std::sort(launches_.begin(), launches_.end(), [](const Call& a, const Call& b) { return a.start < b.start; });
  }

  // The step's graphs: the most-launched one and the others captured at its site; the thread that
  // launched most of them, and their launches on it.
  void find_step_graphs() {
    const StepDefinition& def = out_.sites.step;
    if (def.graph_id != 0) {
      step_graphs_.insert(def.graph_id);
      const auto i = index_of_graph_.find(def.graph_id);
      if (i != index_of_graph_.end() && i->second < out_.sites.graphs.size() && out_.sites.graphs[i->second].capture_site) {
        const std::string key = capture_site_key(*out_.sites.graphs[i->second].capture_site);
        for (std::size_t g = 0; g < out_.graphs.size() && g < out_.sites.graphs.size(); ++g)
          if (out_.sites.graphs[g].capture_site && capture_site_key(*out_.sites.graphs[g].capture_site) == key)
            step_graphs_.insert(out_.graphs[g].exec.graph_id);
      }
    }
    {
      std::map<std::uint32_t, std::size_t> by_thread;
      for (const Call& c : launches_)
        if (step_graphs_.count(c.graph)) ++by_thread[c.thread];
      std::size_t most = 0;
      for (const auto& [t, n] : by_thread)
        if (n > most) thread_ = t, most = n;
    }
    for (const Call& c : launches_)
      if (step_graphs_.count(c.graph) && c.thread == thread_) step_launches_.push_back(c);
  }

  // Eager kernel launch calls (outside captures), all threads, and the step thread's syncs.
  void collect_host_calls() {
    for (const ApiRecord& a : p_.trace.api) {
      if (in_.captured_calls.count(a.correlation_id)) continue;
      if (api_kinds::is_kernel_launch(a)) eager_.push_back(&a);
      else if (api_kinds::is_sync(a) && a.thread_id == thread_) syncs_.push_back(&a);
    }
    auto by_start = [](const ApiRecord* a, const ApiRecord* b) { return a->start_ns < b->start_ns; };
    std::sort(eager_.begin(), eager_.end(), by_start);
    std::sort(syncs_.begin(), syncs_.end(), by_start);
  }

  // GPU time: each graph's per launch (median of its timed launches), eager kernels' by launch call.
  void gpu_times() {
    for (const auto& g : out_.graphs)
      if (!g.gpu_span_ns.empty()) graph_gpu_[g.exec.graph_id] = median(g.gpu_span_ns);
    for (const auto& k : p_.trace.kernels)
      if (k.graph_id == 0) {
        eager_gpu_[k.correlation_id] += span_ns(k.start_ns, k.end_ns);
        eager_kernels_[k.correlation_id].push_back(&k);
      }
    eager_timed_ = p_.trace_level == TraceLevel::kNode && out_.kernel_switches_off == 0 && !p_.trace.kernels.empty();
  }

  // Kinds, most steps first; steps that made a graph and launched none are start-up.
  void group_kinds() {
    using KindKey = std::pair<std::set<std::uint32_t>, bool>;
    std::map<KindKey, std::vector<std::size_t>> of_kind;
    for (std::size_t i = 0; i < steps_.size(); ++i) of_kind[{steps_[i].graphs, steps_[i].startup()}].push_back(i);
    std::vector<std::pair<KindKey, std::vector<std::size_t>>> kinds(of_kind.begin(), of_kind.end());
    std::stable_sort(kinds.begin(), kinds.end(), [](const auto& a, const auto& b) { return a.second.size() > b.second.size(); });
    host_of_.assign(steps_.size(), 0.0);
    gpu_graph_of_.assign(steps_.size(), NAN);
    gpu_eager_of_.assign(steps_.size(), NAN);
    for (std::size_t i = 0; i < steps_.size(); ++i) {
      const Step& s = steps_[i];
      host_of_[i] = span_ns(s.start, s.end);
      sk_.loop_ns += host_of_[i];
      double g = 0;
      for (std::uint32_t id : s.graphs) g += graph_gpu_.count(id) ? graph_gpu_[id] : NAN;
      gpu_graph_of_[i] = g;
      if (eager_timed_) {
        double e = 0;
        for (std::uint32_t co : s.eager) e += eager_gpu_.count(co) ? eager_gpu_[co] : 0.0;
        gpu_eager_of_[i] = e;
      }
    }
    for (std::size_t k = 0; k < kinds.size(); ++k) {
      StepKind x;
      x.graphs.assign(kinds[k].first.first.begin(), kinds[k].first.first.end());
      x.startup = kinds[k].first.second;
      x.steps = kinds[k].second.size();
      std::vector<double> host;
      double launches_sum = 0;
      for (std::size_t i : kinds[k].second) {
        host.push_back(host_of_[i]);
        x.host_ns_total += host_of_[i];
        launches_sum += static_cast<double>(steps_[i].eager.size());
        steps_[i].kind = k;
      }
      x.host_ns_median = median_or(host, 0.0);
      x.eager_launches = launches_sum / static_cast<double>(x.steps);
      if (!x.graphs.empty()) x.graph_gpu_ns = median_over(gpu_graph_of_, kinds[k].second);
      x.eager_gpu_ns = median_over(gpu_eager_of_, kinds[k].second);
      sk_.kinds.push_back(std::move(x));
    }
    for (const Step& s : steps_) {
      if (!sk_.strip.empty() && sk_.strip.back().first == s.kind) ++sk_.strip.back().second;
      else sk_.strip.emplace_back(s.kind, 1);
    }
  }

  // Which shapes fell back: each eager step's kernels (name and grid) against the graphs'.
  void find_fallbacks() {
    std::vector<std::size_t> eager_idx, graph_idx;
    for (std::size_t i = 0; i < steps_.size(); ++i)
      if (!steps_[i].startup()) (steps_[i].graphs.empty() ? eager_idx : graph_idx).push_back(i);
    // A step's GPU time: its graphs' and its eager kernels' (an eager step's graph part is 0).
    std::vector<double> gpu_total(steps_.size(), NAN);
    for (std::size_t i = 0; i < steps_.size(); ++i) gpu_total[i] = gpu_graph_of_[i] + gpu_eager_of_[i];
    sk_.graph_step_host_ns = median_over(host_of_, graph_idx);
    sk_.graph_step_gpu_ns = median_over(gpu_total, graph_idx);
    if (eager_idx.empty()) return;
    std::map<std::uint32_t, Shapes> graph_shapes;
    for (const auto& k : p_.trace.kernels)
      if (k.graph_id != 0 && graph_of_exec_.count(k.graph_id)) graph_shapes[graph_of_exec_[k.graph_id]].insert(shape_of(k));
    double largest_volume = -1;
    std::uint32_t largest = 0;
    for (const auto& [g, shapes] : graph_shapes) {
      double v = 0;
      for (const auto& s : shapes) v += volume_of_shape(s);
      if (v > largest_volume) largest = g, largest_volume = v;
    }
    const bool shapes_recorded = eager_timed_ && !graph_shapes.empty();
    for (const EagerGroup& g : group_eager_steps(eager_idx, graph_shapes, shapes_recorded))
      sk_.clusters.push_back(cluster_of(g, largest, graph_idx, gpu_total));
    if (!shapes_recorded)
      sk_.notes.push_back("the eager steps' kernel shapes (name and grid) need kernel records: --trace node");
  }

  // The eager steps grouped by their verdict and graph, most steps first.
  std::vector<EagerGroup> group_eager_steps(const std::vector<std::size_t>& eager_idx,
                                            const std::map<std::uint32_t, Shapes>& graph_shapes, bool shapes_recorded) const {
    std::vector<EagerGroup> groups;
    for (std::size_t i : eager_idx) {
      Verdict v;
      Shapes shapes;
      if (shapes_recorded) {
        for (std::uint32_t co : steps_[i].eager)
          if (auto it = eager_kernels_.find(co); it != eager_kernels_.end())
            for (const KernelRecord* k : it->second) shapes.insert(shape_of(*k));
        v = judge(shapes, graph_shapes);
      } else {
        v.verdict = "not_recorded";
      }
      auto g = std::find_if(groups.begin(), groups.end(),
                            [&](const EagerGroup& x) { return x.v.verdict == v.verdict && x.v.graph == v.graph; });
      if (g == groups.end()) groups.push_back(EagerGroup{v, {}, {}}), g = std::prev(groups.end());
      g->steps.push_back(i);
      g->shapes.insert(shapes);
      for (const auto& e : v.example)
        if (g->v.example.size() < 3 && std::find(g->v.example.begin(), g->v.example.end(), e) == g->v.example.end())
          g->v.example.push_back(e);
    }
    std::stable_sort(groups.begin(), groups.end(),
                     [](const EagerGroup& a, const EagerGroup& b) { return a.steps.size() > b.steps.size(); });
    return groups;
  }

  // One group of eager steps as the report gives it: its verdict, shapes and what it costs.
  EagerCluster cluster_of(const EagerGroup& g, std::uint32_t largest, const std::vector<std::size_t>& graph_idx,
                          const std::vector<double>& gpu_total) const {
    EagerCluster c;
    c.verdict = g.v.verdict;
    c.graph = g.v.graph;
    c.largest = c.graph != 0 && c.graph == largest;
    c.steps = g.steps.size();
    c.shapes = g.v.verdict == "not_recorded" ? 0 : g.shapes.size();
    if (c.verdict != "matches_graph" && c.shapes >= 3 && c.shapes * 10 >= c.steps * 8) c.verdict = "varies";
    c.example = g.v.example;
    c.first_step = g.steps.front();
    std::vector<double> host;
    for (std::size_t i : g.steps) host.push_back(host_of_[i]);
    c.host_ns_per_step = median_or(host, 0.0);
    // Held against the graph steps of the graph it matches or is nearest to, else every graph step.
    std::vector<std::size_t> ref;
    for (std::size_t i : graph_idx)
      if (c.graph != 0 && steps_[i].graphs.count(c.graph)) ref.push_back(i);
    if (ref.empty()) ref = graph_idx;
    c.extra_host_ns = extra(host_of_, g.steps, ref);
    c.gpu_ns_per_step = median_over(gpu_eager_of_, g.steps);
    c.extra_gpu_ns = extra(gpu_total, g.steps, ref);
    return c;
  }

  const ProcessRecords& p_;
  const SiteInputs& in_;
  ProcessProfile& out_;
  StepKinds sk_;
  std::map<std::uint32_t, std::uint32_t> graph_of_exec_;
  std::map<std::uint32_t, std::size_t> index_of_graph_;  // graph id -> index into out.graphs
  std::vector<Call> launches_;                            // every graph launch call, sorted by start
  std::set<std::uint32_t> step_graphs_;
  std::uint32_t thread_ = 0;                              // the step's thread
  std::vector<Call> step_launches_;                       // the step's graphs' launches on it
  std::vector<const ApiRecord*> eager_, syncs_;           // sorted by start
  std::vector<Step> steps_;
  std::map<std::uint32_t, double> graph_gpu_;                        // graph id -> GPU time per launch
  std::unordered_map<std::uint32_t, double> eager_gpu_;              // eager launch call -> its kernels' GPU time
  std::unordered_map<std::uint32_t, std::vector<const KernelRecord*>> eager_kernels_;
  bool eager_timed_ = false;  // eager kernels have GPU times: node-level records, never switched off
  std::vector<double> host_of_, gpu_graph_of_, gpu_eager_of_;  // per step (NaN: not known)
};

}  // namespace

void analyze_step_kinds(const ProcessRecords& p, const SiteInputs& in, ProcessProfile& out) { StepKindsAnalysis(p, in, out).run(); }

}  // namespace gp
