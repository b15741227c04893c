// Drawing a GraphView with Graphviz, in process: layout "dot", output PNG, SVG or PDF.
// src/graph/graph_render.cpp is the only file that includes gvc.h.
#pragma once
#include <string>
#include <vector>

#include "graphprof/graph/graph_view.hpp"

namespace gp {

struct RenderOptions {
  std::string output;  // file to write (atomically)
  std::string format;  // "png", "svg" or "pdf"; empty: from the output's extension
};

struct RenderResult {
  std::string format;
  std::size_t bytes = 0;
  std::vector<std::string> notes;  // Graphviz warnings worth passing on (e.g. a scaled-down bitmap)
};

// The format that `options` asks for: explicit, or the output's extension. Throws
// gp::Error(kUsage) naming the path when neither gives png, svg or pdf.
std::string render_format(const RenderOptions& options);

// Lay out and write the view. Throws gp::Error: kEnvironment when Graphviz lacks the "dot"
// layout or a renderer for the format (with the fix), kBadInput when the output cannot be
// written, kInternal when Graphviz fails otherwise.
// Thread-safe (one render at a time); the process keeps one Graphviz context.
RenderResult render_view(const GraphView& view, const RenderOptions& options);

// The same picture as SVG text in memory (for embedding, e.g. in an HTML report). Graphviz's
// warnings are appended to `notes` when given; view.simplified is the caller's to show.
std::string render_svg(const GraphView& view, std::vector<std::string>* notes = nullptr);

}  // namespace gp
