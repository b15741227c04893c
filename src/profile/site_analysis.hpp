// Call sites, eager work by site, ledgers and re-captures of one profiled process
// (graphprof/profile/profile_sites.hpp): the part of analyze_process that reads the injection library's
// call-site and ledger lines. Internal to src/profile.
#pragma once
#include <cstdint>
#include <map>
#include <set>
#include <unordered_map>
#include <vector>

#include "graphprof/profile/profile.hpp"

namespace gp {

// What analyze_process already worked out and the site analysis uses.
struct SiteInputs {
  const std::set<std::uint32_t>& captured_calls;  // correlation ids of calls made inside a capture
  const std::map<std::uint32_t, std::vector<const ApiRecord*>>& launches_of_exec;  // sorted by start
  const std::unordered_map<std::uint32_t, const ApiRecord*>& api_by_correlation;
};

// Fills out.sites and the `site` of out.capture_trouble; out.graphs must be complete.
void analyze_sites(const ProcessRecords& p, const SiteInputs& in, ProcessProfile& out);

// A site as the report names it; `kernels` are the short names of the kernels it launched (a
// kernel's host stub is not where the application called). Host-only rules, docs/profile.md.
SiteSummary summarize_site(const CallSiteRecord& site, const std::vector<std::string>& kernels = {});

// What makes captures one site (the re-captures, the step's graphs): the same innermost application
// frame, whatever the library frames below it (CUDA-graph trees capture a new shape through other
// torch code than the first); a site named by nothing keeps its own id.
std::string capture_site_key(const SiteSummary& site);

// Python code that is not the application's (a library's, the standard library's, generated code).
bool library_python(const std::string& file);

// Steps by kind, the eager steps' shapes, the framework's reasons and the capture plan
// (step_kinds.cpp); out.graphs and out.sites (step, ledgers) must be complete.
void analyze_step_kinds(const ProcessRecords& p, const SiteInputs& in, ProcessProfile& out);

// The memory and start-up ledger of each graph and the process totals (graph_ledgers.cpp).
void fill_ledgers(const ProcessRecords& p, const SiteInputs& in, ProcessProfile& out);

}  // namespace gp
