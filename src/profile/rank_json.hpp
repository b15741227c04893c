// The per-process and per-graph fields of sections.profile that the cross-rank view reads
// (docs/report-schema.md): rank identity, host, GPUs, kernel signature, collectives.
#pragma once
#include <nlohmann/json.hpp>

#include "graphprof/profile/profile.hpp"

namespace gp {

void add_process_rank_fields(nlohmann::json& process, const ProcessProfile& p);
void add_graph_rank_fields(nlohmann::json& graph, const GraphProfile& g);

}  // namespace gp
