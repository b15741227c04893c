// Derived figures and report merging (see include/graphprof/derived.hpp).
#include "graphprof/derived.hpp"

#include <cmath>
#include <limits>

#include "graphprof/error.hpp"
#include "graphprof/metric_catalog.hpp"

namespace gp {

// Figures derived from one mode's own metrics: the host-clock cross-check of the event timing,
// and per-node device time for graph modes.
void derive_within_mode(ModeResult& res) {
  auto med = [&](const char* k) {
    auto it = res.metrics.find(k);
    return it == res.metrics.end() ? std::numeric_limits<double>::quiet_NaN() : it->second.summary.median;
  };
  const double gpu = med(metric_key::kGpuTimePerIter);
  res.derived["crosscheck_host_over_events"] = med(metric_key::kHostTimePerIterBatched) / gpu;
  const double latched = med(metric_key::kGpuTimePerIterLatched);
  if (std::isfinite(latched) && res.sections.graph) {
    const double nodes = res.sections.graph->nodes;
    if (nodes > 0) res.derived["gpu_time_per_node_latched_ns"] = latched / nodes;
  }
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
    auto med = [](const ModeResult& x, const char* k) {
      auto it = x.metrics.find(k);
      return it == x.metrics.end() ? std::numeric_limits<double>::quiet_NaN() : it->second.summary.median;
    };
    const double e_gpu = med(*eager, metric_key::kGpuTimePerIter), g_gpu = med(r, metric_key::kGpuTimePerIter);
    const double e_wall = med(*eager, metric_key::kWallTimePerIter), g_wall = med(r, metric_key::kWallTimePerIter);
    const double e_sub = med(*eager, metric_key::kLaunchCpuPerIter), g_sub = med(r, metric_key::kLaunchCpuPerIter);
    r.derived["speedup_gpu_time_vs_eager"] = e_gpu / g_gpu;
    r.derived["speedup_wall_time_vs_eager"] = e_wall / g_wall;
    r.derived["cpu_submit_saving_per_iter_ns"] = e_sub - g_sub;
    double one_off = 0;
    for (const char* k : one_off_setup_keys()) {
      const double v = med(r, k);
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

Report merge_reports(const std::vector<Report>& reports, const std::vector<std::string>& sources) {
  if (reports.empty()) throw usage_error("merge: no reports given");
  Report out = reports.front();
  const std::string gpu0 = out.environment.gpu ? out.environment.gpu->name : "";
  for (std::size_t i = 1; i < reports.size(); ++i) {
    const Report& r = reports[i];
    const std::string& src = i < sources.size() ? sources[i] : std::string("report ") + std::to_string(i + 1);
    const std::string gpu = r.environment.gpu ? r.environment.gpu->name : "";
    if (gpu != gpu0) throw input_error(src + ": made on '" + gpu + "', the first report on '" + gpu0 + "'");
    if (r.git_revision != out.git_revision)
      throw input_error(src + ": made by revision " + r.git_revision + ", the first report by " + out.git_revision);
    for (const ModeResult& m : r.results) {
      ModeResult* target = nullptr;
      for (auto& x : out.results)
        if (x.workload == m.workload && x.mode == m.mode && x.params == m.params) target = &x;
      if (target == nullptr) {
        out.results.push_back(m);
        continue;
      }
      if (m.status != Status::kOk) {
        // A mode that failed in any process failed: keep the first failure's reason.
        if (target->status == Status::kOk) {
          target->status = m.status;
          target->reason = m.reason + " (in " + src + ")";
          target->failure = m.failure;
          target->metrics.clear();
        }
        continue;
      }
      if (target->status != Status::kOk) continue;
      if (!m.checksum.empty() && m.checksum != target->checksum)
        throw input_error(src + ": " + m.workload + "/" + to_string(m.mode) + " computed checksum " + m.checksum + ", the first report " +
                          target->checksum);
      for (const auto& [key, metric] : m.metrics) {
        auto it = target->metrics.find(key);
        if (it == target->metrics.end()) {
          target->metrics[key] = metric;
          continue;
        }
        for (const auto& rep : metric.repetitions) it->second.repetitions.push_back(rep);
        it->second.converged = it->second.converged && metric.converged;
      }
    }
  }
  for (auto& r : out.results) {
    for (auto& [k, m] : r.metrics) m.resummarize();
    if (r.status == Status::kOk) derive_within_mode(r);
  }
  derive_against_eager(out.results);
  out.settings["processes"] = static_cast<int>(reports.size());
  if (out.settings.contains("repetitions") && out.settings["repetitions"].is_number())
    out.settings["repetitions_total"] = out.settings["repetitions"].get<int>() * static_cast<int>(reports.size());
  return out;
}

}  // namespace gp
