// Joining a `graphprof run` report onto a DOT dump: find the result that wrote the dump, then
// read its per-node times (sections.trace.nodes, written by the trace pass) keyed by dot_name.
#include <algorithm>
#include <cmath>
#include <filesystem>

#include "graphprof/core/error.hpp"
#include "graphprof/graph/graph_analysis.hpp"
#include "graphprof/core/params.hpp"
#include "graphprof/core/report.hpp"

namespace gp {

namespace {

std::string file_name(const std::string& path) { return std::filesystem::path(path).filename().string(); }

std::string describe(const ModeResult& r) {
  return r.workload + (r.params.empty() ? "" : " " + params_text(r.params, " ")) + " " + to_string(r.mode);
}

bool dumped(const ModeResult& r, const std::string& name) {
  if (!r.sections.graph) return false;
  for (const std::string* p : {&r.sections.graph->dot, &r.sections.graph->dot_verbose})
    if (!p->empty() && file_name(*p) == name) return true;
  return false;
}

std::string list_results(const std::vector<const ModeResult*>& rs) {
  std::string s;
  for (std::size_t i = 0; i < rs.size() && i < 8; ++i) s += (i ? "; " : "") + describe(*rs[i]);
  if (rs.size() > 8) s += "; ...";
  return s;
}

std::optional<double> metric_median(const ModeResult& r, const char* key) {
  const auto it = r.metrics.find(key);
  if (it == r.metrics.end() || it->second.summary.n == 0) return std::nullopt;
  return it->second.summary.median;
}

}  // namespace

std::optional<long long> top_level_graph_id(const GraphModel& model) {
  for (const GraphCluster& c : model.clusters)
    if (!c.parent_node && c.graph_id >= 0) return static_cast<long long>(c.graph_id);
  return std::nullopt;
}

NodeTimes node_times_from_report(const Report& report, const std::string& report_path, const std::string& dot_path,
                                 const std::string& workload, const std::string& mode, const std::string& exec,
                                 std::optional<long long> dump_graph_id) {
  const std::string name = file_name(dot_path);
  std::vector<const ModeResult*> picked, all;
  for (const auto& r : report.results) {
    all.push_back(&r);
    if (!workload.empty() && r.workload != workload) continue;
    if (!mode.empty() && to_string(r.mode) != mode) continue;
    if (!exec.empty() && (!r.params.count("exec") || r.params.at("exec") != exec)) continue;
    picked.push_back(&r);
  }
  const bool chosen_by_user = !workload.empty() || !mode.empty() || !exec.empty();
  const bool profile = std::any_of(all.begin(), all.end(), [](const ModeResult* r) { return r->params.count("exec") > 0; });
  std::vector<const ModeResult*> by_dump;
  for (const ModeResult* r : picked)
    if (dumped(*r, name)) by_dump.push_back(r);
  // A profile's dump that was renamed: its graph id says which graph it is (params.graph).
  if (by_dump.empty() && dump_graph_id)
    for (const ModeResult* r : picked)
      if (r->sections.graph && r->params.count("graph") && r->params.at("graph") == std::to_string(*dump_graph_id))
        by_dump.push_back(r);
  if (!by_dump.empty() || !chosen_by_user) picked = by_dump;
  const std::string pick_with = profile ? "--exec" : "--workload and --mode";

  if (picked.empty()) {
    std::string msg = report_path + ": no result ";
    msg += chosen_by_user ? "matches --workload/--mode/--exec" : "dumped " + name;
    if (!chosen_by_user && dump_graph_id) msg += " or graph " + std::to_string(*dump_graph_id);
    msg += "; results: " + (all.empty() ? std::string("none") : list_results(all));
    if (!chosen_by_user) msg += " (pick one with " + pick_with + ")";
    throw usage_error(msg);
  }
  if (picked.size() > 1)
    throw usage_error(report_path + ": several results match " + name + " (" + list_results(picked) + "); pick one with " +
                      pick_with);

  const ModeResult& r = *picked.front();
  NodeTimes t;
  t.origin = report_path + ": " + describe(r);
  t.instantiate_ns = metric_median(r, metric_key::kInstantiateTime);
  t.gpu_time_per_iter_ns = metric_median(r, metric_key::kGpuTimePerIter);

  if (!r.sections.trace || !r.sections.trace->has_records)
    throw input_error(report_path + ": result " + describe(r) +
                      " has no per-node times (sections.trace.nodes); was it run with tracing?");
  const TraceSection& trace = *r.sections.trace;
  if (std::isfinite(trace.perturbation.ratio) && trace.perturbation.ratio > 0) t.trace_slowdown = trace.perturbation.ratio;
  for (const TraceNodeTime& n : trace.nodes) {
    if (std::isfinite(n.gap_before_median_ns)) t.gap_before_ns[n.dot_name] = n.gap_before_median_ns;
    // The trace writes null for a node it saw no complete record of: that node has no time.
    if (!std::isfinite(n.median_ns)) continue;
    NodeTime nt;
    nt.median_ns = n.median_ns;
    nt.p10_ns = std::isfinite(n.p10_ns) ? n.p10_ns : 0;
    nt.p90_ns = std::isfinite(n.p90_ns) ? n.p90_ns : 0;
    nt.count = n.count;
    if (std::isfinite(n.runs_per_replay) && n.runs_per_replay != 1 && std::isfinite(n.per_replay_median_ns)) {
      nt.runs = n.runs_per_replay;
      nt.run_median_ns = n.median_ns;
      nt.median_ns = n.per_replay_median_ns;
    }
    t.by_node[n.dot_name] = nt;
  }
  return t;
}

std::size_t add_gap_times(const GraphModel& model, NodeTimes& times) {
  std::vector<std::vector<std::size_t>> succ(model.nodes.size());
  std::vector<bool> has_pred(model.nodes.size(), false);
  for (const auto& e : model.edges) {
    succ[e.from].push_back(e.to);
    if (model.nodes[e.from].graph_id == model.nodes[e.to].graph_id) has_pred[e.to] = true;
  }
  // The smallest gap before any of `nodes` that has one, times that node's runs; -1 when none.
  auto smallest_gap = [&](const std::vector<std::size_t>& nodes, bool per_run) {
    double gap = -1;
    for (std::size_t s : nodes) {
      const auto it = times.gap_before_ns.find(model.nodes[s].dot_name);
      if (it == times.gap_before_ns.end()) continue;
      double g = it->second;
      if (per_run) {
        const auto t = times.by_node.find(model.nodes[s].dot_name);
        if (t == times.by_node.end()) continue;
        g *= t->second.runs;
      }
      if (gap < 0 || g < gap) gap = g;
    }
    return gap;
  };
  std::size_t added = 0;
  for (std::size_t i = 0; i < model.nodes.size(); ++i) {
    const GraphNode& n = model.nodes[i];
    if (times.by_node.count(n.dot_name) > 0) continue;
    double gap = -1;
    if (n.kind == NodeKind::kHost) {
      gap = smallest_gap(succ[i], false);
    } else if (n.kind == NodeKind::kConditional && n.conditional_type == "WHILE") {
      std::vector<std::size_t> body_roots;
      for (const GraphId g : n.child_graphs)
        if (const GraphCluster* c = model.cluster(g))
          for (std::size_t b : c->nodes)
            if (!has_pred[b]) body_roots.push_back(b);
      gap = smallest_gap(body_roots, true);
    }
    if (gap < 0) continue;
    NodeTime nt;
    nt.median_ns = nt.p10_ns = nt.p90_ns = gap;
    nt.from_gap = true;
    times.by_node[n.dot_name] = nt;
    ++added;
  }
  return added;
}

}  // namespace gp
