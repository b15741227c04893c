// Structure drift between two results of one benchmark: graph node and edge counts,
// and the output checksum. Drift is reported; it fails only with --fail-on-drift.
#include <string>

#include "comparison_internal.hpp"

namespace gp::compare_detail {

// Structure of a graph: node and edge counts (sections.graph).
void check_drift(const ModeResult& b, const ModeResult& c, const std::string& bench, std::vector<DriftItem>& out) {
  const auto& bg = b.sections.graph;
  const auto& cg = c.sections.graph;
  if (bg && cg) {
    // 0 is what a dump without counts reads as: unknown, not a change.
    const auto count = [&](const char* key, int bv, int cv) {
      if (bv != 0 && cv != 0 && bv != cv)
        out.push_back({bench, std::string("graph ") + key + " " + std::to_string(bv) + " -> " + std::to_string(cv)});
    };
    count("edges", bg->edges, cg->edges);
    count("nodes", bg->nodes, cg->nodes);
  } else if (bg && !cg && bg->nodes > 0) {
    out.push_back({bench, "the candidate recorded no graph structure"});
  }
  if (!b.checksum.empty() && !c.checksum.empty() && b.checksum != c.checksum)
    out.push_back({bench, "output checksum " + b.checksum + " -> " + c.checksum});
}

}  // namespace gp::compare_detail
