// An analysis as JSON for tools: a stable, documented shape (docs/graphs.md). The text for people
// is src/report/graph_analysis_text.cpp.
#include "graphprof/graph/graph_analysis.hpp"

namespace gp {

namespace {

using nlohmann::json;

json path_json(const CriticalPath& p) {
  json j = {{"nodes", p.nodes.size()}, {"path", p.names}};
  if (p.timed) {
    j["time_ns"] = p.time_ns;
    j["serial_time_ns"] = p.serial_time_ns;
  }
  return j;
}

}  // namespace

json to_json(const GraphMetrics& m) {
  json j;
  j["schema"] = kGraphAnalysisSchema;
  j["source"] = m.source;
  j["verbose"] = m.verbose;
  j["nodes"] = {{"total", m.node_count}, {"by_kind", m.nodes_by_kind}};
  j["edges"] = {{"total", m.edge_count}, {"by_kind", m.edges_by_kind}};
  j["top_level"] = {{"graph_ids", m.top_level_graphs}, {"depth", m.depth},
                    {"width_per_level", m.width_per_level}, {"max_parallelism", m.max_parallelism},
                    {"roots", m.roots}, {"leaves", m.leaves}};
  json graphs = json::array();
  for (const auto& g : m.graphs) {
    graphs.push_back({{"graph_id", g.graph_id}, {"parent", g.parent.empty() ? json(nullptr) : json(g.parent)},
                      {"nodes", g.nodes}, {"edges", g.edges}, {"depth", g.depth}, {"max_width", g.max_width},
                      {"roots", g.roots}, {"leaves", g.leaves}});
  }
  j["graphs"] = graphs;
  j["critical_path"] = path_json(m.critical_path);
  j["timed_critical_path"] = m.timed_critical_path ? path_json(*m.timed_critical_path) : json(nullptr);
  json kernels = json::array();
  for (const auto& k : m.kernels) {
    json e = {{"name", k.short_name}, {"count", k.count}, {"demangled", k.demangled},
              {"launch_configs", k.launch_configs}};
    if (m.timed_critical_path) {
      e["timed"] = k.timed;
      e["time_ns"] = k.time_ns;
    }
    kernels.push_back(e);
  }
  j["kernels"] = kernels;
  json copies = json::array();
  for (const auto& c : m.memcpy) copies.push_back({{"direction", c.direction}, {"count", c.count}, {"bytes", c.bytes}});
  j["memcpy"] = copies;
  j["memset"] = {{"count", m.memset_count}, {"bytes", m.memset_bytes}};
  j["mem_alloc"] = {{"count", m.alloc_count}, {"bytes", m.alloc_bytes}};
  j["times"] = m.timed_critical_path ? json{{"origin", m.times_origin}, {"timed_nodes", m.timed_nodes},
                                            {"untimed_gpu_nodes", m.untimed_gpu_nodes}}
                                     : json(nullptr);
  json findings = json::array();
  for (const auto& f : m.findings)
    findings.push_back({{"id", f.id}, {"severity", f.severity}, {"title", f.title}, {"evidence", f.evidence},
                        {"advice", f.advice}, {"nodes", f.nodes}});
  j["findings"] = findings;
  return j;
}

}  // namespace gp
