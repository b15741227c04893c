// libFuzzer target: the renderer's input stage, model -> view -> what the layout gets. The bytes
// drive a generator of dumps in the driver's format (many graphs, unconnected nodes, links, child
// graphs nested or not), which folding alone cannot shrink; build_view with small bounds must
// hand the layout at most that many boxes, frames and links, every node in exactly one box and
// every index in range, or refuse with a bad-input error. Graphviz itself is not called.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "graphprof/core/error.hpp"
#include "graphprof/graph/graph_analysis.hpp"
#include "graphprof/graph/graph_model.hpp"
#include "graphprof/graph/graph_view.hpp"

namespace {

const char* const kNames[] = {"_Z1av", "_Z1bv", "_Z1cv", "?", "memset", "host"};

std::string node(int g, int i, std::uint8_t what, int child) {
  const std::string name = "\"graph_" + std::to_string(g) + "_node_" + std::to_string(i) + "\"";
  if (child > 0)
    return name + "[shape=\"record\" label=\"{\nCHILD_GRAPH\n| {ID | " + std::to_string(i) + "}\n| graph_" +
           std::to_string(child) + "\n}\n\"];\n";
  return name + "[shape=\"octagon\" label=\"" + std::to_string(i) + "\n" + kNames[what % 6] + "\n\"];\n";
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  // Byte 0: graphs (1..64); then per step 2 bytes: (op, arg).
  const int graphs = 1 + data[0] % 64;
  std::vector<int> nodes(static_cast<std::size_t>(graphs) + 1, 0);
  std::vector<std::string> body(static_cast<std::size_t>(graphs) + 1), links(static_cast<std::size_t>(graphs) + 1);
  for (std::size_t k = 1; k + 1 < size && k < 8000; k += 2) {
    const int g = 1 + data[k] % graphs;
    const std::uint8_t op = data[k] >> 6, arg = data[k + 1];
    auto& n = nodes[static_cast<std::size_t>(g)];
    if (op == 0 || n == 0) {  // a node (op 3: runs a later graph, a chain of nesting)
      body[static_cast<std::size_t>(g)] += node(g, n++, arg, 0);
    } else if (op == 1 && n >= 2) {  // a link between two nodes of g, earlier to later
      const int a = arg % (n - 1), b = a + 1 + (arg / 7) % (n - a - 1 > 0 ? n - a - 1 : 1);
      if (b < n)
        links[static_cast<std::size_t>(g)] += "\"graph_" + std::to_string(g) + "_node_" + std::to_string(a) + "\" -> \"graph_" +
                                              std::to_string(g) + "_node_" + std::to_string(b) + "\";\n";
    } else if (op == 2) {  // many nodes at once
      for (int r = 0; r < 1 + arg % 64; ++r) body[static_cast<std::size_t>(g)] += node(g, n++, arg, 0);
    } else if (g < graphs) {
      body[static_cast<std::size_t>(g)] += node(g, n++, arg, g + 1);
    }
  }
  std::string dot = "digraph dot {\n";
  for (int g = 1; g <= graphs; ++g)
    if (nodes[static_cast<std::size_t>(g)] > 0)
      dot += "subgraph cluster_" + std::to_string(g) + " {\n" + body[static_cast<std::size_t>(g)] +
             links[static_cast<std::size_t>(g)] + "}\n";
  dot += "}\n";
  gp::GraphModel model;
  try {
    model = gp::load_dot_text(dot, "fuzz.dot");
  } catch (const gp::Error& e) {
    if (e.code() != gp::ExitCode::kBadInput) std::abort();
    return 0;
  }
  const gp::GraphMetrics metrics = gp::analyze(model);
  gp::ViewOptions o;
  o.max_drawn_boxes = 12;
  o.max_drawn_clusters = 3;
  o.max_drawn_edges = 20;
  o.max_boxes = 12;
  for (const gp::CollapseMode mode : {gp::CollapseMode::kAuto, gp::CollapseMode::kOff}) {
    o.collapse = mode;
    gp::GraphView v;
    try {
      v = gp::build_view(model, metrics, nullptr, o);
    } catch (const gp::Error& e) {
      if (e.code() != gp::ExitCode::kBadInput) std::abort();
      continue;
    }
    if (v.boxes.size() > o.max_drawn_boxes || v.clusters.size() > o.max_drawn_clusters) std::abort();
    if (v.edges.size() > o.max_drawn_edges + 4 * (v.clusters.empty() ? 1 : v.clusters.size())) std::abort();
    std::vector<int> seen(model.nodes.size(), 0);
    for (const auto& b : v.boxes)
      for (std::size_t i : b.members) {
        if (i >= model.nodes.size() || seen[i]++) std::abort();
      }
    for (int s : seen)
      if (s != 1) std::abort();
    for (const auto& e : v.edges)
      if (e.from >= v.boxes.size() || e.to >= v.boxes.size()) std::abort();
    for (const auto& c : v.clusters)
      for (std::size_t b : c.boxes)
        if (b >= v.boxes.size()) std::abort();
  }
  return 0;
}
