// What `graphprof render` draws, decided without Graphviz: boxes (one node, or a folded run of
// similar nodes), their short labels and colours, links, and clusters for child graphs and
// conditional bodies. src/graph/graph_render.cpp only turns a GraphView into Graphviz calls, so
// the collapsing and labelling are covered by CPU tests.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "graphprof/graph/graph_analysis.hpp"
#include "graphprof/graph/graph_model.hpp"

namespace gp {

struct ViewBox {
  std::vector<std::size_t> members;  // node indices folded into this box (one when not folded)
  NodeKind kind = NodeKind::kOther;
  bool mixed = false;           // a folded run of different nodes (only when similar runs were not enough)
  std::size_t in_a_row = 1;     // nodes one after another
  std::size_t side_by_side = 1; // identical branches folded next to each other
  GraphId graph_id = -1;
  std::string label;      // lines separated by '\n'
  std::string tooltip;    // full names, for SVG
  std::string fill;       // "#rrggbb"
  bool critical = false;  // on the critical path (timed when times were given)
  double time_ns = -1;    // sum of members' median times; -1 when none is timed
  double node_time_ns = -1;  // the box's own figure, what its colour shows: time_ns per timed member
  std::size_t timed = 0;     // members with a time
};

struct ViewEdge {
  std::size_t from = 0, to = 0;  // box indices
  bool critical = false;
  bool runs_body = false;  // dashed link from a child-graph/conditional node to its body's first boxes
};

struct ViewCluster {
  GraphId graph_id = -1;
  std::string title;  // "graph_8: WHILE body of graph_7_node_1"
  std::vector<std::size_t> boxes;
};

struct LegendEntry {
  std::string label, fill;
};

struct GraphView {
  std::vector<ViewBox> boxes;
  std::vector<ViewEdge> edges;
  std::vector<ViewCluster> clusters;  // non-top-level graphs only
  std::vector<LegendEntry> legend;
  std::string title;
  bool collapsed = false;
  bool heat_map = false;
  // Heat map scale: fixed steps relative to the median timed node (0.5x, 2x, 4x, 10x, 30x, 100x),
  // so near-identical nodes share one pale colour whatever their spread; the boxes' figures
  // (a folded box's is its mean per node): median, fastest, slowest, and whether none stands out.
  NodeTimeSpread heat;
  // What the picture leaves out or merges beyond the folding that box labels state (links
  // implied by longer paths, links over the budget, folding despite --no-collapse), one
  // sentence each. Also in the title; `render` repeats them on stderr.
  std::vector<std::string> simplified;
  std::size_t links_in_dump = 0;  // links between boxes before any was left out
  std::string source;             // the dump, for messages (a failed layout names it)
};

enum class CollapseMode { kAuto, kOn, kOff };

struct ViewOptions {
  CollapseMode collapse = CollapseMode::kAuto;
  // kAuto folds graphs with more nodes, more levels or a wider level than these.
  std::size_t auto_collapse_nodes = 200;
  std::size_t auto_collapse_depth = 48;
  std::size_t auto_collapse_width = 24;
  std::size_t max_boxes = 400;            // above this after folding similar runs, fold any long run
  std::size_t min_run = 3;                // shortest run of similar nodes worth folding
  // Hard limits, whatever `collapse` and `max_boxes` say: Graphviz's dot layout grows much faster
  // than linearly, and a picture must come back in seconds. Above max_drawn_boxes nodes the
  // graph is folded anyway; above max_drawn_edges links, links implied by a longer path are
  // left out (transitive reduction), then the rest beyond the budget (each box keeps one link in).
  std::size_t max_drawn_boxes = 1500;
  std::size_t max_drawn_edges = 3000;
  // Cluster frames (child graphs, conditional bodies) handed to the layout; the rest are drawn
  // unframed. Boxes beyond max_drawn_boxes after folding (many graphs, unconnected nodes) fold
  // per graph, then all child graphs into one box; a view still too big is an input_error.
  std::size_t max_drawn_clusters = 64;
};

// Build the picture's content. With `times`, colours show measured time (a heat map) and the
// timed critical path is highlighted; otherwise colours show the node kind and the critical
// path by node count is highlighted.
GraphView build_view(const GraphModel& model, const GraphMetrics& metrics, const NodeTimes* times,
                     const ViewOptions& options = {});

}  // namespace gp
