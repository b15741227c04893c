// Number and label formatting of a Comparison, shared by the verdict reasons (src/compare) and
// every rendering of it (src/report/compare_*.cpp): fixed printf formats, so the same Comparison
// always gives the same bytes. src/compare/compare_format.cpp.
#pragma once
#include <string>
#include <vector>

#include "graphprof/compare/comparison.hpp"

namespace gp {

std::string format_change(double ratio);                 // "+12.3%", "-0.4%", "+0.0%"
std::string format_interval(const RatioInterval& ci);    // "+10.1% .. +14.6%", or "n/a"
std::string format_value(double v, const std::string& unit);  // "1.21 µs", "42 count"
std::string format_spread(const SideData& s);            // "0.4%": sd of the log run values
// A row's threshold: "3%" (the floor, a --metric-threshold, a count), "8.3%" (from the noise).
// `unit`: the metric's, for an absolute threshold (ThresholdBasis::kAbsolute).
std::string format_threshold(const AppliedRule& rule, const std::string& unit = "");
// "the 3% threshold", "the 8.3% threshold (3 x the runs' 2.8% spread)" - for reason lines.
std::string threshold_phrase(const AppliedRule& rule);
// "" for the floor, " (3 x the runs' 2.8% spread)" for a noise threshold, " (--metric-threshold)".
std::string threshold_origin_note(const AppliedRule& rule);
// The rule in words: "max(3%, 3 x the between-run sd of its runs)", or "3%" without a noise term.
std::string threshold_rule_text(const Thresholds& t);
// The threshold with where it came from, for detail lines: "12.0% (3 x the runs' 3.8% spread,
// above the 3% floor)", "3% (the floor)", "4% (set by --metric-threshold)", "3% (a count: the floor)".
std::string threshold_explained(const AppliedRule& rule, const std::string& unit = "");
// The short column text of every table: "3%", "8.3% (3σ)", "10% (set)", "3% (count)".
std::string threshold_cell(const AppliedRule& rule, const std::string& unit = "");
// "regression", "regression (info)" for a metric that does not gate, ...
std::string verdict_label(const MetricComparison& r);
// "FAIL (exit 1): 2 regressions" - the result every output starts with; `exit` is the status the
// command returns for it (the CLI chooses it from c.outcome).
std::string result_line(const Comparison& c, ExitCode exit);
// "2 regressions, 57 same" over the gating (or the informational) rows; "none" when empty.
std::string verdict_counts(const Comparison& c, bool gating);
// "1% false-alarm rate over 34 series": the suite-wide budget and the gating series it is split over.
std::string false_alarm_text(const Comparison& c);
// The rule of a comparison of two profiles (rows of method "profile-runs", docs/compare.md "Two
// profiles"), in lines of at most ~100 columns; empty for a comparison of runs. The console and
// the Markdown say it instead of the run rule.
std::vector<std::string> profile_rule_lines(const Comparison& c);
// result_line plus both counts, in one line.
std::string headline(const Comparison& c, ExitCode exit);
// Rows in reading order: gating rows first, then by severity, larger changes first, then by name.
std::vector<const MetricComparison*> rows_by_severity(const Comparison& c);

}  // namespace gp
