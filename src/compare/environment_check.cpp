// Whether two reports were measured under conditions that make their numbers comparable: the
// GPU model (hard), driver, runtime, clocks, host CPU, tool version and measurement settings
// (soft, reported); and the device level each result was measured at (sections.device_probe).
// Part of `graphprof compare` (see docs/compare.md).
#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include "comparison_internal.hpp"
#include "graphprof/core/json_text.hpp"
#include "graphprof/compare/compare_format.hpp"

namespace gp::compare_detail {

namespace {

std::string cc_text(const GpuInfo& g) { return std::to_string(g.cc_major) + "." + std::to_string(g.cc_minor); }

std::string version_text(int v) {
  if (v <= 0) return "unknown";
  return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

}  // namespace

EnvironmentCheck check_environment(const Report& base, const Report& cand, const Thresholds& t) {
  EnvironmentCheck env;
  auto add = [&](const std::string& key, const std::string& b, const std::string& c, bool hard) {
    if (b != c) env.differences.push_back({key, b, c, hard});
  };
  const auto& bg = base.environment.gpu;
  const auto& cg = cand.environment.gpu;
  if (bg && cg) {
    add("gpu.name", bg->name, cg->name, true);
    add("gpu.compute_capability", cc_text(*bg), cc_text(*cg), true);
    add("gpu.sm_count", std::to_string(bg->sm_count), std::to_string(cg->sm_count), true);
    add("gpu.driver_version", version_text(bg->driver_version), version_text(cg->driver_version), false);
    add("gpu.runtime_version", version_text(bg->runtime_version), version_text(cg->runtime_version), false);
    if (bg->clock_khz > 0 && cg->clock_khz > 0 &&
        std::fabs(static_cast<double>(cg->clock_khz) / bg->clock_khz - 1.0) > t.clock_tolerance)
      add("gpu.clock_mhz", std::to_string(bg->clock_khz / 1000), std::to_string(cg->clock_khz / 1000), false);
    if (bg->memory_clock_khz > 0 && cg->memory_clock_khz > 0 && bg->memory_clock_khz != cg->memory_clock_khz)
      add("gpu.memory_clock_mhz", std::to_string(bg->memory_clock_khz / 1000),
          std::to_string(cg->memory_clock_khz / 1000), false);
  } else if (bg || cg) {
    env.warnings.push_back(std::string("GPU not recorded in the ") + (bg ? "candidate" : "baseline") +
                           " report: cannot check that both ran on the same GPU model");
  }
  add("host.cpu_model", base.environment.host.cpu_model, cand.environment.host.cpu_model, false);
  add("tool.version", base.tool_version, cand.tool_version, false);
  // Measurement settings change what the numbers mean (fewer samples, other warm-up).
  {
    // Key by key as written in the reports, known or not.
    const nlohmann::json bs = to_json(base.settings), cs = to_json(cand.settings);
    std::set<std::string> keys;
    for (auto it = bs.begin(); it != bs.end(); ++it) keys.insert(it.key());
    for (auto it = cs.begin(); it != cs.end(); ++it) keys.insert(it.key());
    for (const auto& k : keys) {
      // How many processes were merged is not a measurement setting.
      if (k == "processes" || k == "repetitions_total") continue;
      const std::string b = bs.contains(k) ? json_text(bs.at(k)) : "(none)";
      const std::string c = cs.contains(k) ? json_text(cs.at(k)) : "(none)";
      add("settings." + k, b, c, false);
    }
  }
  std::stable_sort(env.differences.begin(), env.differences.end(),
                   [](const EnvDifference& a, const EnvDifference& b) { return a.hard && !b.hard; });
  for (const auto& d : env.differences) {
    if (d.hard) env.comparable = false;
    std::string line = d.key + " differs: " + d.baseline + " (baseline) vs " + d.candidate + " (candidate)";
    if (d.hard)
      line += t.allow_env_mismatch ? " - compared anyway (--allow-env-mismatch)"
                                   : " - results are not comparable (--allow-env-mismatch to compare anyway)";
    env.warnings.push_back(line);
  }
  if (t.allow_env_mismatch) env.comparable = true;
  return env;
}

// SM clock of a report's results: the device's clock as the run recorded it (environment.gpu).
// Reports carry no per-result clock reading.
double sm_clock_khz(const Report& r, const ModeResult& /*res*/) {
  if (r.environment.gpu && r.environment.gpu->clock_khz > 0) return r.environment.gpu->clock_khz;
  return 0;
}

// Device level (docs/compare.md, "Device level"): the H200 runs a chain of empty kernels at one of
// two speeds and a process can switch between them; each result records the speed it saw in
// sections.device_probe, a merged report every process's (`processes`), so a side is judged by
// all the processes pooled into it.
namespace {

// One process's sections.device_probe. `after` is NaN when the after-probe is missing.
struct DeviceProbe {
  double before = 0, after = 0;
};

// The probes of each process behind a result; absent or failed ones are left out.
std::vector<DeviceProbe> device_probes(const ModeResult& r) {
  std::vector<DeviceProbe> out;
  if (!r.sections.device_probe) return out;
  for (const DeviceProbeLevel& l : r.sections.device_probe->levels())
    if (std::isfinite(l.ns_per_kernel) && l.ns_per_kernel > 0) out.push_back({l.ns_per_kernel, l.ns_per_kernel_after});
  return out;
}

bool levels_differ(double a, double b) {
  return std::fabs(a - b) > kDeviceLevelTolerance * std::min(a, b);
}

bool has_after(const DeviceProbe& p) { return std::isfinite(p.after) && p.after > 0; }

// Why one side's pooled samples ran at more than one level, or "" when they did not.
std::string switch_within(const std::vector<DeviceProbe>& probes, const char* side) {
  if (probes.size() == 1) {
    const DeviceProbe& p = probes.front();
    if (!has_after(p) || !levels_differ(p.before, p.after)) return "";
    return std::string("the device switched levels during the ") + side + " result (" + strf("%.0f", p.before) +
           " -> " + strf("%.0f", p.after) + " ns/kernel)";
  }
  double lo = std::numeric_limits<double>::infinity(), hi = 0;
  for (const DeviceProbe& p : probes)
    for (double v : {p.before, has_after(p) ? p.after : p.before}) lo = std::min(lo, v), hi = std::max(hi, v);
  if (probes.empty() || !levels_differ(lo, hi)) return "";
  return std::string("the device switched levels among the ") + side + "'s " + std::to_string(probes.size()) +
         " processes (" + strf("%.0f", lo) + " .. " + strf("%.0f", hi) + " ns/kernel)";
}

}  // namespace

void check_device_probes(const ModeResult& b, const ModeResult& c, MetricComparison& r) {
  const auto bp = device_probes(b), cp = device_probes(c);
  for (const auto& [side, probes] : {std::make_pair("baseline", &bp), std::make_pair("candidate", &cp)}) {
    std::string why = switch_within(*probes, side);
    if (why.empty()) continue;
    (probes == &bp ? r.device.baseline_switched : r.device.candidate_switched) = true;
    r.device_switches.push_back(std::move(why));
  }
  if (!bp.empty()) r.device.baseline_ns = bp.front().before;
  if (!cp.empty()) r.device.candidate_ns = cp.front().before;
  // Across the sides, each side's first process stands for it (one that switched among its
  // processes is flagged above).
  if (!bp.empty() && !cp.empty() && levels_differ(bp.front().before, cp.front().before)) {
    r.device.differs = true;
    r.device_level = "device level differs: base " + strf("%.0f", bp.front().before) + " ns/kernel, candidate " +
                     strf("%.0f", cp.front().before) + " ns/kernel; docs/findings.md";
  }
}

void apply_device_level(MetricComparison& r) {
  const bool changed = r.verdict == Verdict::kRegression || r.verdict == Verdict::kImprovement;
  // Levels mixed: the sides ran at different levels, or one side switched during its result (then
  // part of its timing passes ran at each level; on the H200 a switch lands between passes).
  if ((!r.device_level.empty() || !r.device_switches.empty()) && changed) {
    const std::string would = std::string(r.verdict == Verdict::kRegression ? "regression" : "improvement") + " " +
                              format_change(r.ratio);
    std::string why = r.device_level;
    for (const auto& s : r.device_switches) why += (why.empty() ? "" : "; ") + s;
    if (r.device_level.empty()) why += "; docs/findings.md";
    // A regression cannot be vouched for (exit 5 if it gates); an improvement is left undecided.
    r.verdict = r.verdict == Verdict::kRegression ? Verdict::kNotComparable : Verdict::kInconclusive;
    r.likely_regression = false;
    r.not_enough_runs = false;
    r.reason = why + " (would read: " + would + ")";
    return;
  }
  if (!r.device_level.empty()) r.notes.push_back(r.device_level);
  for (const auto& s : r.device_switches) r.notes.push_back(s + "; docs/findings.md");
}

}  // namespace gp::compare_detail
