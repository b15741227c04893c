// Figures derived from a report's profile section (sections.profile, docs/profile.md), read typed
// (graphprof/core/profile_section.hpp) by the console, the page (src/report) and compare's
// graph-health view (src/compare): the runs, a process's steps, a run's totals, a graph's site,
// memory and making time. Fields a report lacks read as the section reads them (numbers NaN,
// strings empty, lists empty).
#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "graphprof/core/profile_section.hpp"
#include "graphprof/core/report.hpp"

namespace gp::profile_fields {

// The application's result of a profile's report (mode app, no params, sections.profile), or
// nullptr when `r` is not a profile's report.
const ModeResult* app_result(const Report& r);
// sections.profile of that result; nullptr when `r` is not a profile's report.
const ProfileSection* typed_section(const Report& r);

// Every run: sections.profile.runs (profile --repeat, or pooled reports), else the one run the
// section itself describes (its processes, exit status and wall time).
std::vector<const ProfileAppRun*> runs(const ProfileSection& profile);

// Where a graph was made ("file.py:42 in capture", "app.cu:80"), empty when the report has none.
std::string graph_site(const ProfileGraph& graph);
// Device memory the graph holds by its own allocations (capture allocations, VMM, memory nodes);
// NaN when the report has no memory ledger.
double graph_memory_bytes(const ProfileGraph& graph);
// Time spent making the graph: capture (when recorded) + instantiate + upload.
double graph_making_ns(const ProfileGraph& graph);

// Steps of a process: the report's own count (its step definition) when it has one, else the
// launches of the most-launched graph. 0 when no graph was launched.
struct Steps {
  double count = 0;
  std::string from;        // what a step is ("one launch of graph_4", an NVTX range, ...)
  double exec = -1;        // the exec that marks steps, when one does
};
Steps steps(const ProfileProcess& process);

// Graphs instantiated after the process's first graph replay (re-captures and late captures).
std::size_t late_graphs(const ProfileProcess& process);

// One run's figures summed over its processes (a run: an element of runs(), or the section itself).
struct RunTotals {
  double graph_kernel_ns = 0, eager_kernel_ns = 0, graph_kernels = 0, eager_kernels = 0;
  double graph_launches = 0, eager_launches = 0, syncs = 0, steps = 0, graphs = 0, capture_failures = 0, late_graphs = 0;
  bool kernel_records = false;  // some process has node-level coverage (kernel records)
  // The graphs' GPU time: each launched graph's median GPU time per launch times its launches (NaN
  // when graphs without a GPU time make up more than 5 % of the launches: a level without it; fewer,
  // warm-up graphs launched once, are left out); the steps' span on the host clock
  // (first step's start to the last one's end, summed over processes; 0 without steps).
  double graph_gpu_ns = 0, step_span_ns = 0;
  // Nodes the graph launches ran (each graph's nodes times its launches): exact at every level.
  double graph_node_runs = 0;
  // The same in the steady state (coverage.steady of every process that launched a graph; false
  // when one lacks it: older reports, a graph launched once).
  bool steady = false, steady_kernel_records = false;
  double steady_graph_kernel_ns = 0, steady_eager_kernel_ns = 0, steady_node_runs = 0, steady_eager_launches = 0;
  double coverage() const;      // share of kernel time inside graphs; NaN without kernel time
};
RunTotals run_totals(const ProfileAppRun& run);

// A call site field (`key` of a struct whose `extra` is given): the object, or an older report's
// `where` string read as one; an empty site when neither.
ProfileSite site_of(const std::optional<ProfileSite>& site, const nlohmann::json& extra, const char* key);

}  // namespace gp::profile_fields
