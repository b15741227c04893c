// Derived figures (see include/graphprof/core/derived.hpp).
#include "graphprof/core/derived.hpp"

#include <cmath>
#include <limits>

#include "graphprof/core/error.hpp"
#include "graphprof/core/metric_catalog.hpp"

namespace gp {

// Figures derived from one mode's own metrics: the host-clock cross-check of the event timing,
// and per-node device time for graph modes.
void derive_within_mode(ModeResult& res) {
  const double gpu = median_or_nan(res, metric_key::kGpuTimePerIter);
  res.derived["crosscheck_host_over_events"] = median_or_nan(res, metric_key::kHostTimePerIterBatched) / gpu;
  const double latched = median_or_nan(res, metric_key::kGpuTimePerIterLatched);
  if (std::isfinite(latched) && res.sections.graph) {
    const double nodes = res.sections.graph->nodes;
    if (nodes > 0) res.derived["gpu_time_per_node_latched_ns"] = latched / nodes;
  }
  // Both device methods per node, and how they compare (device_methods_note).
  if (std::isfinite(gpu) && res.sections.graph && res.sections.graph->nodes > 0)
    res.derived["gpu_time_per_node_ns"] = gpu / res.sections.graph->nodes;
  if (std::isfinite(latched) && gpu > 0) res.derived["latched_over_back_to_back"] = latched / gpu;
  if (std::isfinite(latched) && res.mode == Mode::kEager) {
    const double calls = res.derived.count("launch_calls_per_iter") ? res.derived["launch_calls_per_iter"] : 0;
    if (calls > 0) res.derived["gpu_time_per_call_latched_ns"] = latched / calls;
  }
}

void derive_against_eager(std::vector<ModeResult>& results) {
  for (auto& r : results) {
    if (r.mode == Mode::kEager || r.status != Status::kOk) continue;
    const ModeResult* eager = nullptr;
    for (const auto& e : results)
      if (e.mode == Mode::kEager && e.workload == r.workload && e.params == r.params && e.status == Status::kOk) eager = &e;
    if (eager == nullptr) continue;
    r.checksum_matches_eager = (r.checksum == eager->checksum);
    const double e_gpu = median_or_nan(*eager, metric_key::kGpuTimePerIter), g_gpu = median_or_nan(r, metric_key::kGpuTimePerIter);
    const double e_wall = median_or_nan(*eager, metric_key::kWallTimePerIter), g_wall = median_or_nan(r, metric_key::kWallTimePerIter);
    const double e_sub = median_or_nan(*eager, metric_key::kLaunchCpuPerIter), g_sub = median_or_nan(r, metric_key::kLaunchCpuPerIter);
    r.derived["speedup_gpu_time_vs_eager"] = e_gpu / g_gpu;
    r.derived["speedup_wall_time_vs_eager"] = e_wall / g_wall;
    r.derived["cpu_submit_saving_per_iter_ns"] = e_sub - g_sub;
    double one_off = 0;
    for (const char* k : one_off_setup_keys()) {
      const double v = median_or_nan(r, k);
      if (std::isfinite(v)) one_off += v;
    }
    r.derived["one_off_total_ns"] = one_off;
    // Replays after which the graph's one-off cost is paid back by its faster iterations
    // (back-to-back iteration time). Infinite when the graph is not faster.
    const double saving = e_gpu - g_gpu;
    r.derived["break_even_replays"] =
        saving > 0 ? std::ceil(one_off / saving) : std::numeric_limits<double>::infinity();
  }
  for (auto& r : results)
    if (r.mode == Mode::kEager && r.status == Status::kOk) r.checksum_matches_eager = true;
}

}  // namespace gp
