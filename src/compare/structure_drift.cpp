// Structure drift between two results of one benchmark: graph node, edge and per-kind counts,
// and the output checksum. Drift is reported; it fails only with --fail-on-drift.
#include <set>

#include "comparison_internal.hpp"

namespace gp::compare_detail {

// Structure of a graph: node and edge counts, and any per-kind counts a run recorded.
void check_drift(const ModeResult& b, const ModeResult& c, const std::string& bench, std::vector<DriftItem>& out) {
  const auto graph_of = [](const ModeResult& r) -> const nlohmann::json* {
    if (!r.sections.is_object() || !r.sections.contains("graph")) return nullptr;
    const auto& g = r.sections.at("graph");
    return g.is_object() ? &g : nullptr;
  };
  const nlohmann::json* bg = graph_of(b);
  const nlohmann::json* cg = graph_of(c);
  if (bg && cg) {
    std::set<std::string> keys;
    for (auto it = bg->begin(); it != bg->end(); ++it) keys.insert(it.key());
    for (auto it = cg->begin(); it != cg->end(); ++it) keys.insert(it.key());
    for (const auto& key : keys) {
      const bool counted = key == "nodes" || key == "edges";
      const bool kinds = key.find("kind") != std::string::npos;
      if (!counted && !kinds) continue;
      const nlohmann::json bv = bg->contains(key) ? bg->at(key) : nlohmann::json();
      const nlohmann::json cv = cg->contains(key) ? cg->at(key) : nlohmann::json();
      if (bv.is_null() || cv.is_null() || bv == cv) continue;
      out.push_back({bench, "graph " + key + " " + bv.dump() + " -> " + cv.dump()});
    }
  } else if (bg && !cg && (bg->contains("nodes"))) {
    out.push_back({bench, "the candidate recorded no graph structure"});
  }
  if (!b.checksum.empty() && !c.checksum.empty() && b.checksum != c.checksum)
    out.push_back({bench, "output checksum " + b.checksum + " -> " + c.checksum});
}

}  // namespace gp::compare_detail
