// The report fields of call sites, eager work by site, ledgers and re-captures
// (docs/report-schema.md, sections.profile.processes[]), filled into the typed section.
// Internal to src/profile.
#pragma once
#include <optional>

#include "graphprof/core/profile_section.hpp"
#include "graphprof/profile/profile.hpp"

namespace gp {

// Null without a site.
ProfileOptional<ProfileSite> profile_site(const std::optional<SiteSummary>& s);
// Fills the per-graph ledger of a graph (graphs[i]).
void add_graph_ledger(ProfileGraph& graph, const GraphLedger& l);
// Fills step, eager_sites, memory, startup, recaptures, late_graphs, exec_updates, set_params.
void add_sites(ProfileProcess& process, const ProcessProfile& p);

}  // namespace gp
