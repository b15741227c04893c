// Structural analysis of a GraphModel: counts, shapes, critical paths (by count and by time) and
// histograms; the findings are in graph_findings.cpp. Linear in nodes + edges so that a 100 000-node
// dump is analysed well inside a second.
#include "graphprof/graph/graph_analysis.hpp"
#include "graph_analyzer.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <set>
#include <unordered_map>

#include "graphprof/core/text_format.hpp"

namespace gp::analysis {

Topology build_topology(const GraphModel& m) {
  Topology t;
  const std::size_t n = m.nodes.size();
  std::vector<std::pair<std::size_t, std::size_t>> fwd, back;
  fwd.reserve(m.edges.size());
  back.reserve(m.edges.size());
  for (const auto& e : m.edges) {
    if (m.nodes[e.from].graph_id != m.nodes[e.to].graph_id) continue;
    fwd.emplace_back(e.from, e.to);
    back.emplace_back(e.to, e.from);
  }
  t.out.build(n, fwd);
  t.in.build(n, back);
  for (std::size_t c = 0; c < m.clusters.size(); ++c) t.cluster_of_graph[m.clusters[c].graph_id] = c;
  t.cluster_of_node.resize(n);
  for (std::size_t i = 0; i < n; ++i) t.cluster_of_node[i] = t.cluster_of_graph.at(m.nodes[i].graph_id);

  std::vector<std::size_t> indeg(n);
  std::vector<std::size_t> ready;
  for (std::size_t i = n; i-- > 0;) {
    indeg[i] = t.in[i].size();
    if (indeg[i] == 0) ready.push_back(i);  // reversed so that pop_back yields file order
  }
  t.level.assign(n, 0);
  t.order.reserve(n);
  while (!ready.empty()) {
    const std::size_t v = ready.back();
    ready.pop_back();
    t.order.push_back(v);
    for (std::size_t w : t.out[v]) {
      t.level[w] = std::max(t.level[w], t.level[v] + 1);
      if (--indeg[w] == 0) ready.push_back(w);
    }
  }
  return t;
}

const NodeTime* Analyzer::time_of(std::size_t i) const {
  if (times == nullptr) return nullptr;
  const auto it = times->by_node.find(m.nodes[i].dot_name);
  return it == times->by_node.end() ? nullptr : &it->second;
}

void Analyzer::counts() {
  out.source = m.source;
  out.verbose = m.verbose;
  out.node_count = m.nodes.size();
  out.edge_count = m.edges.size();
  std::vector<std::size_t> nodes(kNodeKindCount, 0), edges(kNodeKindCount * kNodeKindCount, 0);
  for (const auto& n : m.nodes) ++nodes[static_cast<std::size_t>(n.kind)];
  for (const auto& e : m.edges)
    ++edges[static_cast<std::size_t>(m.nodes[e.from].kind) * kNodeKindCount + static_cast<std::size_t>(m.nodes[e.to].kind)];
  for (int k = 0; k < kNodeKindCount; ++k)
    if (nodes[static_cast<std::size_t>(k)] > 0) out.nodes_by_kind[to_string(static_cast<NodeKind>(k))] = nodes[static_cast<std::size_t>(k)];
  for (int a = 0; a < kNodeKindCount; ++a)
    for (int b = 0; b < kNodeKindCount; ++b) {
      const std::size_t c = edges[static_cast<std::size_t>(a * kNodeKindCount + b)];
      if (c > 0)
        out.edges_by_kind[std::string(to_string(static_cast<NodeKind>(a))) + "->" + to_string(static_cast<NodeKind>(b))] = c;
    }
}

void Analyzer::shapes() {
  top.assign(m.nodes.size(), false);
  std::vector<std::size_t> width;
  for (const auto& c : m.clusters) {
    GraphShape s;
    s.graph_id = c.graph_id;
    if (c.parent_node) s.parent = m.nodes[*c.parent_node].dot_name;
    s.nodes = c.nodes.size();
    std::vector<std::size_t> w;
    for (std::size_t i : c.nodes) {
      s.edges += t.out[i].size();
      if (t.in[i].empty()) ++s.roots;
      if (t.out[i].empty()) ++s.leaves;
      const std::size_t l = t.level[i];
      if (w.size() <= l) w.resize(l + 1, 0);
      ++w[l];
    }
    s.depth = w.size();
    s.max_width = w.empty() ? 0 : *std::max_element(w.begin(), w.end());
    if (!c.parent_node) {
      out.top_level_graphs.push_back(c.graph_id);
      for (std::size_t i : c.nodes) top[i] = true;
      if (width.size() < w.size()) width.resize(w.size(), 0);
      for (std::size_t l = 0; l < w.size(); ++l) width[l] += w[l];
      out.roots += s.roots;
      out.leaves += s.leaves;
    }
    out.graphs.push_back(std::move(s));
  }
  out.width_per_level = width;
  out.depth = width.size();
  out.max_parallelism = width.empty() ? 0 : *std::max_element(width.begin(), width.end());
}

void Analyzer::critical_by_count() {
  std::size_t end = std::numeric_limits<std::size_t>::max();
  for (std::size_t i = 0; i < m.nodes.size(); ++i)
    if (top[i] && (end == std::numeric_limits<std::size_t>::max() || t.level[i] > t.level[end])) end = i;
  if (end == std::numeric_limits<std::size_t>::max()) return;
  std::vector<std::size_t> path{end};
  while (!t.in[path.back()].empty()) {
    const std::size_t cur = path.back();
    std::size_t best = std::numeric_limits<std::size_t>::max();
    for (std::size_t p : t.in[cur])
      if (t.level[p] + 1 == t.level[cur] && p < best) best = p;
    path.push_back(best);
  }
  std::reverse(path.begin(), path.end());
  out.critical_path.nodes = path;
  for (std::size_t i : path) out.critical_path.names.push_back(m.nodes[i].dot_name);
}

double Analyzer::own_weight(std::size_t i) const {
  const NodeTime* nt = time_of(i);
  return nt != nullptr ? nt->median_ns : 0.0;
}

void Analyzer::solve_cluster(std::size_t c, std::vector<std::vector<std::size_t>>& topo_nodes) {
  if (cluster_state_[c] == 2) return;
  if (cluster_state_[c] == 1) return;  // a graph that contains itself: ignore the loop
  cluster_state_[c] = 1;
  double crit = 0, serial = 0;
  for (std::size_t i : topo_nodes[c]) {
    double w = own_weight(i), ws = w;
    double child_crit = 0, child_serial = 0;
    for (GraphId g : m.nodes[i].child_graphs) {
      const auto it = t.cluster_of_graph.find(g);
      if (it == t.cluster_of_graph.end() || it->second == c) continue;
      solve_cluster(it->second, topo_nodes);
      if (m.nodes[i].kind == NodeKind::kConditional) {
        child_crit = std::max(child_crit, crit_of_cluster_[it->second]);
        child_serial = std::max(child_serial, serial_of_cluster_[it->second]);
      } else {
        child_crit += crit_of_cluster_[it->second];
        child_serial += serial_of_cluster_[it->second];
      }
    }
    w += child_crit;
    ws += child_serial;
    double best = 0;
    std::size_t bp = std::numeric_limits<std::size_t>::max();
    for (std::size_t p : t.in[i])
      if (bp == std::numeric_limits<std::size_t>::max() || dist_[p] > best) {
        best = dist_[p];
        bp = p;
      }
    dist_[i] = best + w;
    best_pred_[i] = bp;
    crit = std::max(crit, dist_[i]);
    serial += ws;
  }
  crit_of_cluster_[c] = crit;
  serial_of_cluster_[c] = serial;
  cluster_state_[c] = 2;
}

void Analyzer::critical_by_time() {
  if (times == nullptr) return;
  const std::size_t n = m.nodes.size();
  dist_.assign(n, 0);
  best_pred_.assign(n, std::numeric_limits<std::size_t>::max());
  crit_of_cluster_.assign(m.clusters.size(), 0);
  serial_of_cluster_.assign(m.clusters.size(), 0);
  cluster_state_.assign(m.clusters.size(), 0);
  std::vector<std::vector<std::size_t>> topo_nodes(m.clusters.size());
  for (std::size_t i : t.order) topo_nodes[t.cluster_of_node[i]].push_back(i);
  for (std::size_t c = 0; c < m.clusters.size(); ++c) solve_cluster(c, topo_nodes);

  CriticalPath cp;
  cp.timed = true;
  std::size_t end = std::numeric_limits<std::size_t>::max();
  for (std::size_t i : t.order)
    if (top[i] && (end == std::numeric_limits<std::size_t>::max() || dist_[i] > dist_[end])) end = i;
  for (std::size_t c = 0; c < m.clusters.size(); ++c)
    if (!m.clusters[c].parent_node) cp.serial_time_ns += serial_of_cluster_[c];
  if (end != std::numeric_limits<std::size_t>::max()) {
    cp.time_ns = dist_[end];
    for (std::size_t v = end; v != std::numeric_limits<std::size_t>::max(); v = best_pred_[v]) cp.nodes.push_back(v);
    std::reverse(cp.nodes.begin(), cp.nodes.end());
    for (std::size_t i : cp.nodes) cp.names.push_back(m.nodes[i].dot_name);
  }
  out.timed_critical_path = std::move(cp);
  out.times_origin = times->origin;
  std::vector<std::pair<double, std::size_t>> figures;
  for (std::size_t i = 0; i < n; ++i) {
    if (const NodeTime* nt = time_of(i)) ++out.timed_nodes, figures.emplace_back(nt->median_ns, 1);
    else if (is_gpu_work(m.nodes[i].kind)) ++out.untimed_gpu_nodes;
  }
  out.time_spread = node_time_spread(std::move(figures));
}

void Analyzer::histograms() {
  std::unordered_map<std::string, std::size_t> slot;
  for (std::size_t i = 0; i < m.nodes.size(); ++i) {
    const GraphNode& n = m.nodes[i];
    if (n.kind == NodeKind::kKernel) {
      const std::string key = n.short_name.empty() ? "(unnamed)" : n.short_name;
      auto it = slot.find(key);
      if (it == slot.end()) {
        it = slot.emplace(key, out.kernels.size()).first;
        out.kernels.push_back(KernelGroup{});
        out.kernels.back().short_name = key;
      }
      KernelGroup& g = out.kernels[it->second];
      ++g.count;
      if (!n.demangled.empty() &&
          std::find(g.demangled.begin(), g.demangled.end(), n.demangled) == g.demangled.end())
        g.demangled.push_back(n.demangled);
      ++g.launch_configs[n.launch ? n.launch->text : "unknown"];
      if (const NodeTime* nt = time_of(i)) {
        ++g.timed;
        g.time_ns += nt->median_ns;
      }
    } else if (n.kind == NodeKind::kMemcpy) {
      const std::string dir = n.copy_direction.empty() ? "unknown" : n.copy_direction;
      auto it = std::find_if(out.memcpy.begin(), out.memcpy.end(), [&](const CopyGroup& c) { return c.direction == dir; });
      if (it == out.memcpy.end()) {
        out.memcpy.push_back(CopyGroup{dir, 0, 0});
        it = out.memcpy.end() - 1;
      }
      ++it->count;
      it->bytes += n.bytes.value_or(0);
    } else if (n.kind == NodeKind::kMemset) {
      ++out.memset_count;
      out.memset_bytes += n.bytes.value_or(0);
    } else if (n.kind == NodeKind::kMemAlloc) {
      ++out.alloc_count;
      out.alloc_bytes += n.bytes.value_or(0);
    }
  }
  std::stable_sort(out.kernels.begin(), out.kernels.end(), [](const KernelGroup& a, const KernelGroup& b) {
    return a.count != b.count ? a.count > b.count : a.short_name < b.short_name;
  });
  std::sort(out.memcpy.begin(), out.memcpy.end(),
            [](const CopyGroup& a, const CopyGroup& b) { return a.direction < b.direction; });
}

GraphMetrics Analyzer::run() {
  t = build_topology(m);
  counts();
  shapes();
  critical_by_count();
  critical_by_time();
  histograms();
  chains();
  host_nodes();
  copies();
  size();
  fanout();
  memsets();
  empties();
  straight_line();
  timing();
  std::stable_sort(out.findings.begin(), out.findings.end(),
                   [](const Finding& a, const Finding& b) { return a.severity == "warning" && b.severity != "warning"; });
  return std::move(out);
}

}  // namespace gp::analysis

namespace gp {

NodeTimeSpread node_time_spread(std::vector<std::pair<double, std::size_t>> figures) {
  figures.erase(std::remove_if(figures.begin(), figures.end(),
                               [](const std::pair<double, std::size_t>& f) { return !(f.first > 0) || f.second == 0; }),
                figures.end());
  NodeTimeSpread s;
  if (figures.empty()) return s;
  std::sort(figures.begin(), figures.end());
  for (const auto& f : figures) s.timed += f.second;
  // The weighted median: the figure at which half the timed nodes have been counted.
  for (std::size_t seen = 0, i = 0; i < figures.size(); ++i) {
    seen += figures[i].second;
    if (2 * seen >= s.timed) {
      s.median_ns = figures[i].first;
      break;
    }
  }
  s.min_ns = figures.front().first;
  s.max_ns = figures.back().first;
  s.within_2x = s.timed >= 2 && s.min_ns >= 0.5 * s.median_ns && s.max_ns <= 2 * s.median_ns;
  return s;
}

std::string none_stands_out_text(const NodeTimeSpread& spread) {
  if (!spread.within_2x) return {};
  return "all " + plural(spread.timed, "node", "nodes") + " within 2x of the median (" + format_ns(spread.median_ns) +
         "): none stands out";
}

GraphMetrics analyze(const GraphModel& model, const NodeTimes* times) {
  analysis::Analyzer a(model, times);
  return a.run();
}

}  // namespace gp
