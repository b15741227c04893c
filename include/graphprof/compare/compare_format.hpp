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
// "regression", "regression (info)" for a metric that does not gate, ...
std::string verdict_label(const MetricComparison& r);
// "FAIL (exit 1): 2 regressions" - the result every output starts with.
std::string result_line(const Comparison& c);
// "2 regressions, 57 same" over the gating (or the informational) rows; "none" when empty.
std::string verdict_counts(const Comparison& c, bool gating);
// "1% false-alarm rate over 34 series": the suite-wide budget and the gating series it is split over.
std::string false_alarm_text(const Comparison& c);
// result_line plus both counts, in one line.
std::string headline(const Comparison& c);
// Rows in reading order: gating rows first, then by severity, larger changes first, then by name.
std::vector<const MetricComparison*> rows_by_severity(const Comparison& c);

}  // namespace gp
