// Figures derived from measured metrics: within one mode (cross-checks, per-node time) and of
// the graph modes against eager (speedups, break-even). Host-only, so a merged report can be
// re-derived without a GPU (merging itself: graphprof/compare/report_merge.hpp).
#pragma once
#include <vector>

#include "graphprof/core/report.hpp"

namespace gp {

// Fills derived figures that need only this mode's own metrics and sections.
void derive_within_mode(ModeResult& res);

// Fills `derived` of each capture/graph result from the eager result with the same workload
// and parameters, and checksum_matches_eager of every result.
void derive_against_eager(std::vector<ModeResult>& results);

}  // namespace gp
