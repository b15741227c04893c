// The HTML report: one self-contained page (inline CSS and SVG, no script, nothing fetched) with
// the suite summary, bars per mode with their confidence intervals, sweep curves on log-log axes,
// the graphs' pictures (heat maps when the report has per-node times), the trace-perturbation
// table, optionally a comparison's verdicts, and the environment. Reads a Report (and the JSON of
// `compare --json`), never a CUDA type. docs/html.md shows every chart.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "graphprof/core/report.hpp"

namespace gp {

struct HtmlReportOptions {
  std::string title;   // default: "graphprof report: <workloads>"
  std::string source;  // where the report came from (a file name), shown in the header
  // A document written by `graphprof compare --json`: verdicts (regressions first) and a chart
  // of the changes with their intervals.
  std::optional<nlohmann::json> comparison;
  std::string comparison_source;
  // Folders searched (by file name) for the DOT dumps that the report's sections name, when the
  // recorded path does not exist here (a report moved from the GPU machine).
  std::vector<std::string> dot_dirs;
  bool graphs = true;  // draw the graphs' pictures (Graphviz, in process)
};

// The page as text. Problems with optional parts (a DOT dump that cannot be found or read) are
// shown on the page as notes, never thrown.
std::string render_html_report(const Report& report, const HtmlReportOptions& options = {});

}  // namespace gp
