// The hard bounds on a picture (graph_view.cpp calls this last): however the dump is shaped,
// the layout gets at most `max_boxes` boxes, `max_clusters` cluster frames (flat: frames are
// never nested in the layout, so nesting depth cannot reach Graphviz's recursion), the link
// budget of build_view plus a few links per frame to the bodies they run, and labels clipped
// by build_view. Beyond the boxes, unconnected nodes, then each child graph, then all child
// graphs fold into one box each (each step a `simplified` line); still too many: input_error.
#pragma once
#include <cstddef>

#include "graphprof/graph/graph_model.hpp"
#include "graphprof/graph/graph_view.hpp"

namespace gp::detail {

struct DrawingBounds {
  std::size_t max_boxes = 1500;
  std::size_t max_clusters = 64;
  std::size_t max_body_links_per_cluster = 4;
};

void bound_drawing(GraphView& v, const GraphModel& m, const DrawingBounds& bounds);

}  // namespace gp::detail
