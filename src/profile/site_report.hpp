// The report fields of call sites, eager work by site, ledgers and re-captures
// (docs/report-schema.md, sections.profile.processes[]). Internal to src/profile.
#pragma once
#include <nlohmann/json.hpp>

#include "graphprof/profile/profile.hpp"

namespace gp {

nlohmann::json site_json(const std::optional<SiteSummary>& s);
// Adds the per-graph ledger to a graph's object (graphs[i]).
void add_graph_ledger_json(nlohmann::json& graph, const GraphLedger& l);
// Adds step, eager_sites, memory, startup, recaptures, late_graphs, exec_updates, set_params.
void add_sites_json(nlohmann::json& process, const ProcessProfile& p);

}  // namespace gp
