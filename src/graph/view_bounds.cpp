// The last bound on what a picture hands to the layout, whatever the dump (view_bounds.hpp):
// folding works inside each graph, so a dump of many graphs (200,000 one-node clusters, a chain
// of 20,000 nested child graphs) or of many unconnected nodes would still reach Graphviz with
// hundreds of thousands of boxes and clusters, which crashed its layout or took gigabytes.
#include "view_bounds.hpp"

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>

#include "graphprof/core/error.hpp"
#include "graphprof/core/text_format.hpp"
#include "graphprof/core/text_format.hpp"

namespace gp::detail {

namespace {

constexpr const char* kMergedFill = "#eef2f7";

// "kernel x5, other x3" for the nodes of some boxes.
std::string kinds_of(const GraphModel& m, const std::vector<std::size_t>& members) {
  std::map<std::string, std::size_t> parts;
  for (std::size_t i : members) ++parts[to_string(m.nodes[i].kind)];
  std::vector<std::pair<std::size_t, std::string>> top;
  for (const auto& [name, c] : parts) top.emplace_back(c, name);
  std::sort(top.rbegin(), top.rend());
  std::string s;
  for (std::size_t k = 0; k < top.size() && k < 3; ++k)
    s += (k ? ", " : "") + top[k].second + " x" + group_digits(top[k].first);
  if (top.size() > 3) s += ", ...";
  return s;
}

// Replaces the boxes of `v` by `groups` (each a list of old box indices, every box in exactly
// one group); a group of several becomes one folded box titled `title(group)`. Links and
// cluster frames follow their boxes; links inside a group disappear.
template <typename Title>
void merge_boxes(GraphView& v, const GraphModel& m, const std::vector<std::vector<std::size_t>>& groups, Title title) {
  std::vector<std::size_t> to(v.boxes.size(), 0);
  std::vector<ViewBox> boxes;
  boxes.reserve(groups.size());
  for (const auto& g : groups) {
    for (std::size_t b : g) to[b] = boxes.size();
    if (g.size() == 1) {
      boxes.push_back(std::move(v.boxes[g[0]]));
      continue;
    }
    ViewBox x;
    x.kind = NodeKind::kOther;
    x.mixed = true;
    x.graph_id = v.boxes[g[0]].graph_id;
    bool same_fill = true;
    for (std::size_t b : g) {
      ViewBox& y = v.boxes[b];
      x.members.insert(x.members.end(), y.members.begin(), y.members.end());
      x.critical = x.critical || y.critical;
      if (y.time_ns >= 0) x.time_ns = (x.time_ns < 0 ? 0 : x.time_ns) + y.time_ns;
      x.timed += y.timed;
      same_fill = same_fill && y.fill == v.boxes[g[0]].fill;
    }
    x.fill = same_fill ? v.boxes[g[0]].fill : kMergedFill;
    if (x.timed > 0) x.node_time_ns = x.time_ns / static_cast<double>(x.timed);
    x.label = title(x) + "\n" + group_digits(x.members.size()) + " nodes: " + kinds_of(m, x.members);
    if (x.time_ns >= 0) x.label += "\n" + format_ns(x.time_ns) + " summed";
    for (std::size_t k = 0; k < x.members.size() && k < 6; ++k) x.tooltip += (k ? "\n" : "") + m.nodes[x.members[k]].dot_name;
    if (x.members.size() > 6) x.tooltip += "\n... " + group_digits(x.members.size() - 6) + " more";
    boxes.push_back(std::move(x));
  }
  v.boxes = std::move(boxes);
  std::set<std::pair<std::size_t, std::size_t>> seen;
  std::vector<ViewEdge> edges;
  for (ViewEdge e : v.edges) {
    e.from = to[e.from];
    e.to = to[e.to];
    if (e.from == e.to || !seen.emplace(e.from, e.to).second) continue;
    edges.push_back(e);
  }
  v.edges = std::move(edges);
  for (ViewCluster& c : v.clusters) {
    std::set<std::size_t> in;
    for (std::size_t b : c.boxes) in.insert(to[b]);
    c.boxes.assign(in.begin(), in.end());
  }
}

// Groups of boxes: `key(b)` == SIZE_MAX keeps box b alone, equal keys share a group.
template <typename Key>
std::vector<std::vector<std::size_t>> group_by(const GraphView& v, Key key) {
  std::vector<std::vector<std::size_t>> groups;
  std::map<std::size_t, std::size_t> group_of;
  for (std::size_t b = 0; b < v.boxes.size(); ++b) {
    const std::size_t k = key(b);
    if (k == SIZE_MAX) {
      groups.push_back({b});
      continue;
    }
    const auto [it, fresh] = group_of.emplace(k, groups.size());
    if (fresh) groups.emplace_back();
    groups[it->second].push_back(b);
  }
  return groups;
}

}  // namespace

void bound_drawing(GraphView& v, const GraphModel& m, const DrawingBounds& bounds) {
  const std::size_t boxes_before = v.boxes.size(), clusters_before = v.clusters.size();
  // Graphs that have a frame (child graphs, conditional bodies), by graph id.
  std::map<GraphId, std::size_t> framed;
  for (std::size_t c = 0; c < v.clusters.size(); ++c) framed.emplace(v.clusters[c].graph_id, c);

  // 1. Unconnected boxes of a graph (no link in or out) become one box per graph.
  if (v.boxes.size() > bounds.max_boxes) {
    std::vector<char> linked(v.boxes.size(), 0);
    for (const ViewEdge& e : v.edges) linked[e.from] = linked[e.to] = 1;
    std::map<GraphId, std::size_t> graph_index;
    const auto groups = group_by(v, [&](std::size_t b) -> std::size_t {
      if (linked[b]) return SIZE_MAX;
      return graph_index.emplace(v.boxes[b].graph_id, graph_index.size()).first->second;
    });
    if (groups.size() < v.boxes.size()) {
      merge_boxes(v, m, groups, [](const ViewBox& x) { return "graph_" + std::to_string(x.graph_id) + ": unconnected nodes"; });
      v.simplified.push_back("the unconnected nodes of each graph are drawn as one box");
    }
  }
  // 1b. Still too many (many graphs of a few unconnected nodes each): all of them, one box.
  if (v.boxes.size() > bounds.max_boxes) {
    std::vector<char> linked(v.boxes.size(), 0);
    for (const ViewEdge& e : v.edges) linked[e.from] = linked[e.to] = 1;
    const auto groups = group_by(v, [&](std::size_t b) -> std::size_t { return linked[b] ? SIZE_MAX : 0; });
    if (groups.size() < v.boxes.size()) {
      merge_boxes(v, m, groups, [](const ViewBox&) { return std::string("unconnected nodes of several graphs"); });
      v.simplified.push_back("the unconnected nodes of all graphs are drawn as one box");
    }
  }
  // 2. Each child graph or conditional body becomes one box.
  if (v.boxes.size() > bounds.max_boxes && !framed.empty()) {
    const auto groups = group_by(v, [&](std::size_t b) -> std::size_t {
      const auto it = framed.find(v.boxes[b].graph_id);
      return it == framed.end() ? SIZE_MAX : it->second;
    });
    merge_boxes(v, m, groups, [](const ViewBox& x) { return "graph_" + std::to_string(x.graph_id) + " (folded)"; });
    v.simplified.push_back("each child graph and conditional body is drawn as one box");
  }
  // 3. All of them together: one box, no frames.
  if (v.boxes.size() > bounds.max_boxes && !framed.empty()) {
    const auto groups = group_by(v, [&](std::size_t b) -> std::size_t {
      return framed.count(v.boxes[b].graph_id) ? 0 : SIZE_MAX;
    });
    merge_boxes(v, m, groups, [&](const ViewBox&) { return group_digits(framed.size()) + " child graphs and bodies"; });
    v.clusters.clear();
    v.simplified.push_back("all " + group_digits(framed.size()) + " child graphs and conditional bodies are drawn as one box");
  }
  if (v.boxes.size() < boxes_before) v.collapsed = true;
  if (v.boxes.size() > bounds.max_boxes)
    throw input_error(m.source + ": too big to draw: " + group_digits(boxes_before) + " boxes remain after folding (" +
                      group_digits(v.boxes.size()) + " after folding the child graphs and unconnected nodes), more "
                      "than the " + group_digits(bounds.max_boxes) + " a picture can hold; nothing was drawn "
                      "(graphprof analyze reads it)");
  // Frames: a layout with thousands of clusters grows far faster than with as many boxes.
  if (v.clusters.size() > bounds.max_clusters) {
    v.clusters.resize(bounds.max_clusters);
    v.simplified.push_back("only the first " + group_digits(bounds.max_clusters) + " of " + group_digits(clusters_before) +
                           " child graphs and bodies are framed as clusters");
  }
  // Links from a node to the body it runs come on top of the link budget: at most a few per frame.
  const std::size_t body_budget = bounds.max_body_links_per_cluster * std::max<std::size_t>(v.clusters.size(), 1);
  std::size_t body = 0;
  std::vector<ViewEdge> kept;
  std::size_t dropped = 0;
  for (const ViewEdge& e : v.edges) {
    if (e.runs_body && body++ >= body_budget) {
      ++dropped;
      continue;
    }
    kept.push_back(e);
  }
  if (dropped > 0) {
    v.edges = std::move(kept);
    v.simplified.push_back(group_digits(dropped) + " links to child graphs and bodies are not drawn");
  }
}

}  // namespace gp::detail
