// Deciding what a rendered graph shows. Large dumps are unreadable node by node, so runs are
// folded into boxes, in rounds, until nothing more folds:
//  1. runs of similar nodes one after another    -> "tiny_k  x100 in a row"
//  2. identical branches between the same nodes  -> "tiny_k  8 branches x 8 in a row"
//  3. a pattern repeating along a chain          -> "x16 repeats of rmsnorm > matvec > add"
// and only while more than max_boxes remain: any branches between the same nodes, then any
// linear run of mixed nodes, and as a last resort bands of whole levels (irregular graphs).
// Every box keeps its member nodes, so times and the critical path carry over.
#include "graphprof/graph/graph_view.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <set>
#include <unordered_map>

#include "graphprof/core/text_format.hpp"
#include "view_folding.hpp"
#include "graphprof/core/name_match.hpp"
#include "graphprof/core/text_format.hpp"
#include "view_bounds.hpp"

namespace gp {

using view_detail::display_name;
using view_detail::Folder;
using view_detail::Work;

namespace {

// Fill colours by kind: kernels blue, copies green, memsets yellow, host red, events purple,
// allocations orange, bookkeeping grey. Pale enough for black text.
const char* kind_fill(NodeKind k) {
  switch (k) {
    case NodeKind::kKernel: return "#cfe2ff";
    case NodeKind::kMemcpy: return "#c8ecc8";
    case NodeKind::kMemset: return "#fff0b3";
    case NodeKind::kHost: return "#f7c6c6";
    case NodeKind::kEventRecord:
    case NodeKind::kEventWait:
    case NodeKind::kExtSemSignal:
    case NodeKind::kExtSemWait: return "#e4d7f5";
    case NodeKind::kMemAlloc:
    case NodeKind::kMemFree: return "#ffdcb8";
    case NodeKind::kChildGraph:
    case NodeKind::kConditional: return "#ffffff";
    case NodeKind::kEmpty:
    case NodeKind::kBatchMemOp:
    case NodeKind::kOther: return "#e8e8e8";
  }
  return "#e8e8e8";
}

// Seven steps from pale yellow to red (the ColorBrewer YlOrRd ramp): light = fast, dark = slow.
const char* const kHeat[] = {"#ffffcc", "#ffeda0", "#fed976", "#feb24c", "#fd8d3c", "#fc4e2a", "#e31a1c"};
constexpr int kHeatSteps = 7;
constexpr const char* kUntimedFill = "#f2f2f2";
constexpr std::size_t kMaxNameChars = 38;
constexpr std::size_t kMaxBodyLinks = 4;
constexpr std::size_t kMaxTooltipChars = 400;

std::string clip(const std::string& s, std::size_t n) { return clip_columns(s, n); }

}  // namespace

// The name a node shows: kernel short name, "memcpy HtoD", "host", ...
std::string view_detail::display_name(const GraphNode& n) {
  switch (n.kind) {
    // Cut in the middle: kernels of one model differ at their ends (per-layer suffixes, tile shapes).
    case NodeKind::kKernel: return clip_middle(n.short_name.empty() ? "kernel" : n.short_name, kMaxNameChars);
    case NodeKind::kMemcpy: return "memcpy " + (n.copy_direction.empty() ? std::string("?") : n.copy_direction);
    case NodeKind::kMemset: return "memset";
    case NodeKind::kHost: return "host function";
    case NodeKind::kEventRecord: return "event record";
    case NodeKind::kEventWait: return "event wait";
    case NodeKind::kMemAlloc: return "mem alloc";
    case NodeKind::kMemFree: return "mem free";
    case NodeKind::kEmpty: return "empty";
    case NodeKind::kChildGraph: return "child graph";
    case NodeKind::kConditional: return n.conditional_type.empty() ? "conditional" : clip(n.conditional_type, kMaxNameChars);
    case NodeKind::kExtSemSignal: return "ext semaphore signal";
    case NodeKind::kExtSemWait: return "ext semaphore wait";
    case NodeKind::kBatchMemOp: return "batch mem op";
    case NodeKind::kOther: return n.type_text.empty() ? "?" : clip(n.type_text, kMaxNameChars);
  }
  return "?";
}

namespace {

// Heat-map steps at fixed multiples of the median timed node: a step for "about the median"
// (0.5x to 2x), one below it, and rising ones for the nodes that stand out (2x, 4x, 10x, 30x,
// 100x and more). A scale from the fastest to the slowest node painted 18 equal kernels of
// 0.83-1.54 us in every colour; anchored to the median they share one pale step, and only a node
// many times slower than its peers is red. Step s covers [ratio(s), ratio(s + 1)) x the median.
constexpr double kHeatRatios[kHeatSteps] = {0, 0.5, 2, 4, 10, 30, 100};

int heat_step(double t, double median) {
  if (!(median > 0)) return 1;
  int s = 0;
  while (s + 1 < kHeatSteps && t >= kHeatRatios[s + 1] * median) ++s;
  return s;
}

std::string ratio_text(double r) { return r == 0.5 ? "0.5x" : strf("%gx", r); }

std::string nodes_text(std::size_t n) { return plural(n, "node", "nodes"); }

// The heat map's legend: the steps from the lowest to the highest one used, each with its bounds
// (as multiples of the median and in time) and how many nodes it colours; one entry when every
// timed node is within 2x of the median (nothing stands out); "no time" only when some node has none.
void heat_legend(GraphView& v, const NodeTimeSpread& spread) {
  const double median = spread.median_ns;
  const bool within_2x = spread.within_2x;
  std::vector<std::size_t> per_step(kHeatSteps, 0);
  std::size_t untimed = 0, timed = 0;
  for (const ViewBox& b : v.boxes) {
    if (b.fill == kUntimedFill) {
      untimed += b.members.size();
      continue;
    }
    per_step[static_cast<std::size_t>(heat_step(b.node_time_ns, median))] += b.timed;
    timed += b.timed;
  }
  if (untimed > 0) v.legend.push_back({"no time: " + nodes_text(untimed), kUntimedFill});
  if (timed == 0) return;
  if (timed == 1) {
    v.legend.push_back({format_ns(median) + ": the one timed node", kHeat[1]});
    return;
  }
  if (within_2x) {
    v.legend.push_back({none_stands_out_text(spread), kHeat[1]});
    return;
  }
  int first = kHeatSteps, last = 0;
  for (int s = 0; s < kHeatSteps; ++s)
    if (per_step[static_cast<std::size_t>(s)] > 0) first = std::min(first, s), last = std::max(last, s);
  for (int s = first; s <= last; ++s) {
    const std::size_t n = per_step[static_cast<std::size_t>(s)];
    std::string label;
    if (s == 0) label = "below 0.5x the median (< " + format_ns(0.5 * median) + ")";
    else if (s + 1 == kHeatSteps) label = ratio_text(kHeatRatios[s]) + " the median and more (>= " + format_ns(kHeatRatios[s] * median) + ")";
    else
      label = ratio_text(kHeatRatios[s]) + " - " + ratio_text(kHeatRatios[s + 1]) + " the median (" +
              format_ns(kHeatRatios[s] * median) + " - " + format_ns(kHeatRatios[s + 1] * median) + ")";
    v.legend.push_back({label + (n > 0 ? ": " + nodes_text(n) : ""), kHeat[s]});
  }
}



// A folded pattern over a few lines, broken between its steps (" > ") or parts (" | ").
std::string pattern_lines(const std::string& pattern) {
  constexpr std::size_t kLine = 56, kLines = 4;
  std::string out, line;
  std::size_t lines = 0, i = 0;
  while (i < pattern.size()) {
    std::size_t next = std::min(pattern.find(" > ", i), pattern.find(" | ", i));
    const std::size_t end = next == std::string::npos ? pattern.size() : next + 3;
    const std::string piece = pattern.substr(i, end - i);
    if (!line.empty() && line.size() + piece.size() > kLine) {
      if (++lines == kLines) return out + line + "...";
      out += line + "\n";
      line.clear();
    }
    line += piece;
    i = end;
  }
  return out + clip(line, kLine + 8);
}

// The trip count of a WHILE node per replay: the runs of its body's timed nodes (the most of
// them, so a body node that a branch skips does not count); 0 when none of them is timed.
double loop_runs(const GraphModel& m, const GraphNode& n, const NodeTimes& times) {
  double runs = 0;
  for (const GraphId g : n.child_graphs)
    if (const GraphCluster* c = m.cluster(g))
      for (std::size_t i : c->nodes) {
        const auto it = times.by_node.find(m.nodes[i].dot_name);
        if (it != times.by_node.end()) runs = std::max(runs, it->second.runs);
      }
  return runs;
}

std::string runs_text(double runs) { return strf(runs == std::floor(runs) ? "%.0f" : "%.1f", runs); }

std::string node_label(const GraphModel& m, const GraphNode& n, const NodeTimes* times, double time_ns) {
  std::string s = "#" + std::to_string(n.index) + " " + display_name(n);
  switch (n.kind) {
    case NodeKind::kKernel:
      if (n.launch) s += "\n<<<" + n.launch->text + ">>>";
      break;
    case NodeKind::kMemcpy:
    case NodeKind::kMemset:
    case NodeKind::kMemAlloc:
      if (n.bytes) s += "\n" + format_bytes(*n.bytes);
      break;
    case NodeKind::kChildGraph:
    case NodeKind::kConditional:
      for (std::size_t k = 0; k < n.child_graphs.size() && k < 4; ++k)
        s += (k ? ", " : "\nruns ") + ("graph_" + std::to_string(n.child_graphs[k]));
      break;
    default: break;
  }
  if (times != nullptr && n.kind == NodeKind::kConditional && n.conditional_type == "WHILE") {
    const double runs = loop_runs(m, n, *times);
    if (runs > 0) s += "\n" + runs_text(runs) + " iterations per replay";
  }
  if (times != nullptr && time_ns >= 0) {
    s += "\n" + format_ns(time_ns);
    const auto it = times->by_node.find(n.dot_name);
    if (it != times->by_node.end() && it->second.from_gap)
      s += n.kind == NodeKind::kConditional ? " per replay\n(GPU idle between iterations)" : " (GPU idle gap)";
    if (it != times->by_node.end() && it->second.run_median_ns >= 0)
      s += " per replay\n(" + runs_text(it->second.runs) + " runs x " + format_ns(it->second.run_median_ns) + ")";
  }
  return s;
}

std::string box_label(const GraphModel& m, const Work& b, const NodeTimes* times, double time_ns) {
  const std::size_t count = b.members.size();
  if (count == 1) return node_label(m, m.nodes[b.members[0]], times, time_ns);
  std::string s;
  if (!b.mixed) {
    const GraphNode& first = m.nodes[b.members[0]];
    s = display_name(first) + "\n";
    if (b.in_a_row > 1 && b.side_by_side > 1) s += strf("%zu branches x %zu in a row", b.side_by_side, b.in_a_row);
    else if (b.in_a_row > 1) s += strf("x%s in a row", group_digits(b.in_a_row).c_str());
    else s += strf("x%s side by side", group_digits(b.side_by_side).c_str());
    // A launch configuration or size that all members share is worth a line.
    bool same_cfg = first.launch.has_value(), same_bytes = first.bytes.has_value();
    for (std::size_t i : b.members) {
      const GraphNode& n = m.nodes[i];
      same_cfg = same_cfg && n.launch && n.launch->text == first.launch->text;
      same_bytes = same_bytes && n.bytes && *n.bytes == *first.bytes;
    }
    if (first.kind == NodeKind::kKernel && same_cfg) s += "\n<<<" + first.launch->text + ">>>";
    if (first.kind != NodeKind::kKernel && same_bytes) s += "\n" + format_bytes(*first.bytes) + " each";
  } else if (b.periodic) {
    s = strf("%s nodes: x%zu repeats of\n", group_digits(count).c_str(), b.in_a_row) + pattern_lines(b.pattern);
  } else {
    s = group_digits(count) + " nodes\n" + pattern_lines(b.pattern);
  }
  // Runs and repeats cover consecutive nodes; other folds do not, so a range would mislead.
  if (!b.mixed || b.periodic)
    s += "\n#" + std::to_string(m.nodes[b.members.front()].index) + "..#" + std::to_string(m.nodes[b.members.back()].index);
  if (times != nullptr && time_ns >= 0)
    s += "\n" + format_ns(time_ns) + strf(" summed (%s per node)", format_ns(time_ns / static_cast<double>(count)).c_str());
  return s;
}

std::string box_tooltip(const GraphModel& m, const Work& b) {
  std::string s;
  for (std::size_t k = 0; k < b.members.size() && k < 6; ++k) {
    const GraphNode& n = m.nodes[b.members[k]];
    // Names of templates reach kilobytes (10 kB CUTLASS kernels): a tooltip line stays readable.
    s += (k ? "\n" : "") + clip(n.dot_name + ": " + (n.demangled.empty() ? n.type_text : n.demangled), kMaxTooltipChars);
  }
  if (b.members.size() > 6) s += strf("\n... %zu more", b.members.size() - 6);
  return s;
}

// Boxes in topological order (Kahn); empty when the links form a cycle (they never should).
std::vector<std::size_t> topo_order(std::size_t boxes, const std::vector<ViewEdge>& edges) {
  std::vector<std::vector<std::size_t>> out(boxes);
  std::vector<std::size_t> indeg(boxes, 0), order, ready;
  for (const ViewEdge& e : edges) {
    out[e.from].push_back(e.to);
    ++indeg[e.to];
  }
  for (std::size_t b = boxes; b-- > 0;)
    if (indeg[b] == 0) ready.push_back(b);
  while (!ready.empty()) {
    const std::size_t b = ready.back();
    ready.pop_back();
    order.push_back(b);
    for (std::size_t s : out[b])
      if (--indeg[s] == 0) ready.push_back(s);
  }
  if (order.size() != boxes) order.clear();
  return order;
}

// Leaves out every link a -> c for which a longer path a -> ... -> c exists: reachability
// bitsets over the boxes, filled in reverse topological order (boxes are few after folding).
// Critical links stay whatever they imply.
std::vector<ViewEdge> transitive_reduction(std::size_t boxes, const std::vector<ViewEdge>& edges) {
  const std::vector<std::size_t> order = topo_order(boxes, edges);
  if (order.empty()) return edges;
  std::vector<std::size_t> rank(boxes, 0);
  for (std::size_t k = 0; k < order.size(); ++k) rank[order[k]] = k;
  std::vector<std::vector<std::size_t>> out(boxes);  // indices into `edges`
  for (std::size_t i = 0; i < edges.size(); ++i) out[edges[i].from].push_back(i);
  const std::size_t words = (boxes + 63) / 64;
  std::vector<std::uint64_t> reach(boxes * words, 0);  // reach[b]: boxes reachable from b, b excluded
  std::vector<char> keep(edges.size(), 0);
  std::vector<std::uint64_t> covered(words);
  for (std::size_t k = order.size(); k-- > 0;) {
    const std::size_t b = order[k];
    auto& outs = out[b];
    std::sort(outs.begin(), outs.end(), [&](std::size_t x, std::size_t y) { return rank[edges[x].to] < rank[edges[y].to]; });
    std::fill(covered.begin(), covered.end(), 0);
    for (std::size_t i : outs) {
      const std::size_t s = edges[i].to;
      const bool implied = (covered[s / 64] >> (s % 64)) & 1;
      keep[i] = !implied || edges[i].critical;
      if (implied) continue;
      covered[s / 64] |= std::uint64_t{1} << (s % 64);
      for (std::size_t w = 0; w < words; ++w) covered[w] |= reach[s * words + w];
    }
    std::copy(covered.begin(), covered.end(), reach.begin() + static_cast<std::ptrdiff_t>(b * words));
  }
  std::vector<ViewEdge> kept;
  for (std::size_t i = 0; i < edges.size(); ++i)
    if (keep[i]) kept.push_back(edges[i]);
  return kept;
}

// Keeps the links a picture can carry: critical ones, then for every box the link from its
// latest predecessor (so nothing floats free), then others in order, up to `budget`.
std::vector<ViewEdge> links_within_budget(std::size_t boxes, const std::vector<ViewEdge>& edges, std::size_t budget) {
  const std::vector<std::size_t> order = topo_order(boxes, edges);
  std::vector<std::size_t> rank(boxes, 0);
  for (std::size_t k = 0; k < order.size(); ++k) rank[order[k]] = k;
  std::vector<std::size_t> latest_in(boxes, SIZE_MAX);
  for (std::size_t i = 0; i < edges.size(); ++i) {
    std::size_t& l = latest_in[edges[i].to];
    if (l == SIZE_MAX || rank[edges[i].from] > rank[edges[l].from]) l = i;
  }
  std::vector<char> keep(edges.size(), 0);
  std::size_t n = 0;
  for (std::size_t i = 0; i < edges.size(); ++i)
    if (edges[i].critical) keep[i] = 1, ++n;
  for (std::size_t b = 0; b < boxes; ++b)
    if (latest_in[b] != SIZE_MAX && !keep[latest_in[b]] && n < budget) keep[latest_in[b]] = 1, ++n;
  for (std::size_t i = 0; i < edges.size() && n < budget; ++i)
    if (!keep[i]) keep[i] = 1, ++n;
  std::vector<ViewEdge> kept;
  for (std::size_t i = 0; i < edges.size(); ++i)
    if (keep[i]) kept.push_back(edges[i]);
  return kept;
}

// build_view, step by step: the folding, the boxes and their colours, the links, the clusters of
// child graphs and conditional bodies, the title and legend.
class ViewBuilder {
 public:
  ViewBuilder(const GraphModel& model, const GraphMetrics& metrics, const NodeTimes* times, const ViewOptions& options)
      : m_(model), metrics_(metrics), times_(times), options_(options), f_{model, {}} {}

  GraphView build() {
    v_.source = m_.source;
    f_.init();
    fold_boxes();
    index_boxes();
    add_boxes();
    colour_boxes();
    add_links();
    keep_links_drawable();
    add_clusters();
    // Whatever the dump: bounded boxes, frames and links for the layout (view_bounds.hpp).
    detail::bound_drawing(v_, m_, {options_.max_drawn_boxes, options_.max_drawn_clusters, kMaxBodyLinks});
    add_title();
    return std::move(v_);
  }

 private:
  // Automatic folding for pictures that would be too big to read: many nodes, a tall chain or a
  // wide fan-out.
  void fold_boxes() {
    const bool big = m_.nodes.size() > options_.auto_collapse_nodes || metrics_.depth > options_.auto_collapse_depth ||
                     metrics_.max_parallelism > options_.auto_collapse_width;
    bool fold = options_.collapse == CollapseMode::kOn || (options_.collapse == CollapseMode::kAuto && big);
    if (!fold && m_.nodes.size() > options_.max_drawn_boxes) {
      fold = true;
      v_.simplified.push_back("folded although every node was asked for: " + group_digits(m_.nodes.size()) +
                              " nodes is more than the " + group_digits(options_.max_drawn_boxes) +
                              " boxes a layout finishes in seconds");
    }
    ViewOptions fold_options = options_;
    fold_options.max_boxes = std::min(options_.max_boxes, options_.max_drawn_boxes);
    if (fold) f_.fold(fold_options);
    v_.collapsed = fold && f_.alive_count() < m_.nodes.size();
    v_.heat_map = times_ != nullptr;
  }

  // Boxes, in the order of their first member so the output is stable.
  void index_boxes() {
    for (std::size_t b = 0; b < f_.w.size(); ++b)
      if (f_.w[b].alive) order_.push_back(b);
    box_of_work_.assign(f_.w.size(), 0);
    box_of_node_.assign(m_.nodes.size(), 0);
    for (std::size_t k = 0; k < order_.size(); ++k) {
      box_of_work_[order_[k]] = k;
      for (std::size_t i : f_.w[order_[k]].members) box_of_node_[i] = k;
    }
  }

  // A box per folder entry, with its time where times were given.
  void add_boxes() {
    for (std::size_t b : order_) {
      const Work& w = f_.w[b];
      ViewBox box;
      box.members = w.members;
      box.kind = w.mixed ? NodeKind::kOther : w.kind;
      box.mixed = w.mixed;
      box.in_a_row = w.in_a_row;
      box.side_by_side = w.side_by_side;
      box.graph_id = w.graph_id;
      if (times_ != nullptr) {
        for (std::size_t i : w.members) {
          const auto it = times_->by_node.find(m_.nodes[i].dot_name);
          if (it == times_->by_node.end()) continue;
          box.time_ns = (box.time_ns < 0 ? 0 : box.time_ns) + it->second.median_ns;
          ++box.timed;
        }
        // A folded box is coloured by its own figure (time per node), not by its sum: a box of
        // 1,000 tiny kernels is not one hot node.
        if (box.timed > 0) box.node_time_ns = box.time_ns / static_cast<double>(box.timed);
      }
      box.label = box_label(m_, w, times_, box.time_ns);
      box.tooltip = box_tooltip(m_, w);
      v_.boxes.push_back(std::move(box));
    }
  }

  // The median timed node (each box counts for the nodes it times) anchors the colour scale.
  void colour_boxes() {
    std::vector<std::pair<double, std::size_t>> figures;
    for (const ViewBox& box : v_.boxes) figures.emplace_back(box.node_time_ns, box.timed);
    spread_ = node_time_spread(std::move(figures));
    const double median = spread_.median_ns;
    for (ViewBox& box : v_.boxes) {
      if (!v_.heat_map) {
        box.fill = box.mixed ? "#eef2f7" : kind_fill(box.kind);
      } else if (box.node_time_ns < 0 || spread_.max_ns <= 0) {
        box.fill = kUntimedFill;
      } else {
        box.fill = kHeat[heat_step(box.node_time_ns, median)];
      }
    }
    v_.heat = spread_;
  }

  // Links between boxes, deduplicated, and the critical path.
  void add_links() {
    // Links between boxes, deduplicated.
    std::set<std::pair<std::size_t, std::size_t>> seen;
    for (std::size_t b : order_)
      for (std::size_t s : f_.w[b].out)
        if (seen.emplace(box_of_work_[b], box_of_work_[s]).second)
          v_.edges.push_back(ViewEdge{box_of_work_[b], box_of_work_[s], false, false});

    // Critical path: timed when times were given, by node count otherwise.
    const CriticalPath& cp = metrics_.timed_critical_path ? *metrics_.timed_critical_path : metrics_.critical_path;
    std::set<std::pair<std::size_t, std::size_t>> critical_links;
    for (std::size_t k = 0; k < cp.nodes.size(); ++k) {
      if (cp.nodes[k] >= m_.nodes.size()) continue;
      v_.boxes[box_of_node_[cp.nodes[k]]].critical = true;
      if (k + 1 < cp.nodes.size() && cp.nodes[k + 1] < m_.nodes.size())
        critical_links.emplace(box_of_node_[cp.nodes[k]], box_of_node_[cp.nodes[k + 1]]);
    }
    for (ViewEdge& e : v_.edges) e.critical = critical_links.count({e.from, e.to}) > 0;
  }

  // Dense graphs: too many links for a layout in seconds (and for anyone to follow).
  void keep_links_drawable() {
    v_.links_in_dump = v_.edges.size();
    if (v_.edges.size() > options_.max_drawn_edges) {
      v_.edges = transitive_reduction(v_.boxes.size(), v_.edges);
      if (v_.edges.size() < v_.links_in_dump)
        v_.simplified.push_back("links implied by a longer path are not drawn (transitive reduction): " +
                                group_digits(v_.links_in_dump) + " links -> " + group_digits(v_.edges.size()));
    }
    if (v_.edges.size() > options_.max_drawn_edges) {
      const std::size_t before = v_.edges.size();
      v_.edges = links_within_budget(v_.boxes.size(), v_.edges, options_.max_drawn_edges);
      v_.simplified.push_back(group_digits(before - v_.edges.size()) + " more links are not drawn (budget " +
                              group_digits(options_.max_drawn_edges) +
                              "; every box keeps its link from its latest predecessor and the critical path is whole)");
    }
  }

  // Child graphs and conditional bodies: a cluster each, linked from the node that runs it.
  void add_clusters() {
    std::vector<std::vector<std::size_t>> preds(m_.nodes.size());
    for (const auto& e : m_.edges)
      if (m_.nodes[e.from].graph_id == m_.nodes[e.to].graph_id) preds[e.to].push_back(e.from);
    for (const GraphCluster& c : m_.clusters) {
      if (!c.parent_node) continue;
      ViewCluster vc;
      vc.graph_id = c.graph_id;
      const GraphNode& parent = m_.nodes[*c.parent_node];
      const std::string what = parent.kind == NodeKind::kConditional
                                   ? (parent.conditional_type.empty() ? "conditional" : parent.conditional_type) + " body"
                                   : "child graph";
      vc.title = "graph_" + std::to_string(c.graph_id) + ": " + what + " of " + parent.dot_name;
      std::set<std::size_t> boxes;
      for (std::size_t i : c.nodes) boxes.insert(box_of_node_[i]);
      vc.boxes.assign(boxes.begin(), boxes.end());
      std::size_t linked = 0;
      for (std::size_t b : vc.boxes) {
        bool root = true;
        for (std::size_t i : v_.boxes[b].members)
          for (std::size_t p : preds[i])
            if (box_of_node_[p] != b) root = false;
        if (root && linked++ < kMaxBodyLinks)
          v_.edges.push_back(ViewEdge{box_of_node_[*c.parent_node], b, false, true});
      }
      v_.clusters.push_back(std::move(vc));
    }
  }

  // Title and legend.
  void add_title() {
    const std::string file = std::filesystem::path(m_.source).filename().string();
    v_.title = file + ":  " + group_digits(metrics_.node_count) + " nodes, " + group_digits(metrics_.edge_count) +
               " edges, depth " + std::to_string(metrics_.depth) + ", max parallelism " +
               std::to_string(metrics_.max_parallelism);
    if (v_.collapsed)
      v_.title += "\nfolded into " + plural(v_.boxes.size(), "box", "boxes") +
                  " (xN = nodes folded)";
    for (const std::string& s : v_.simplified) v_.title += "\nsimplified: " + s;
    if (v_.heat_map) {
      const std::string what = times_->trace_slowdown
                                   ? strf("traced time (CUPTI, %.2fx slower than untraced)", *times_->trace_slowdown)
                                   : std::string("traced time (CUPTI)");
      v_.title += "\ncolour: " + what + " per node and replay, " +
                  (spread_.within_2x
                       ? none_stands_out_text(spread_)
                       : "steps at 0.5x, 2x, 4x, 10x, 30x and 100x the median node (" + format_ns(spread_.median_ns) + ")") +
                  "; folded boxes: mean per node";
      bool host_gaps = false, loop_gaps = false, loops = false;
      for (const auto& n : m_.nodes) {
        const auto it = times_->by_node.find(n.dot_name);
        if (it == times_->by_node.end()) continue;
        host_gaps = host_gaps || (it->second.from_gap && n.kind == NodeKind::kHost);
        loop_gaps = loop_gaps || (it->second.from_gap && n.kind == NodeKind::kConditional);
        loops = loops || it->second.runs != 1;
      }
      if (loops) v_.title += "; loop bodies: summed over their runs";
      if (loop_gaps) v_.title += "; WHILE nodes: the GPU's idle time between iterations";
      if (host_gaps) v_.title += "; host nodes: the GPU's idle gap after them";
      v_.title += "\n" + times_->origin + "; blue outline: timed critical path";
      heat_legend(v_, spread_);
    } else {
      v_.title += "\nblue outline: critical path (by node count)";
      std::set<NodeKind> kinds;
      for (const auto& n : m_.nodes) kinds.insert(n.kind);
      for (NodeKind k : kinds) v_.legend.push_back({to_string(k), kind_fill(k)});
      bool any_mixed = false;
      for (const auto& b : v_.boxes) any_mixed = any_mixed || b.mixed;
      if (any_mixed) v_.legend.push_back({"folded mix", "#eef2f7"});
    }
  }

  const GraphModel& m_;
  const GraphMetrics& metrics_;
  const NodeTimes* times_;
  const ViewOptions& options_;
  Folder f_;
  GraphView v_;
  std::vector<std::size_t> order_;  // the boxes' folder entries, in the order of their first member
  std::vector<std::size_t> box_of_work_, box_of_node_;
  NodeTimeSpread spread_;  // of the boxes' times per node
};

}  // namespace

GraphView build_view(const GraphModel& model, const GraphMetrics& metrics, const NodeTimes* times,
                     const ViewOptions& options) {
  return ViewBuilder(model, metrics, times, options).build();
}

}  // namespace gp
