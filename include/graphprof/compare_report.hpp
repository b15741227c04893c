// Renderings of one Comparison: terminal table, Markdown (PR comments, job summaries), JUnit
// XML (CI dashboards) and JSON (every number behind every verdict). All of them read the same
// Comparison and format numbers with fixed rules, so repeated runs give byte-identical text.
#pragma once
#include <cstddef>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "graphprof/compare.hpp"
#include "graphprof/params.hpp"  // params_text, used with these

namespace gp {

struct CompareConsoleOptions {
  bool color = false;     // ANSI colours; the CLI enables them only on a TTY without NO_COLOR
  bool show_all = false;  // also list rows whose verdict is "same"
  bool verbose = false;   // print each row's full reason and notes under it
};

void print_compare_console(const Comparison& c, std::ostream& out, const CompareConsoleOptions& options);

// GitHub-flavoured Markdown, at most `max_bytes` bytes (rows that do not fit are counted, not
// cut in half); regressions and failures come first so they survive the cap.
inline constexpr std::size_t kDefaultMarkdownBytes = 60000;
std::string render_compare_markdown(const Comparison& c, std::size_t max_bytes = kDefaultMarkdownBytes);

std::string render_compare_junit(const Comparison& c);

nlohmann::json compare_to_json(const Comparison& c);
std::string render_compare_json(const Comparison& c);  // pretty-printed, newline-terminated

// Formatting shared by the reporters and the verdict reasons.
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
