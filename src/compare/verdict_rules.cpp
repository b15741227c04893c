// The verdict rules of `graphprof compare`: per series (workload, params, mode, metric), the
// change of the mean log run value with Welch's t, a suite-wide false-alarm budget split over
// the gating series (Bonferroni), the practical threshold and the absolute floor; then the
// clock check, each row's effect on the gate and the exit code. docs/compare.md explains them.
#include <algorithm>
#include <cmath>

#include "comparison_internal.hpp"
#include "graphprof/compare/compare_format.hpp"
#include "graphprof/compare/compare_stats.hpp"
#include "graphprof/core/text_format.hpp"

namespace gp::compare_detail {

namespace {

std::string runs_text(const MetricComparison& r) {
  return std::to_string(r.base->reps.size()) + " vs " + std::to_string(r.cand->reps.size()) + " runs";
}

RatioInterval ratio_interval(double d, double half, double level) {
  RatioInterval ci;
  ci.available = std::isfinite(half);
  ci.low = std::exp(d - half);
  ci.high = std::exp(d + half);
  ci.level = level;
  ci.coverage = level;
  ci.exact = false;
  return ci;
}

// The change the runs-needed figure is for: the row's threshold when the estimate is beyond it
// (a likely regression or improvement), else the floor, within which sameness is shown.
double change_to_resolve(const MetricComparison& r) {
  return std::fabs(std::log(r.ratio)) >= std::log1p(r.rule.threshold) ? r.rule.threshold : r.rule.threshold_floor;
}

std::string runs_needed_text(const MetricComparison& r) {
  if (r.runs_needed == 0) return "";
  const bool at_threshold = std::fabs(std::log(r.ratio)) >= std::log1p(r.rule.threshold);
  const std::string shown = at_threshold ? format_threshold(r.rule) : pct(r.rule.threshold_floor);
  if (r.runs_needed >= 1000) return "more than 1000 runs per side would be needed to detect " + shown;
  return "about " + std::to_string(r.runs_needed) + " runs per side would detect " + shown;
}

}  // namespace

double pooled_sd(double sd_x, std::size_t m, double sd_y, std::size_t n) {
  if (m + n <= 2) return 0;
  const double dm = static_cast<double>(m) - 1.0, dn = static_cast<double>(n) - 1.0;
  return std::sqrt((dm * sd_x * sd_x + dn * sd_y * sd_y) / (dm + dn));
}

// A device series' threshold follows its own noise: a change smaller than k times the between-run
// sd is one that runs of one build show among themselves, so it is not a practical change of the
// code even when the interval resolves it. Host and informational series keep their floor (their
// 3-40 % noise is what many runs average out, not a size of change that does not matter), and so
// do counts and --metric-threshold rows.
void apply_noise_term(AppliedRule& rule) {
  if (rule.series_class != SeriesClass::kDevice || rule.threshold_basis != ThresholdBasis::kFloor ||
      !(rule.noise_multiple > 0) || !(rule.noise_sd > 0))
    return;
  const double noise = std::expm1(rule.noise_multiple * rule.noise_sd);
  if (noise > rule.threshold_floor) {
    rule.threshold = noise;
    rule.threshold_basis = ThresholdBasis::kNoise;
  }
}

// Each series is judged by its own between-run noise: the spread of its run values on both
// sides (Welch), never pooled with other workloads'. With fewer than min_runs runs on a side
// that spread cannot be seen, so the class's documented between-run noise stands in for it.
void estimate(MetricComparison& r, const Thresholds& t, std::size_t gating_series) {
  std::vector<double> x, y;
  for (double v : r.base->reps) x.push_back(std::log(v));
  for (double v : r.cand->reps) y.push_back(std::log(v));
  const double alpha = t.family_alpha / static_cast<double>(std::max<std::size_t>(1, gating_series));
  const WelchResult w = welch(x, y);
  double sd = 0;
  if (x.size() >= t.min_runs && y.size() >= t.min_runs) {
    r.method = "welch-t";
    r.std_error = w.std_error;
    r.df = w.df;
    sd = pooled_sd(w.sd_x, x.size(), w.sd_y, y.size());
    r.rule.noise_sd = sd;
    apply_noise_term(r.rule);
  } else {
    r.method = "class-noise";
    sd = r.rule.class_sd;
    r.std_error = sd * std::sqrt(1.0 / static_cast<double>(x.size()) + 1.0 / static_cast<double>(y.size()));
    r.df = 0;
  }
  const auto quantile = [&](double p) { return r.df > 0 ? student_t_quantile(p, r.df) : normal_quantile(p); };
  r.critical = quantile(1.0 - alpha);
  r.has_estimate = true;
  r.ratio = std::exp(w.diff);
  r.ci_gate = ratio_interval(w.diff, r.critical * r.std_error, 1.0 - 2.0 * alpha);
  r.ci_same = ratio_interval(w.diff, quantile(0.5 + 0.5 * t.same_level) * r.std_error, t.same_level);
  r.abs_change = r.base->center * (r.ratio - 1.0);
  r.runs_needed = runs_to_detect(sd, std::log1p(change_to_resolve(r)), std::log1p(r.rule.noise_floor),
                                 normal_quantile(1.0 - alpha));
}

void judge(MetricComparison& r, const Thresholds& t) {
  const double d = std::log(r.ratio);
  // Work in "badness": positive means worse, whatever the metric's direction.
  const double s = r.direction == Direction::kHigherIsBetter ? -1.0 : 1.0;
  const double bad = s * d;
  const double T = std::log1p(r.rule.threshold), F = std::log1p(r.rule.noise_floor);
  const bool abs_ok = std::fabs(r.abs_change) >= r.rule.abs_floor;
  const std::string change = format_change(r.ratio);
  const std::string worse = s > 0 ? "slower" : "worse";
  const std::string better = s > 0 ? "faster" : "better";
  const std::string below_abs = change + " is only " + format_value(std::fabs(r.abs_change), r.unit) +
                                ", below the absolute floor of " + format_value(r.rule.abs_floor, r.unit);
  const bool own_noise = r.method == "welch-t";
  const std::string noise = own_noise ? "runs vary by " + strf("%.1f%%", 100.0 * r.base->spread) + " / " +
                                            strf("%.1f%%", 100.0 * r.cand->spread)
                                      : "assumed " + std::string(to_string(r.rule.series_class)) +
                                            "-class between-run noise " + strf("%.1f%%", 100.0 * r.rule.class_sd);
  const std::string ci = "interval " + format_interval(r.ci_gate);
  const double lo = std::min(s * std::log(r.ci_gate.low), s * std::log(r.ci_gate.high));
  const double hi = std::max(s * std::log(r.ci_gate.low), s * std::log(r.ci_gate.high));
  // Sameness is shown within the floor, never within a band the noise widened: a noisy series
  // whose change is below its threshold, but not shown to be small, is undecided, not "same".
  const double S = std::log1p(r.rule.threshold_floor);
  const bool equivalent = -S < std::log(r.ci_same.low) && std::log(r.ci_same.high) < S;

  if (lo > F && bad >= T) {
    r.verdict = abs_ok ? Verdict::kRegression : Verdict::kMinor;
    r.reason = abs_ok ? change + " (" + ci + ", " + runs_text(r) + ") is beyond " + threshold_phrase(r.rule)
                      : below_abs;
  } else if (hi < -F && bad <= -T) {
    r.verdict = abs_ok ? Verdict::kImprovement : Verdict::kMinor;
    r.reason = abs_ok ? change + " (" + ci + ", " + runs_text(r) + ") is beyond " + threshold_phrase(r.rule)
                      : below_abs;
  } else if (lo > F || hi < -F) {
    r.verdict = Verdict::kMinor;
    r.reason = (lo > F ? worse : better) + " by " + change + ", a real change (" + ci + ") below " +
               threshold_phrase(r.rule);
  } else if (equivalent) {
    r.verdict = Verdict::kSame;
    r.reason = "within ±" + pct(r.rule.threshold_floor) + ": " + pct(t.same_level) + " CI " + format_interval(r.ci_same) +
               " (" + runs_text(r) + ")";
  } else {
    r.verdict = Verdict::kInconclusive;
    r.likely_regression = bad >= T;
    const std::string what = bad >= T ? "likely regression: " : bad <= -T ? "likely improvement: " : "";
    if (!own_noise) {
      r.not_enough_runs = true;
      r.reason = what + "not enough runs (" + runs_text(r) + "): " + change + " is within what " + noise +
                 " allows; run " + std::to_string(kRunsPerSide) + " per side";
    } else {
      const std::string need = runs_needed_text(r);
      r.reason = what + change + " (" + ci + ") is not decided: " + noise + (need.empty() ? "" : "; " + need);
    }
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
  const std::string clocks = "SM clock " + strf("%.0f", bk / 1000) + " -> " + strf("%.0f", ck / 1000) + " MHz";
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

GateEffect effect_of(const MetricComparison& r, const Thresholds& t) {
  switch (r.verdict) {
    case Verdict::kFailed: return GateEffect::kFail;
    case Verdict::kRegression: return r.rule.gating ? GateEffect::kFail : GateEffect::kPass;
    case Verdict::kInconclusive:
      if (t.strict && r.likely_regression && r.rule.gating) return GateEffect::kFail;
      // Too few runs to decide a gating series: the gate cannot vouch for it either way.
      return (r.not_enough_runs && r.rule.gating) ? GateEffect::kUntrusted : GateEffect::kPass;
    case Verdict::kMissing:
      return (r.rule.gating && !t.allow_missing) ? GateEffect::kUntrusted : GateEffect::kPass;
    case Verdict::kInvalid:
    case Verdict::kNotComparable: return r.rule.gating ? GateEffect::kUntrusted : GateEffect::kPass;
    default: return GateEffect::kPass;
  }
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
    c.exit_reason = join(parts, ", ");
    return;
  }
  std::vector<std::string> parts;
  if (!c.environment.comparable) {
    for (const auto& d : c.environment.differences)
      if (d.hard) parts.push_back(d.key + " differs (" + d.baseline + " vs " + d.candidate + ")");
  }
  std::size_t missing = 0, invalid = 0, notcmp = 0, few = 0, level = 0;
  for (const auto& r : c.rows) {
    if (r.effect != GateEffect::kUntrusted) continue;
    if (r.verdict == Verdict::kMissing) ++missing;
    else if (r.verdict == Verdict::kInvalid) ++invalid;
    else if (r.verdict == Verdict::kInconclusive) ++few;
    else if (!r.device_level.empty() || !r.device_switches.empty()) ++level;
    else ++notcmp;
  }
  if (c.environment.comparable) {
    if (missing) parts.push_back(plural(missing, "missing benchmark or metric (--allow-missing to accept)",
                                        "missing benchmarks or metrics (--allow-missing to accept)"));
    if (invalid) parts.push_back(plural(invalid, "metric with invalid data", "metrics with invalid data"));
    if (notcmp) parts.push_back(plural(notcmp, "metric not comparable", "metrics not comparable"));
    if (level)
      parts.push_back(plural(level, "regression", "regressions") +
                      " measured at different device levels, or while the device switched levels (docs/findings.md \"Parity\")");
    if (few)
      parts.push_back("not enough runs: " + plural(few, "gating series", "gating series") + " undecided (run " +
                      std::to_string(kRunsPerSide) + " processes per side)");
  }
  if (c.compared == 0 && parts.empty()) parts.push_back("nothing was compared: no metric has data on both sides");
  if (!parts.empty()) {
    c.exit_code = ExitCode::kUntrusted;
    c.exit_reason = join(parts, ", ");
    return;
  }
  c.exit_code = ExitCode::kOk;
  c.exit_reason = "no regression";
}

}  // namespace gp::compare_detail
