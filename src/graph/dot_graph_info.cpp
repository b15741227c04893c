// A DOT dump as the trace join sees it (see include/graphprof/graph/dot_graph_info.hpp).
#include "graphprof/graph/dot_graph_info.hpp"

#include <cstdint>
#include <limits>
#include <utility>

namespace gp {

DotGraphInfo dot_graph_info(const GraphModel& dump) {
  DotGraphInfo info;
  // The dumped graph comes first in the file; child graphs and conditional bodies follow.
  if (dump.nodes.empty()) return info;
  const GraphId top = dump.nodes.front().graph_id;
  constexpr auto kMax32 = static_cast<std::int64_t>(std::numeric_limits<std::uint32_t>::max());
  if (top > kMax32) return info;  // CUPTI's graph ids are 32-bit: no trace record can name it
  info.graph_id = static_cast<std::uint32_t>(top);
  for (const GraphNode& n : dump.nodes) {
    if (n.graph_id < 0 || n.graph_id > kMax32 || n.index > kMax32) continue;
    DotNode node;
    switch (n.kind) {
      case NodeKind::kKernel: node.kind = "kernel"; node.name = n.mangled; break;
      case NodeKind::kMemcpy: node.kind = "memcpy"; break;
      case NodeKind::kMemset: node.kind = "memset"; break;
      default: node.kind = n.type_text; break;
    }
    if (n.graph_id != top) {
      info.nested[static_cast<std::uint32_t>(n.graph_id)][static_cast<std::uint32_t>(n.index)] = std::move(node);
      continue;
    }
    info.nodes[static_cast<std::uint32_t>(n.index)] = std::move(node);
  }
  info.found = !info.nodes.empty();
  return info;
}

}  // namespace gp
