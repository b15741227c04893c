// The Graphviz layout in a process of its own (graph_render.cpp renders through it).
// Graphviz's dot layout recurses and allocates without bounds of its own, and a crash inside it
// (stack overflow, an abort on a failed allocation) would end graphprof. The view is already
// bounded (graph_view.hpp); the layout still runs in a child process (fork) with a memory and CPU
// limit, and hands back the rendered bytes through a pipe. A child that dies or exits is a
// layout failure of that dump (exit 3 naming it), never a crash of graphprof.
// Internal to src/graph; no Graphviz header here: graph_render.cpp, the one Graphviz TU, passes
// the function that renders.
#pragma once
#include <string>
#include <vector>

#include "graphprof/graph/graph_view.hpp"

namespace gp::detail {

// Lays out `view` and renders it as `format` into memory; appends Graphviz's warnings to `notes`.
using RenderBytes = std::string (*)(const GraphView& view, const std::string& format, bool core_only,
                                   std::vector<std::string>& notes);

// `render` run in a child process with a memory and CPU limit: its bytes, its notes appended to
// `notes`. What fails there is thrown here: the error `render` threw, input_error naming the view's
// source when the child died or exited. `hit_limits` is set when the layout process ran out of
// memory or CPU time: drawing it again would only meet the same limits.
std::string render_in_child(const GraphView& view, const std::string& format, bool core_only, RenderBytes render,
                            std::vector<std::string>& notes, bool& hit_limits);

}  // namespace gp::detail
