// Sections of the HTML report that live in their own files (see html_report.hpp). Each returns
// a complete <section> (or an empty string when it has nothing to show). Private to src/report.
#pragma once
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "graphprof/report/html_report.hpp"

namespace gp::html {

// The graphs' pictures: one figure per result whose sections name a DOT dump.
std::string graphs_section(const Report& report, const HtmlReportOptions& options);

// The verdicts of a `compare --json` document, regressions first, and a chart of the changes.
std::string comparison_section(const nlohmann::json& doc, const std::string& source);

// A table cell's text for a duration with its interval: "100 µs [99.9 µs, 100 µs]".
std::string ns_with_interval(double median, double low, double high);

}  // namespace gp::html
