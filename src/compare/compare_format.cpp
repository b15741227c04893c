// Number and label formatting shared by every rendering of a Comparison. Fixed printf formats
// only: the same Comparison must always produce the same bytes.
#include <algorithm>
#include <cmath>

#include "graphprof/compare/compare_format.hpp"
#include "graphprof/core/text_format.hpp"

namespace gp {

namespace {
std::string plural_verdict(Verdict v, std::size_t n) {
  std::string s = to_string(v);
  std::replace(s.begin(), s.end(), '_', ' ');
  if (n != 1 && (v == Verdict::kRegression || v == Verdict::kImprovement)) s += "s";
  return s;
}
}  // namespace

std::string format_change(double ratio) {
  if (!std::isfinite(ratio)) return "n/a";
  const double p = (ratio - 1.0) * 100.0;
  // Round first so that -0.04% does not print as "-0.0%".
  const double shown = std::fabs(p) >= 100 ? std::round(p) : std::round(p * 10) / 10;
  if (shown == 0) return "+0.0%";
  if (std::fabs(p) >= 1e6) return strf("%+.3g%%", p);  // a corrupt report's 1e308: not 300 digits
  return strf(std::fabs(p) >= 100 ? "%+.0f%%" : "%+.1f%%", shown);
}

std::string format_interval(const RatioInterval& ci) {
  if (!ci.available) return "n/a";
  return format_change(ci.low) + " .. " + format_change(ci.high);
}

std::string format_value(double v, const std::string& unit) {
  if (!std::isfinite(v)) return "n/a";
  if (unit == "ns") return format_ns(v);
  if (unit == "x") return strf("%.3gx", v);
  // Counts and bytes as people write them: 30,000 and 30,000.5, never 3e+04.
  const std::string n = format_count(v);
  return unit.empty() ? n : n + " " + unit;
}

std::string format_spread(const SideData& s) { return strf("%.1f%%", 100.0 * s.spread); }

namespace {
// An absolute threshold in the row's unit: "1 count", "2 points" (fractions in %).
std::string absolute_text(const AppliedRule& rule, const std::string& unit) {
  return unit == "%" ? strf("%g points", rule.abs_floor) : format_value(rule.abs_floor, unit);
}
}  // namespace

std::string format_threshold(const AppliedRule& rule, const std::string& unit) {
  if (rule.threshold_basis == ThresholdBasis::kAbsolute) return absolute_text(rule, unit);
  const double p = 100.0 * rule.threshold;
  return rule.threshold_basis == ThresholdBasis::kNoise ? strf("%.1f%%", p) : strf("%g%%", p);
}

std::string threshold_origin_note(const AppliedRule& rule) {
  switch (rule.threshold_basis) {
    case ThresholdBasis::kNoise:
      return " (" + strf("%g", rule.noise_multiple) + " x the runs' " + strf("%.1f%%", 100.0 * rule.noise_sd) + " spread)";
    case ThresholdBasis::kFixed: return " (--metric-threshold)";
    case ThresholdBasis::kAbsolute:
    case ThresholdBasis::kDeterministic:
    case ThresholdBasis::kFloor: break;
  }
  return "";
}

std::string threshold_phrase(const AppliedRule& rule) {
  return "the " + format_threshold(rule) + " threshold" + threshold_origin_note(rule);
}

std::string threshold_explained(const AppliedRule& rule, const std::string& unit) {
  std::string why;
  switch (rule.threshold_basis) {
    case ThresholdBasis::kAbsolute: why = "the smallest absolute change that counts"; break;
    case ThresholdBasis::kNoise:
      why = strf("%g", rule.noise_multiple) + " x the runs' " + strf("%.1f%%", 100.0 * rule.noise_sd) +
            " spread, above the " + strf("%g%%", 100.0 * rule.threshold_floor) + " floor";
      break;
    case ThresholdBasis::kFixed: why = "set by --metric-threshold"; break;
    case ThresholdBasis::kDeterministic: why = "a count: the floor, never widened by noise"; break;
    case ThresholdBasis::kFloor: why = "the floor"; break;
  }
  return format_threshold(rule, unit) + " (" + why + ")";
}

std::string threshold_cell(const AppliedRule& rule, const std::string& unit) {
  switch (rule.threshold_basis) {
    case ThresholdBasis::kAbsolute: return absolute_text(rule, unit);
    case ThresholdBasis::kNoise: return format_threshold(rule) + " (" + strf("%g", rule.noise_multiple) + "σ)";
    case ThresholdBasis::kFixed: return format_threshold(rule) + " (set)";
    case ThresholdBasis::kDeterministic: return format_threshold(rule) + " (count)";
    case ThresholdBasis::kFloor: break;
  }
  return format_threshold(rule);
}

std::string threshold_rule_text(const Thresholds& t) {
  const std::string floor = strf("%g%%", 100.0 * t.threshold);
  if (!(t.noise_multiple > 0)) return floor;
  return "max(" + floor + ", " + strf("%g", t.noise_multiple) + " x the between-run sd of its runs)";
}

std::string verdict_label(const MetricComparison& r) {
  std::string s = to_string(r.verdict);
  std::replace(s.begin(), s.end(), '_', ' ');
  if (!r.rule.gating && r.verdict != Verdict::kSame && r.verdict != Verdict::kAdded) s += " (info)";
  return s;
}

const char* outcome_word(CompareOutcome o) {
  switch (o) {
    case CompareOutcome::kPass: return "PASS";
    case CompareOutcome::kRegression: return "FAIL";
    case CompareOutcome::kNotTrustworthy: return "NOT TRUSTWORTHY";
  }
  return "NOT TRUSTWORTHY";
}

std::string result_line(const Comparison& c, ExitCode exit) {
  return std::string(outcome_word(c.outcome)) + " (exit " + std::to_string(static_cast<int>(exit)) + "): " + c.outcome_reason;
}

std::string verdict_counts(const Comparison& c, bool gating) {
  std::string out;
  for (int v = 0; v <= static_cast<int>(Verdict::kSame); ++v) {
    const auto verdict = static_cast<Verdict>(v);
    const auto n = static_cast<std::size_t>(std::count_if(c.rows.begin(), c.rows.end(), [&](const MetricComparison& r) {
      return r.verdict == verdict && r.rule.gating == gating;
    }));
    if (n > 0) out += (out.empty() ? "" : ", ") + std::to_string(n) + " " + plural_verdict(verdict, n);
  }
  return out.empty() ? "none" : out;
}

std::string false_alarm_text(const Comparison& c) {
  return strf("%g%%", 100.0 * c.thresholds.family_alpha) + " false-alarm rate over " + std::to_string(c.gating_series) + " series";
}

std::vector<std::string> profile_rule_lines(const Comparison& c) {
  const bool profile = std::any_of(c.rows.begin(), c.rows.end(), [](const MetricComparison& r) { return r.method == "profile-runs"; });
  if (!profile) return {};
  return {"two profiles, run by run: a row changes by at least its threshold (its threshold column) when",
          "the two sides' runs do not overlap and each side repeats one value (2 or more runs) or so clean",
          "a split is unlikely by chance (at most " + strf("%g%%", 100.0 * c.thresholds.family_alpha) +
              ": 1 / C(nb + nc, nb)); a graph's GPU time per launch",
          "gates at " + threshold_rule_text(c.thresholds) + "; a new capture failure, or a new eager call site",
          "launching 0.05 or more per step, fails on any such split, even with one run a side"};
}

std::string headline(const Comparison& c, ExitCode exit) {
  // Informational rows cannot change the result, so they are counted apart and never read
  // as "3 regressions" next to a pass.
  return result_line(c, exit) + " [gating: " + verdict_counts(c, true) + "; informational: " + verdict_counts(c, false) + "]";
}

std::vector<const MetricComparison*> rows_by_severity(const Comparison& c) {
  std::vector<const MetricComparison*> rows;
  for (const auto& r : c.rows) rows.push_back(&r);
  std::stable_sort(rows.begin(), rows.end(), [](const MetricComparison* a, const MetricComparison* b) {
    if (a->rule.gating != b->rule.gating) return a->rule.gating;
    if (severity(a->verdict) != severity(b->verdict)) return severity(a->verdict) < severity(b->verdict);
    const double ma = a->has_estimate ? std::fabs(std::log(a->ratio)) : 0;
    const double mb = b->has_estimate ? std::fabs(std::log(b->ratio)) : 0;
    return ma > mb;
  });
  return rows;
}

}  // namespace gp
