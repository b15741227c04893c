// The per-process and per-graph fields of sections.profile that the cross-rank view reads
// (docs/report-schema.md): rank identity, host, GPUs, kernel signature, collectives.
#pragma once
#include "graphprof/core/profile_section.hpp"
#include "graphprof/profile/profile.hpp"

namespace gp {

void add_process_rank_fields(ProfileProcess& process, const ProcessProfile& p);
void add_graph_rank_fields(ProfileGraph& graph, const GraphProfile& g);

}  // namespace gp
