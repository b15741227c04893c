// The trace join's view of a DOT dump: which nodes of the dumped graph (and of its child graphs and
// conditional bodies) CUPTI's records can name, read from a GraphModel. It lives with the graph
// loader so the trace layer needs no graph type. src/graph/dot_graph_info.cpp.
#pragma once
#include "graphprof/graph/graph_model.hpp"
#include "graphprof/trace/trace_analysis.hpp"

namespace gp {

// The dumped graph's nodes from a dump read by the graph loader (load_dot in graph_model.hpp, the
// one DOT reader), default or verbose form.
DotGraphInfo dot_graph_info(const GraphModel& dump);

}  // namespace gp
