// Sections of the HTML report that live in their own files (see html_report.hpp). Each returns
// a complete <section> (or an empty string when it has nothing to show). Private to src/report.
#pragma once
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "graphprof/core/profile_section.hpp"

#include "graphprof/report/html_report.hpp"

namespace gp::html {

// The graphs' pictures: one figure per result whose sections name a DOT dump.
std::string graphs_section(const Report& report, const HtmlReportOptions& options);

// One result's graph picture (inline SVG `graph-svg-<index>`, a heat map with a table of its
// slowest nodes when the result has per-node times) as a <figure id="id">. `drawn` is false when
// the dump is not here or cannot be read (the figure then says so).
struct GraphFigure {
  std::string html;
  bool drawn = false;
};
GraphFigure graph_figure(const ModeResult& r, const HtmlReportOptions& options, std::size_t index, const std::string& id,
                         const std::string& title, const std::string& subtitle);

// The page of a `graphprof profile` report (html_profile.cpp).
std::string profile_page(const Report& report, const HtmlReportOptions& options);

// A profile process's "Steps by kind" (html_steps.cpp): empty when the report has none.
std::string step_kinds_section(const ProfileProcess& process, const std::string& tag);

// The page's shared parts (html_report.cpp): the style sheet, and the environment and command line.
extern const char* const kPageStyle;
std::string environment_section(const Report& report, const HtmlReportOptions& options);

// The verdicts of a `compare --json` document, regressions first, and a chart of the changes.
std::string comparison_section(const nlohmann::json& doc, const std::string& source);

// A table cell's text for a duration with its interval: "100 µs [99.9 µs, 100 µs]".
std::string ns_with_interval(double median, double low, double high);

}  // namespace gp::html
