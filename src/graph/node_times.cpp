// Joining a `graphprof run` report onto a DOT dump: find the result that wrote the dump, then
// read its per-node times (sections.trace.nodes, written by the trace pass) keyed by dot_name.
#include <filesystem>

#include "graphprof/error.hpp"
#include "graphprof/graph_analysis.hpp"
#include "graphprof/report.hpp"

namespace gp {

namespace {

std::string file_name(const std::string& path) { return std::filesystem::path(path).filename().string(); }

std::string describe(const ModeResult& r) {
  std::string s = r.workload;
  for (const auto& [k, v] : r.params) s += " " + k + "=" + v;
  return s + " " + r.mode;
}

bool dumped(const ModeResult& r, const std::string& name) {
  const auto g = r.sections.find("graph");
  if (g == r.sections.end() || !g->is_object()) return false;
  for (const char* key : {"dot", "dot_verbose"}) {
    const auto p = g->find(key);
    if (p != g->end() && p->is_string() && file_name(p->get<std::string>()) == name) return true;
  }
  return false;
}

std::string list_results(const std::vector<const ModeResult*>& rs) {
  std::string s;
  for (std::size_t i = 0; i < rs.size() && i < 8; ++i) s += (i ? "; " : "") + describe(*rs[i]);
  if (rs.size() > 8) s += "; ...";
  return s;
}

double number(const nlohmann::json& j, const char* key, const std::string& where, bool required) {
  const auto it = j.find(key);
  if (it == j.end() || it->is_null()) {
    if (required) throw input_error(where + ": missing '" + key + "'");
    return 0;
  }
  if (!it->is_number()) throw input_error(where + ": '" + key + "' is not a number");
  return it->get<double>();
}

std::optional<double> metric_median(const ModeResult& r, const char* key) {
  const auto it = r.metrics.find(key);
  if (it == r.metrics.end() || it->second.summary.n == 0) return std::nullopt;
  return it->second.summary.median;
}

}  // namespace

NodeTimes node_times_from_report(const Report& report, const std::string& report_path, const std::string& dot_path,
                                 const std::string& workload, const std::string& mode) {
  const std::string name = file_name(dot_path);
  std::vector<const ModeResult*> picked, all;
  for (const auto& r : report.results) {
    all.push_back(&r);
    if (!workload.empty() && r.workload != workload) continue;
    if (!mode.empty() && r.mode != mode) continue;
    picked.push_back(&r);
  }
  const bool chosen_by_user = !workload.empty() || !mode.empty();
  std::vector<const ModeResult*> by_dump;
  for (const ModeResult* r : picked)
    if (dumped(*r, name)) by_dump.push_back(r);
  if (!by_dump.empty() || !chosen_by_user) picked = by_dump;

  if (picked.empty()) {
    std::string msg = report_path + ": no result ";
    msg += chosen_by_user ? "matches --workload/--mode" : "dumped " + name;
    msg += "; results: " + (all.empty() ? std::string("none") : list_results(all));
    if (!chosen_by_user) msg += " (pick one with --workload and --mode)";
    throw usage_error(msg);
  }
  if (picked.size() > 1)
    throw usage_error(report_path + ": several results match " + name + " (" + list_results(picked) +
                      "); pick one with --workload and --mode");

  const ModeResult& r = *picked.front();
  NodeTimes t;
  t.origin = report_path + ": " + describe(r);
  t.instantiate_ns = metric_median(r, "instantiate_time");
  t.gpu_time_per_iter_ns = metric_median(r, "gpu_time_per_iter");

  const auto trace = r.sections.find("trace");
  if (trace == r.sections.end() || !trace->is_object() || !trace->contains("nodes"))
    throw input_error(report_path + ": result " + describe(r) +
                      " has no per-node times (sections.trace.nodes); was it run with tracing?");
  const auto p = trace->find("perturbation");
  if (p != trace->end() && p->is_object() && p->contains("ratio") && (*p)["ratio"].is_number() &&
      (*p)["ratio"].get<double>() > 0)
    t.trace_slowdown = (*p)["ratio"].get<double>();
  const nlohmann::json& nodes = (*trace)["nodes"];
  if (!nodes.is_array()) throw input_error(report_path + ": " + describe(r) + ": sections.trace.nodes is not an array");
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const nlohmann::json& n = nodes[i];
    const std::string where = report_path + ": sections.trace.nodes[" + std::to_string(i) + "] of " + describe(r);
    if (!n.is_object()) throw input_error(where + ": not an object");
    std::string key;
    if (n.contains("dot_name") && n["dot_name"].is_string()) {
      key = n["dot_name"].get<std::string>();
    } else if (n.contains("graph_id") && n.contains("node_index")) {
      key = "graph_" + std::to_string(static_cast<long long>(number(n, "graph_id", where, true))) + "_node_" +
            std::to_string(static_cast<long long>(number(n, "node_index", where, true)));
    } else {
      throw input_error(where + ": missing 'dot_name'");
    }
    if (n.contains("gap_before_median_ns") && n["gap_before_median_ns"].is_number())
      t.gap_before_ns[key] = n["gap_before_median_ns"].get<double>();
    // The trace writes null for a node it saw no complete record of: that node has no time.
    if (n.contains("median_ns") && n["median_ns"].is_null()) continue;
    NodeTime nt;
    nt.median_ns = number(n, "median_ns", where, true);
    nt.p10_ns = number(n, "p10_ns", where, false);
    nt.p90_ns = number(n, "p90_ns", where, false);
    nt.count = static_cast<std::uint64_t>(number(n, "count", where, false));
    t.by_node[key] = nt;
  }
  return t;
}

std::size_t add_host_gap_times(const GraphModel& model, NodeTimes& times) {
  std::vector<std::vector<std::size_t>> succ(model.nodes.size());
  for (const auto& e : model.edges) succ[e.from].push_back(e.to);
  std::size_t added = 0;
  for (std::size_t i = 0; i < model.nodes.size(); ++i) {
    const GraphNode& n = model.nodes[i];
    if (n.kind != NodeKind::kHost || times.by_node.count(n.dot_name) > 0) continue;
    double gap = -1;
    for (std::size_t s : succ[i]) {
      const auto it = times.gap_before_ns.find(model.nodes[s].dot_name);
      if (it != times.gap_before_ns.end() && (gap < 0 || it->second < gap)) gap = it->second;
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
