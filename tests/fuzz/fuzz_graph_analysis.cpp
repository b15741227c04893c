// libFuzzer target: DOT text -> load -> analyze -> JSON and text -> the folded view (what
// `analyze` and `render` do before Graphviz lays anything out). A loaded model must analyse
// without any error, its JSON must serialise (valid UTF-8), and the view must be consistent.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "graphprof/core/error.hpp"
#include "graphprof/graph/graph_analysis.hpp"
#include "graphprof/report/graph_analysis_text.hpp"
#include "graphprof/graph/graph_model.hpp"
#include "graphprof/graph/graph_view.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  gp::GraphModel model;
  try {
    model = gp::load_dot_text(text, "fuzz.dot");
  } catch (const gp::Error& e) {
    if (e.code() != gp::ExitCode::kBadInput) std::abort();
    return 0;
  }
  const gp::GraphMetrics m = gp::analyze(model);
  const std::string json = gp::to_json(m).dump(2);  // throws on invalid UTF-8
  const std::string txt = gp::analysis_text(m);
  if (json.empty() || txt.empty() || m.node_count != model.nodes.size()) std::abort();
  gp::ViewOptions o;
  o.collapse = gp::CollapseMode::kOn;
  o.max_boxes = 8;
  std::vector<gp::GraphView> views;
  for (const gp::ViewOptions& options : {gp::ViewOptions{}, o}) {
    try {
      views.push_back(gp::build_view(model, m, nullptr, options));
    } catch (const gp::Error& e) {  // too big to draw even folded: refused, not drawn
      if (e.code() != gp::ExitCode::kBadInput) std::abort();
    }
  }
  for (const gp::GraphView& v : views) {
    std::size_t members = 0;
    for (const auto& b : v.boxes) members += b.members.size();
    if (members != model.nodes.size()) std::abort();
    for (const auto& e : v.edges)
      if (e.from >= v.boxes.size() || e.to >= v.boxes.size()) std::abort();
  }
  return 0;
}
