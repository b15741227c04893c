// Matching, verdicts and the exit code of `graphprof compare` (see include/graphprof/compare.hpp
// and docs/compare.md for the rules).
#include "graphprof/compare.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <set>
#include <tuple>

#include "graphprof/compare_report.hpp"
#include "graphprof/compare_stats.hpp"
#include "graphprof/mode.hpp"
#include "graphprof/stats.hpp"

namespace gp {

const char* to_string(Verdict v) {
  switch (v) {
    case Verdict::kRegression: return "regression";
    case Verdict::kFailed: return "failed";
    case Verdict::kMissing: return "missing";
    case Verdict::kInvalid: return "invalid";
    case Verdict::kNotComparable: return "not_comparable";
    case Verdict::kInconclusive: return "inconclusive";
    case Verdict::kMinor: return "minor";
    case Verdict::kImprovement: return "improvement";
    case Verdict::kAdded: return "added";
    case Verdict::kSame: return "same";
  }
  return "inconclusive";
}

const char* to_string(GateEffect e) {
  switch (e) {
    case GateEffect::kPass: return "pass";
    case GateEffect::kFail: return "fail";
    case GateEffect::kUntrusted: return "untrusted";
  }
  return "pass";
}

int severity(Verdict v) { return static_cast<int>(v); }  // the enum is declared in reading order

std::string MetricComparison::benchmark() const {
  std::string s = workload;
  if (!params.empty()) s += "[" + params_text(params) + "]";
  return s + "/" + mode;
}

std::size_t Comparison::count(Verdict v) const {
  return static_cast<std::size_t>(std::count_if(rows.begin(), rows.end(), [v](const auto& r) { return r.verdict == v; }));
}

std::size_t Comparison::count_effect(GateEffect e) const {
  return static_cast<std::size_t>(std::count_if(rows.begin(), rows.end(), [e](const auto& r) { return r.effect == e; }));
}

bool glob_match(const std::string& pattern, const std::string& text) {
  // Iterative matcher with one backtrack point for the last '*': linear in practice.
  std::size_t p = 0, t = 0, star = std::string::npos, mark = 0;
  while (t < text.size()) {
    if (p < pattern.size() && (pattern[p] == '?' || pattern[p] == text[t])) {
      ++p;
      ++t;
    } else if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      mark = t;
    } else if (star != std::string::npos) {
      p = star + 1;
      t = ++mark;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

namespace {

bool pattern_matches(const std::string& pattern, const std::string& workload, const std::string& mode,
                     const std::string& metric) {
  if (pattern.find('/') != std::string::npos) return glob_match(pattern, workload + "/" + mode + "/" + metric);
  return glob_match(pattern, metric);
}

}  // namespace

AppliedRule rule_for(const Thresholds& t, const std::string& workload, const std::string& mode,
                     const std::string& metric, const std::string& unit) {
  AppliedRule r;
  auto matches = [&](const std::string& p) { return pattern_matches(p, workload, mode, metric); };
  r.threshold = t.threshold;
  for (const auto& pv : t.metric_thresholds)
    if (matches(pv.pattern)) r.threshold = pv.value;
  r.noise_floor = t.noise_floor;
  r.gross = std::max(r.threshold, t.gross.value_or(2.0 * r.threshold));
  if (unit == "ns") {
    r.abs_floor = t.default_abs_floor_ns;
    for (const auto& pv : t.default_abs_floors)
      if (matches(pv.pattern)) r.abs_floor = pv.value;
  }
  for (const auto& pv : t.abs_floors)
    if (matches(pv.pattern)) r.abs_floor = pv.value;
  r.gating = std::any_of(t.gate_patterns.begin(), t.gate_patterns.end(), matches);
  r.clock_sensitive = std::any_of(t.clock_patterns.begin(), t.clock_patterns.end(), matches);
  return r;
}

namespace {

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), f, v);
  return buf;
}

std::string pct(double fraction) { return fmt("%g%%", 100.0 * fraction); }

// ---------------------------------------------------------------------------------------------
// Matching

using Key = std::tuple<std::string, std::string, std::string>;  // workload, params text, mode

int mode_rank(const std::string& mode) {
  const auto m = mode_from_string(mode);
  return m ? static_cast<int>(*m) : 100;
}

// Per-iteration figures first (the ones that gate by default), then one-off costs.
int metric_rank(const std::string& key) {
  static const char* const order[] = {"*",
                                      "gpu_time_per_iter",
                                      "gpu_time_per_iter_latched",
                                      "host_time_per_iter_batched",
                                      "wall_time_per_iter",
                                      "launch_cpu_per_call",
                                      "launch_cpu_isolated",
                                      "launch_cpu_per_iter",
                                      "capture_time",
                                      "build_time",
                                      "instantiate_time",
                                      "upload_time",
                                      "first_launch_time"};
  for (std::size_t i = 0; i < std::size(order); ++i)
    if (key == order[i]) return static_cast<int>(i);
  return 100;
}

struct Indexed {
  std::map<std::string, std::string> params;
  const ModeResult* result = nullptr;
};

std::map<Key, Indexed> index_results(const Report& r, const std::vector<std::string>& ignore,
                                     const std::string& name) {
  std::map<Key, Indexed> out;
  std::map<Key, std::size_t> where;
  for (std::size_t i = 0; i < r.results.size(); ++i) {
    const ModeResult& res = r.results[i];
    std::map<std::string, std::string> params = res.params;
    for (const auto& p : ignore) params.erase(p);
    const Key k{res.workload, params_text(params), to_string(res.mode)};
    auto [it, fresh] = where.emplace(k, i);
    if (!fresh) {
      throw input_error(name + ": results[" + std::to_string(it->second) + "] and results[" + std::to_string(i) +
                        "] are both " + res.workload + "[" + params_text(params) + "]/" + to_string(res.mode) +
                        (ignore.empty() ? "" : " (after --ignore-param)") + "; each benchmark may appear once");
    }
    out[k] = Indexed{std::move(params), &res};
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Environment

std::string cc_text(const GpuInfo& g) { return std::to_string(g.cc_major) + "." + std::to_string(g.cc_minor); }

std::string version_text(int v) {
  if (v <= 0) return "unknown";
  return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

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
  if (base.settings.is_object() && cand.settings.is_object()) {
    std::set<std::string> keys;
    for (auto it = base.settings.begin(); it != base.settings.end(); ++it) keys.insert(it.key());
    for (auto it = cand.settings.begin(); it != cand.settings.end(); ++it) keys.insert(it.key());
    for (const auto& k : keys) {
      const std::string b = base.settings.contains(k) ? base.settings.at(k).dump() : "(none)";
      const std::string c = cand.settings.contains(k) ? cand.settings.at(k).dump() : "(none)";
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

// ---------------------------------------------------------------------------------------------
// One side of one metric

// A repetition whose median sits far from the others (a hiccup: preemption, a clock dip, a
// neighbour on the GPU) would otherwise stretch the rank interval of every comparison it is
// in. Set aside at most one in five, only when it is both far in robust units and farther
// than the practical threshold, and say so.
inline constexpr double kOutlierRobustZ = 3.5;

std::optional<SideData> side_data(const Metric& m, double max_invalid, double threshold, const std::string& side,
                                  std::string& why) {
  SideData s;
  std::size_t total = 0;
  std::vector<Summary> kept;
  for (const auto& rep : m.repetitions) {
    std::vector<double> finite;
    for (double v : rep) {
      ++total;
      if (std::isfinite(v)) finite.push_back(v);
      else ++s.dropped_samples;
    }
    if (finite.empty()) {
      ++s.dropped_reps;
      continue;
    }
    kept.push_back(summarize(finite));
  }
  if (total == 0) {
    why = side + " has no samples";
    return std::nullopt;
  }
  if (kept.empty()) {
    why = side + ": none of its " + std::to_string(total) + " samples is a finite number";
    return std::nullopt;
  }
  if (static_cast<double>(s.dropped_samples) > max_invalid * static_cast<double>(total)) {
    why = side + ": " + std::to_string(s.dropped_samples) + " of " + std::to_string(total) +
          " samples are not finite numbers (more than " + pct(max_invalid) + ")";
    return std::nullopt;
  }
  for (const Summary& k : kept) {
    if (!(k.median > 0)) {
      why = side + ": a repetition's median is " + fmt("%g", k.median) + "; a ratio needs positive values";
      return std::nullopt;
    }
  }
  if (kept.size() >= 5) {
    std::vector<double> logs;
    for (const Summary& k : kept) logs.push_back(std::log(k.median));
    const double mid = median(logs);
    const double limit = std::max(kOutlierRobustZ * robust_sd(logs), std::log1p(threshold));
    std::vector<std::size_t> order(kept.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      return std::fabs(logs[a] - mid) > std::fabs(logs[b] - mid);
    });
    std::vector<bool> drop(kept.size(), false);
    for (std::size_t i = 0; i < kept.size() / 5; ++i)
      if (std::fabs(logs[order[i]] - mid) > limit) drop[order[i]] = true;
    std::vector<Summary> rest;
    for (std::size_t i = 0; i < kept.size(); ++i) {
      if (drop[i]) s.outlier_reps.push_back(kept[i].median);
      else rest.push_back(kept[i]);
    }
    kept.swap(rest);
  }
  for (std::size_t i = 0; i < kept.size(); ++i) {
    s.reps.push_back(kept[i].median);
    s.samples += kept[i].n;
    s.rep_ci_low = i == 0 ? kept[i].ci_low : std::min(s.rep_ci_low, kept[i].ci_low);
    s.rep_ci_high = i == 0 ? kept[i].ci_high : std::max(s.rep_ci_high, kept[i].ci_high);
  }
  s.center = median(s.reps);
  if (s.reps.size() >= 2) {
    std::vector<double> logs;
    for (double v : s.reps) logs.push_back(std::log(v));
    s.spread = robust_sd(logs);
  } else {
    s.spread = s.center > 0 ? 0.5 * (s.rep_ci_high - s.rep_ci_low) / s.center : 0;
  }
  return s;
}

// ---------------------------------------------------------------------------------------------
// The verdict of one matched metric with valid data on both sides

RatioInterval to_ratio(const ShiftInterval& ci) {
  RatioInterval r;
  r.available = ci.available;
  r.level = ci.level;
  r.coverage = ci.coverage;
  r.rank = ci.rank;
  r.exact = ci.exact;
  if (ci.available) {
    r.low = std::exp(ci.low);
    r.high = std::exp(ci.high);
  }
  return r;
}

std::string reps_text(const MetricComparison& r) {
  return std::to_string(r.base->reps.size()) + " vs " + std::to_string(r.cand->reps.size()) + " repetitions";
}

// The estimate of one matched metric with valid data on both sides: the Hodges-Lehmann shift
// and its rank intervals from the repetitions alone. The verdict comes later (judge), once the
// suite's between-run noise is known.
void estimate(MetricComparison& r, const Thresholds& t) {
  std::vector<double> x, y;
  for (double v : r.base->reps) x.push_back(std::log(v));
  for (double v : r.cand->reps) y.push_back(std::log(v));
  const ShiftEstimate est = hodges_lehmann(x, y, t.gate_level, t.same_level);
  r.has_estimate = true;
  r.ratio = std::exp(est.estimate);
  r.ci_gate_reps = to_ratio(est.ci_gate);
  r.ci_same_reps = to_ratio(est.ci_same);
  r.ci_gate = r.ci_gate_reps;
  r.ci_same = r.ci_same_reps;
  r.abs_change = r.base->center * (r.ratio - 1.0);
}

// Adds between-run noise (a log-scale sd) to a rank interval around the estimate: each side
// grows in quadrature by z * sd, so the interval covers what a rerun of either side would move.
RatioInterval widened(const RatioInterval& ci, double ratio, double z_sd) {
  if (!ci.available || !(z_sd > 0)) return ci;
  RatioInterval w = ci;
  const double d = std::log(ratio);
  w.low = std::exp(d - std::hypot(d - std::log(ci.low), z_sd));
  w.high = std::exp(d + std::hypot(std::log(ci.high) - d, z_sd));
  return w;
}

void judge(MetricComparison& r, const Thresholds& t) {
  const SideData& b = *r.base;
  const SideData& c = *r.cand;
  // Multipliers for the suite's between-run sd: t quantiles, as that sd is itself an estimate.
  const double z_gate = r.between_run_t_gate;
  const double z_same = r.between_run_t_same;
  r.ci_gate = widened(r.ci_gate_reps, r.ratio, z_gate * r.between_run_sd);
  r.ci_same = widened(r.ci_same_reps, r.ratio, z_same * r.between_run_sd);
  const double d = std::log(r.ratio);

  // Work in "badness": positive means worse, whatever the metric's direction.
  const double s = r.direction == Direction::kHigherIsBetter ? -1.0 : 1.0;
  const double bad = s * d;
  const double T = std::log1p(r.rule.threshold), F = std::log1p(r.rule.noise_floor), G = std::log1p(r.rule.gross);
  const bool abs_ok = std::fabs(r.abs_change) >= r.rule.abs_floor;
  const std::string change = format_change(r.ratio);
  const std::string worse = s > 0 ? "slower" : "worse";
  const std::string better = s > 0 ? "faster" : "better";
  const std::string below_abs = change + " is only " + format_value(std::fabs(r.abs_change), r.unit) +
                                ", below the absolute floor of " + format_value(r.rule.abs_floor, r.unit);
  if (z_gate * r.between_run_sd > F)
    r.notes.push_back("intervals include the between-run noise of " + r.metric + " in " + r.mode +
                      " mode across this suite (sd " + fmt("%.1f%%", 100.0 * r.between_run_sd) + ")");

  auto equivalent = [&]() {
    if (!r.ci_same.available) return false;
    return -T < std::log(r.ci_same.low) && std::log(r.ci_same.high) < T;
  };
  const std::string same_text = "within ±" + pct(r.rule.threshold) + ": " + pct(t.same_level) + " CI " +
                                format_interval(r.ci_same);

  if (r.ci_gate.available) {
    r.method = r.ci_gate.exact ? "exact-rank" : "normal-approx";
    const double lo = std::min(s * std::log(r.ci_gate.low), s * std::log(r.ci_gate.high));
    const double hi = std::max(s * std::log(r.ci_gate.low), s * std::log(r.ci_gate.high));
    const std::string ci = pct(t.gate_level) + " CI " + format_interval(r.ci_gate);
    if (lo > F && bad >= T) {
      r.verdict = abs_ok ? Verdict::kRegression : Verdict::kMinor;
      r.reason = abs_ok ? change + " (" + ci + ") is beyond the " + pct(r.rule.threshold) + " threshold" : below_abs;
    } else if (hi < -F && bad <= -T) {
      r.verdict = abs_ok ? Verdict::kImprovement : Verdict::kMinor;
      r.reason = abs_ok ? change + " (" + ci + ") is beyond the " + pct(r.rule.threshold) + " threshold" : below_abs;
    } else if (lo > F || hi < -F) {
      r.verdict = Verdict::kMinor;
      r.reason = (lo > F ? worse : better) + " by " + change + ", a real change (" + ci + ") below the " +
                 pct(r.rule.threshold) + " threshold";
    } else if (equivalent()) {
      r.verdict = Verdict::kSame;
      r.reason = same_text;
    } else {
      r.verdict = Verdict::kInconclusive;
      if (bad >= T) {
        r.likely_regression = true;
        r.reason = "likely regression: " + change + " but the " + ci + " does not clear the " +
                   pct(r.rule.noise_floor) + " noise floor; rerun with more repetitions";
      } else if (bad <= -T) {
        r.reason = "likely improvement: " + change + " but the " + ci + " does not clear the " +
                   pct(r.rule.noise_floor) + " noise floor";
      } else {
        r.reason = "too noisy: " + pct(t.same_level) + " CI " + format_interval(r.ci_same) + " is not within ±" +
                   pct(r.rule.threshold) + " (spread " + format_spread(b) + " / " + format_spread(c) + ")";
      }
    }
    return;
  }

  // Too few repetitions for the gate's interval: only a gross change with separated
  // within-run intervals counts, it must also stand out of the suite's between-run noise,
  // and the verdict says which rule made it.
  r.method = "gross-rule";
  const bool cand_above = c.rep_ci_low > b.rep_ci_high;
  const bool cand_below = c.rep_ci_high < b.rep_ci_low;
  const bool sep_worse = s > 0 ? cand_above : cand_below;
  const bool sep_better = s > 0 ? cand_below : cand_above;
  const bool beyond_noise = std::fabs(bad) - z_gate * r.between_run_sd > F;
  const std::string gross_rule = "gross rule (" + reps_text(r) + "): " + change + " is beyond " +
                                 pct(r.rule.gross) + " and the within-run CIs do not overlap";
  if (bad >= G && sep_worse && beyond_noise) {
    r.verdict = abs_ok ? Verdict::kRegression : Verdict::kMinor;
    r.reason = abs_ok ? gross_rule : below_abs;
  } else if (bad <= -G && sep_better && beyond_noise) {
    r.verdict = abs_ok ? Verdict::kImprovement : Verdict::kMinor;
    r.reason = abs_ok ? gross_rule : below_abs;
  } else if (equivalent()) {
    r.verdict = Verdict::kSame;
    r.reason = same_text + " (" + reps_text(r) + ")";
  } else {
    r.verdict = Verdict::kInconclusive;
    r.likely_regression = bad >= T;
    if (std::fabs(bad) >= G && (sep_worse || sep_better) && !beyond_noise)
      r.reason = "within the suite's between-run noise: " + change + " with " + reps_text(r) + ", but " + r.metric +
                 " in " + r.mode + " mode moves by sd " + fmt("%.1f%%", 100.0 * r.between_run_sd) +
                 " between runs here; rerun both sides or use more repetitions";
    else
      r.reason = "too few repetitions (" + reps_text(r) + "; a " + pct(t.gate_level) +
                 " CI needs about 5 per side): " + change + " is not a gross change (beyond " + pct(r.rule.gross) +
                 " with separated within-run CIs); run with --repetitions 7";
  }
}

// A time change that the SM clock alone explains is not the code's doing.
void check_clock(MetricComparison& r, const Thresholds& t) {
  if (!r.has_estimate || !r.rule.clock_sensitive) return;
  const double bk = r.base->sm_clock_khz, ck = r.cand->sm_clock_khz;
  if (!(bk > 0 && ck > 0)) return;
  const double clock_ratio = ck / bk;
  r.cycle_ratio = r.ratio * clock_ratio;  // time x frequency = cycles
  if (std::fabs(clock_ratio - 1.0) <= t.clock_tolerance) return;
  const std::string clocks = "SM clock " + fmt("%.0f", bk / 1000) + " -> " + fmt("%.0f", ck / 1000) + " MHz";
  const double T = std::log1p(r.rule.threshold);
  const bool changed = r.verdict == Verdict::kRegression || r.verdict == Verdict::kImprovement;
  if (changed && std::fabs(std::log(*r.cycle_ratio)) < T) {
    r.verdict = Verdict::kNotComparable;
    r.reason = "clock change: " + format_change(r.ratio) + " in time but " + format_change(*r.cycle_ratio) +
               " in cycles; " + clocks + " explains it";
  } else {
    r.notes.push_back(clocks + "; in cycles " + format_change(*r.cycle_ratio));
  }
}

// Words for a result that did not produce numbers.
std::string status_text(const ModeResult& r) {
  std::string s = to_string(r.status);
  if (!r.reason.empty()) s += ": " + r.reason;
  if (r.failure && !r.failure->hint.empty()) s += " (fix: " + r.failure->hint + ")";
  return s;
}

MetricComparison result_row(const Key& k, const std::map<std::string, std::string>& params, Verdict v,
                            std::string reason) {
  MetricComparison r;
  r.workload = std::get<0>(k);
  r.mode = std::get<2>(k);
  r.params = params;
  r.metric = "*";
  r.unit = "";
  r.rule.gating = true;
  r.verdict = v;
  r.reason = std::move(reason);
  return r;
}

// Structure of a graph: node and edge counts, and any per-kind counts a run recorded.
void check_drift(const ModeResult& b, const ModeResult& c, const std::string& bench, std::vector<DriftItem>& out) {
  const auto& bg = b.sections.graph;
  const auto& cg = c.sections.graph;
  if (bg && cg) {
    // 0 is what a dump without counts reads as: unknown, not a change.
    const auto count = [&](const char* key, int bv, int cv) {
      if (bv != 0 && cv != 0 && bv != cv)
        out.push_back({bench, std::string("graph ") + key + " " + std::to_string(bv) + " -> " + std::to_string(cv)});
    };
    count("edges", bg->edges, cg->edges);
    count("nodes", bg->nodes, cg->nodes);
  } else if (bg && !cg && bg->nodes > 0) {
    out.push_back({bench, "the candidate recorded no graph structure"});
  }
  if (!b.checksum.empty() && !c.checksum.empty() && b.checksum != c.checksum)
    out.push_back({bench, "output checksum " + b.checksum + " -> " + c.checksum});
}

void compare_metrics(const Indexed& bi, const Indexed& ci, const Report& base, const Report& cand,
                     const Thresholds& t, Comparison& out) {
  const ModeResult& b = *bi.result;
  const ModeResult& c = *ci.result;
  std::set<std::string> names;
  for (const auto& [n, m] : b.metrics) names.insert(n);
  for (const auto& [n, m] : c.metrics) names.insert(n);
  const double bclock = sm_clock_khz(base, b), cclock = sm_clock_khz(cand, c);
  for (const auto& name : names) {
    MetricComparison r;
    r.workload = b.workload;
    r.mode = to_string(b.mode);
    r.params = bi.params;
    r.metric = name;
    const auto bm = b.metrics.find(name);
    const auto cm = c.metrics.find(name);
    const Metric& any = bm != b.metrics.end() ? bm->second : cm->second;
    r.unit = any.unit;
    r.direction = any.direction;
    r.rule = rule_for(t, r.workload, r.mode, name, r.unit);
    if (cm == c.metrics.end()) {
      r.verdict = Verdict::kMissing;
      r.reason = "no longer measured by the candidate";
    } else if (bm == b.metrics.end()) {
      r.verdict = Verdict::kAdded;
      r.reason = "new in the candidate";
    } else if (bm->second.unit != cm->second.unit) {
      r.verdict = Verdict::kNotComparable;
      r.reason = "unit changed: " + bm->second.unit + " -> " + cm->second.unit;
    } else if (bm->second.direction != cm->second.direction) {
      r.verdict = Verdict::kNotComparable;
      r.reason = std::string("direction changed: ") + to_string(bm->second.direction) + " -> " +
                 to_string(cm->second.direction);
    } else {
      std::string why;
      auto bs = side_data(bm->second, t.max_invalid_fraction, r.rule.threshold, "baseline", why);
      auto cs = bs ? side_data(cm->second, t.max_invalid_fraction, r.rule.threshold, "candidate", why) : std::nullopt;
      if (!bs || !cs) {
        r.verdict = Verdict::kInvalid;
        r.reason = why;
      } else {
        bs->sm_clock_khz = bclock;
        cs->sm_clock_khz = cclock;
        r.base = std::move(bs);
        r.cand = std::move(cs);
        for (const auto* side : {&*r.base, &*r.cand}) {
          const char* who = side == &*r.base ? "baseline" : "candidate";
          if (side->dropped_samples > 0)
            r.notes.push_back(std::string(who) + ": " + std::to_string(side->dropped_samples) +
                              " non-finite samples ignored");
          if (side->dropped_reps > 0)
            r.notes.push_back(std::string(who) + ": " + std::to_string(side->dropped_reps) +
                              " empty repetitions ignored");
          for (double v : side->outlier_reps)
            r.notes.push_back(std::string(who) + ": outlier repetition set aside (median " + format_value(v, r.unit) +
                              ", " + format_change(v / side->center) + " from the others)");
        }
        estimate(r, t);
        ++out.compared;
      }
    }
    out.rows.push_back(std::move(r));
  }
}

void compare_result(const Key& k, const Indexed* bi, const Indexed* ci, const Report& base, const Report& cand,
                    const Thresholds& t, Comparison& out) {
  const auto& params = bi ? bi->params : ci->params;
  if (bi && !ci) {
    const bool was_ok = bi->result->status == Status::kOk;
    out.rows.push_back(result_row(k, params, Verdict::kMissing,
                                  was_ok ? "not in the candidate report"
                                         : "not in the candidate report (baseline: " + status_text(*bi->result) + ")"));
    if (!was_ok) out.rows.back().rule.gating = false;
    return;
  }
  if (!bi && ci) {
    const bool ok = ci->result->status == Status::kOk;
    out.rows.push_back(result_row(k, params, Verdict::kAdded,
                                  ok ? "new in the candidate" : "new in the candidate: " + status_text(*ci->result)));
    return;
  }
  const ModeResult& b = *bi->result;
  const ModeResult& c = *ci->result;
  const bool bok = b.status == Status::kOk, cok = c.status == Status::kOk;
  if (bok && cok) {
    const std::size_t before = out.drift.size();
    check_drift(b, c, result_row(k, params, Verdict::kSame, "").benchmark(), out.drift);
    const std::size_t first_row = out.rows.size();
    compare_metrics(*bi, *ci, base, cand, t, out);
    if (out.drift.size() > before)
      for (std::size_t i = first_row; i < out.rows.size(); ++i) out.rows[i].notes.push_back("structure drift, see above");
    return;
  }
  if (bok && c.status == Status::kFailed) {
    out.rows.push_back(result_row(k, params, Verdict::kFailed, "worked in the baseline, " + status_text(c)));
  } else if (bok) {
    out.rows.push_back(result_row(k, params, Verdict::kMissing, "worked in the baseline, now " + status_text(c)));
  } else if (cok) {
    out.rows.push_back(result_row(k, params, Verdict::kAdded, "works now; baseline " + status_text(b)));
  } else {
    auto row = result_row(k, params, Verdict::kNotComparable,
                          "no numbers on either side: baseline " + status_text(b) + "; candidate " + status_text(c));
    row.rule.gating = false;
    out.rows.push_back(std::move(row));
  }
}

GateEffect effect_of(const MetricComparison& r, const Thresholds& t) {
  switch (r.verdict) {
    case Verdict::kFailed: return GateEffect::kFail;
    case Verdict::kRegression: return r.rule.gating ? GateEffect::kFail : GateEffect::kPass;
    case Verdict::kInconclusive:
      return (t.strict && r.likely_regression && r.rule.gating) ? GateEffect::kFail : GateEffect::kPass;
    case Verdict::kMissing:
      return (r.rule.gating && !t.allow_missing) ? GateEffect::kUntrusted : GateEffect::kPass;
    case Verdict::kInvalid:
    case Verdict::kNotComparable: return r.rule.gating ? GateEffect::kUntrusted : GateEffect::kPass;
    default: return GateEffect::kPass;
  }
}

InputInfo input_info(const Report& r, const std::string& label) {
  InputInfo i;
  i.label = label;
  i.tool_version = r.tool_version;
  i.git_revision = r.git_revision;
  i.created_utc = r.created_utc;
  i.gpu = r.environment.gpu;
  i.host_cpu = r.environment.host.cpu_model;
  for (const auto& res : r.results)
    for (const auto& [k, m] : res.metrics) i.repetitions = std::max(i.repetitions, static_cast<int>(m.repetitions.size()));
  if (r.settings.is_object() && r.settings.contains("pooled_reports") && r.settings.at("pooled_reports").is_number())
    i.reports = r.settings.at("pooled_reports").get<int>();
  return i;
}

std::string plural(std::size_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

// Repetitions of one run are measured back to back and share that moment's machine state, so
// they can agree closely while a rerun lands far away. With enough benchmarks the suite itself
// shows how far: under "most benchmarks did not change", the scatter of their estimated shifts
// around the group median is between-run noise (plus the repetitions' own, which is taken out).
// Benchmarks that stand far out (real changes) are set aside so that they do not inflate it,
// and intervals are widened with t quantiles because the sd comes from a handful of benchmarks.
// Groups are (metric, mode), because eager launch-bound figures and graph replays differ a lot.
void estimate_between_run_noise(Comparison& c) {
  if (!c.thresholds.suite_noise) return;
  // Only to read the repetitions' own sd back from their intervals.
  const double z_gate = normal_quantile(0.5 + 0.5 * c.thresholds.gate_level);
  const double z_same = normal_quantile(0.5 + 0.5 * c.thresholds.same_level);
  std::map<std::pair<std::string, std::string>, std::vector<MetricComparison*>> groups;
  for (auto& r : c.rows)
    if (r.has_estimate) groups[{r.metric, r.mode}].push_back(&r);
  for (auto& [key, rows] : groups) {
    if (rows.size() < kMinSuiteNoiseGroup) continue;
    std::vector<double> shifts, within;
    for (const MetricComparison* r : rows) {
      shifts.push_back(std::log(r->ratio));
      // The repetitions' own sd of the shift, read back from the interval they gave.
      if (r->ci_gate_reps.available)
        within.push_back((std::log(r->ci_gate_reps.high) - std::log(r->ci_gate_reps.low)) / (2 * z_gate));
      else if (r->ci_same_reps.available)
        within.push_back((std::log(r->ci_same_reps.high) - std::log(r->ci_same_reps.low)) / (2 * z_same));
      else
        within.push_back(0.0);
    }
    std::size_t kept = 0;
    const double total = screened_sd(shifts, &kept);
    const double own = median(within);
    const double between = std::sqrt(std::max(0.0, total * total - own * own));
    c.suite_noise.push_back({key.first, key.second, rows.size(), kept, total, own, between, 0});
    const double df = static_cast<double>(kept - 1);
    const double t_gate = student_t_quantile(0.5 + 0.5 * c.thresholds.gate_level, df);
    const double t_same = student_t_quantile(0.5 + 0.5 * c.thresholds.same_level, df);
    c.suite_noise.back().t_gate = t_gate;
    for (MetricComparison* r : rows) {
      r->between_run_sd = between;
      r->between_run_df = df;
      r->between_run_t_gate = t_gate;
      r->between_run_t_same = t_same;
    }
  }
}

void summarize_suite(Comparison& c) {
  {
    const double F = std::log1p(c.thresholds.noise_floor);
    std::string groups;
    for (const auto& g : c.suite_noise) {
      const AppliedRule rule = rule_for(c.thresholds, "", g.mode, g.metric, "");
      if (!rule.gating || !(g.t_gate * g.between_sd > F)) continue;
      groups += (groups.empty() ? "" : ", ") + g.metric + "/" + g.mode + " " + fmt("%.1f%%", 100.0 * g.between_sd) +
                " (n=" + std::to_string(g.n) + ")";
    }
    if (!groups.empty())
      c.banners.push_back("between-run noise seen across the suite (sd of one run): " + groups +
                          "; the repetitions of one run do not show it, so these intervals are widened by it");
  }
  // Geometric means over matched metrics with an estimate, per metric key.
  std::map<std::string, std::pair<double, std::size_t>> per_metric;
  double gate_sum = 0;
  std::size_t gate_n = 0;
  std::vector<double> gate_bad;
  for (const auto& r : c.rows) {
    if (!r.has_estimate || r.verdict == Verdict::kNotComparable) continue;
    auto& acc = per_metric[r.metric];
    acc.first += std::log(r.ratio);
    ++acc.second;
    if (r.rule.gating && r.direction != Direction::kNone) {
      const double bad = (r.direction == Direction::kHigherIsBetter ? -1.0 : 1.0) * std::log(r.ratio);
      gate_sum += bad;
      ++gate_n;
      gate_bad.push_back(bad);
    }
  }
  std::vector<std::pair<std::string, std::pair<double, std::size_t>>> ordered(per_metric.begin(), per_metric.end());
  std::stable_sort(ordered.begin(), ordered.end(),
                   [](const auto& a, const auto& b) { return metric_rank(a.first) < metric_rank(b.first); });
  for (const auto& [name, acc] : ordered) {
    const bool gates = std::any_of(c.rows.begin(), c.rows.end(),
                                   [&name = name](const MetricComparison& r) { return r.metric == name && r.rule.gating; });
    c.geomeans.push_back({name, acc.second, std::exp(acc.first / static_cast<double>(acc.second)), gates});
  }
  if (gate_n > 0)
    c.geomeans.push_back({"all gating metrics", gate_n, std::exp(gate_sum / static_cast<double>(gate_n)), true});

  // Many benchmarks moving together is the signature of the machine (clocks, load, another
  // runner), not of one code change; say so, per metric key and over all gating metrics.
  const double F = std::log1p(c.thresholds.noise_floor);
  auto shift_banner = [&](const std::string& what, const std::vector<double>& bad) {
    if (bad.size() < 5) return;
    const double mid = median(bad);
    const auto moved = std::count_if(bad.begin(), bad.end(), [&](double v) { return mid > 0 ? v > F : v < -F; });
    // Shifts of a percent or two are ordinary between-run noise that the threshold absorbs;
    // the banner is for shifts that approach the threshold.
    const double big = std::max(F, 0.5 * std::log1p(c.thresholds.threshold));
    if (std::fabs(mid) < big || static_cast<double>(moved) < 0.8 * static_cast<double>(bad.size())) return;
    c.banners.push_back("suite-wide shift: " + what + " is " + (mid > 0 ? "worse" : "better") + " on " +
                        std::to_string(moved) + " of " + std::to_string(bad.size()) + " benchmarks (median " +
                        format_change(std::exp(mid)) +
                        "); a change this uniform often comes from the machine (clocks, load, another runner): "
                        "check the environment before crediting or blaming the code");
  };
  for (const auto& [name, acc] : ordered) {
    std::vector<double> bad;
    for (const auto& r : c.rows)
      if (r.metric == name && r.rule.gating && r.has_estimate && r.verdict != Verdict::kNotComparable &&
          r.direction != Direction::kNone)
        bad.push_back((r.direction == Direction::kHigherIsBetter ? -1.0 : 1.0) * std::log(r.ratio));
    shift_banner(name, bad);
  }
  if (c.banners.empty()) shift_banner("all gating metrics", gate_bad);
}

std::string join(const std::vector<std::string>& parts) {
  std::string s;
  for (const auto& p : parts) s += (s.empty() ? "" : ", ") + p;
  return s;
}

void decide_exit(Comparison& c) {
  const Thresholds& t = c.thresholds;
  std::size_t regressions = 0, failed = 0, likely = 0;
  for (const auto& r : c.rows) {
    if (r.effect != GateEffect::kFail) continue;
    if (r.verdict == Verdict::kRegression) ++regressions;
    else if (r.verdict == Verdict::kFailed) ++failed;
    else ++likely;
  }
  const bool drift_fails = t.fail_on_drift && !c.drift.empty();
  if (regressions + failed + likely > 0 || drift_fails) {
    std::vector<std::string> parts;
    if (regressions) parts.push_back(plural(regressions, "regression", "regressions"));
    if (failed) parts.push_back(plural(failed, "newly failing mode", "newly failing modes"));
    if (likely) parts.push_back(plural(likely, "likely regression (--strict)", "likely regressions (--strict)"));
    if (drift_fails) parts.push_back(plural(c.drift.size(), "structure change (--fail-on-drift)", "structure changes (--fail-on-drift)"));
    c.exit_code = ExitCode::kRegression;
    c.exit_reason = join(parts);
    return;
  }
  std::vector<std::string> parts;
  if (!c.environment.comparable) {
    for (const auto& d : c.environment.differences)
      if (d.hard) parts.push_back(d.key + " differs (" + d.baseline + " vs " + d.candidate + ")");
  }
  std::size_t missing = 0, invalid = 0, notcmp = 0;
  for (const auto& r : c.rows) {
    if (r.effect != GateEffect::kUntrusted) continue;
    if (r.verdict == Verdict::kMissing) ++missing;
    else if (r.verdict == Verdict::kInvalid) ++invalid;
    else ++notcmp;
  }
  if (c.environment.comparable) {
    if (missing) parts.push_back(plural(missing, "missing benchmark or metric (--allow-missing to accept)",
                                        "missing benchmarks or metrics (--allow-missing to accept)"));
    if (invalid) parts.push_back(plural(invalid, "metric with invalid data", "metrics with invalid data"));
    if (notcmp) parts.push_back(plural(notcmp, "metric not comparable", "metrics not comparable"));
  }
  if (c.compared == 0 && parts.empty()) parts.push_back("nothing was compared: no metric has data on both sides");
  if (!parts.empty()) {
    c.exit_code = ExitCode::kUntrusted;
    c.exit_reason = join(parts);
    return;
  }
  c.exit_code = ExitCode::kOk;
  c.exit_reason = "no regression";
}

}  // namespace

Report pool_reports(const std::vector<Report>& reports, const std::vector<std::string>& sources) {
  if (reports.empty()) throw internal_error("pool_reports: no reports");
  Report out = reports.front();
  out.results.clear();
  const auto gpu_text = [](const Report& r) {
    return r.environment.gpu ? r.environment.gpu->name + " (sm_" + std::to_string(r.environment.gpu->cc_major) +
                                   std::to_string(r.environment.gpu->cc_minor) + ", " +
                                   std::to_string(r.environment.gpu->sm_count) + " SMs)"
                             : std::string("no GPU recorded");
  };
  std::map<Key, std::size_t> where;  // key -> index in out.results
  for (std::size_t f = 0; f < reports.size(); ++f) {
    const Report& r = reports[f];
    if (gpu_text(r) != gpu_text(reports.front()))
      throw Error(ExitCode::kUntrusted, sources[f] + " was measured on " + gpu_text(r) + ", " + sources.front() +
                                            " on " + gpu_text(reports.front()) +
                                            "; pool only reports of one GPU model");
    index_results(r, {}, sources[f]);  // one benchmark per report at most
    for (const ModeResult& res : r.results) {
      const Key k{res.workload, params_text(res.params), to_string(res.mode)};
      const auto it = where.find(k);
      if (it == where.end()) {
        where.emplace(k, out.results.size());
        out.results.push_back(res);
        continue;
      }
      ModeResult& into = out.results[it->second];
      if (res.status != Status::kOk) continue;  // a failed process adds nothing to pool
      if (into.status != Status::kOk) {
        into = res;  // the first report that worked provides the structure
        continue;
      }
      for (const auto& [name, m] : res.metrics) {
        auto mt = into.metrics.find(name);
        if (mt == into.metrics.end()) {
          into.metrics.emplace(name, m);
          continue;
        }
        mt->second.repetitions.insert(mt->second.repetitions.end(), m.repetitions.begin(), m.repetitions.end());
        mt->second.converged = mt->second.converged && m.converged;
        mt->second.resummarize();
      }
    }
  }
  if (reports.size() > 1 && out.settings.is_object()) out.settings["pooled_reports"] = reports.size();
  return out;
}

Comparison compare(const Report& base, const Report& cand, const Thresholds& t, const InputNames& names) {
  Comparison out;
  out.thresholds = t;
  out.baseline = input_info(base, names.baseline);
  out.candidate = input_info(cand, names.candidate);
  out.environment = check_environment(base, cand, t);

  const auto bidx = index_results(base, t.ignore_params, names.baseline);
  const auto cidx = index_results(cand, t.ignore_params, names.candidate);
  std::set<Key> keys;
  for (const auto& [k, v] : bidx) keys.insert(k);
  for (const auto& [k, v] : cidx) keys.insert(k);
  std::vector<Key> ordered(keys.begin(), keys.end());
  std::stable_sort(ordered.begin(), ordered.end(), [](const Key& a, const Key& b) {
    return std::make_tuple(std::get<0>(a), std::get<1>(a), mode_rank(std::get<2>(a)), std::get<2>(a)) <
           std::make_tuple(std::get<0>(b), std::get<1>(b), mode_rank(std::get<2>(b)), std::get<2>(b));
  });
  for (const Key& k : ordered) {
    const auto bi = bidx.find(k);
    const auto ci = cidx.find(k);
    const std::size_t first = out.rows.size();
    compare_result(k, bi == bidx.end() ? nullptr : &bi->second, ci == cidx.end() ? nullptr : &ci->second, base, cand,
                   t, out);
    std::stable_sort(out.rows.begin() + static_cast<std::ptrdiff_t>(first), out.rows.end(),
                     [](const MetricComparison& a, const MetricComparison& b) {
                       return std::make_tuple(metric_rank(a.metric), a.metric) < std::make_tuple(metric_rank(b.metric), b.metric);
                     });
  }

  estimate_between_run_noise(out);
  for (auto& r : out.rows) {
    if (!r.has_estimate) continue;
    judge(r, t);
    if (r.direction == Direction::kNone && (r.verdict == Verdict::kRegression || r.verdict == Verdict::kImprovement)) {
      r.verdict = Verdict::kMinor;
      r.reason = "changed by " + format_change(r.ratio) + " (the metric has no better direction)";
    }
    check_clock(r, t);
  }

  // Different GPUs: the numbers are still shown, but no verdict about the code is drawn.
  if (!out.environment.comparable) {
    std::string what;
    for (const auto& d : out.environment.differences)
      if (d.hard) what += (what.empty() ? "" : ", ") + d.key;
    for (auto& r : out.rows) {
      if (r.has_estimate) {
        r.notes.push_back(std::string("on the same GPU this would read: ") + to_string(r.verdict) + ", " + r.reason);
        r.verdict = Verdict::kNotComparable;
        r.reason = "environment differs: " + what + " (see the warnings)";
      }
    }
  }
  for (auto& r : out.rows) {
    r.effect = effect_of(r, t);
    if (!out.environment.comparable && r.effect == GateEffect::kFail) r.effect = GateEffect::kUntrusted;
  }
  summarize_suite(out);
  decide_exit(out);
  return out;
}

}  // namespace gp
