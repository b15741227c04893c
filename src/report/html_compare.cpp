// The comparison section of the HTML report, read from the JSON that `graphprof compare --json`
// writes (docs/compare.md): the headline, banners, verdict counts, a chart of the changes with
// their gate intervals, and every row, regressions first. Fields are read defensively: a
// document of a newer minor version shows what this reader knows.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "graphprof/core/json_text.hpp"
#include "graphprof/compare/comparison.hpp"
#include "graphprof/core/text_format.hpp"
#include "graphprof/report/compare_report.hpp"
#include "html_sections.hpp"
#include "html_svg.hpp"

namespace gp::html {

namespace {

using nlohmann::json;

// More chart rows than this are hard to read; the table below lists them all.
constexpr std::size_t kMaxChartRows = 40;

std::string str(const json& j, const char* key) {
  return j.is_object() && j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : std::string();
}

double number(const json& j, const char* key) {
  return j.is_object() && j.contains(key) && j[key].is_number() ? j[key].get<double>() : NAN;
}

// The row's device-level check (compare JSON 2.1: "device_level"), shown where it found something:
// " device level: 508 -> 685 ns/kernel (differs)", "... (candidate switched)".
std::string device_level_note(const json& row) {
  const json d = row.is_object() ? row.value("device_level", json()) : json();
  if (!d.is_object()) return "";
  std::vector<std::string> found;
  if (d.value("differs", false)) found.push_back("levels differ");
  if (d.value("baseline_switched", false)) found.push_back("baseline switched");
  if (d.value("candidate_switched", false)) found.push_back("candidate switched");
  if (found.empty()) return "";
  auto ns = [&](const char* key) {
    const double v = number(d, key);
    return std::isfinite(v) ? strf("%.0f", v) : std::string("?");
  };
  return " <span class=\"gp-note\">device level: " + escape(ns("baseline_ns_per_kernel")) + " -> " +
         escape(ns("candidate_ns_per_kernel")) + " ns/kernel (" + escape(join(found, ", ")) + ")</span>";
}

// Reading order of a verdict name (gp::severity); unknown names go last.
int severity_of(const std::string& verdict) {
  for (int v = 0; v <= static_cast<int>(Verdict::kSame); ++v)
    if (verdict == to_string(static_cast<Verdict>(v))) return severity(static_cast<Verdict>(v));
  return 100;
}

struct Row {
  const json* j;
  std::string benchmark, metric, verdict, unit;
  std::string workload = {}, mode = {};  // "update", "graph" (empty in documents without them)
  std::vector<std::pair<std::string, std::string>> params = {};
  bool gating = false;
  double ratio = NAN, low = NAN, high = NAN;
  double threshold = NAN;  // the row's own (rule.threshold); schema 2.1 says where it comes from
  double abs_floor = NAN;  // rule.abs_floor: the threshold of an "absolute" row, in its unit
  std::string basis = {};
  bool both_sides = false;
};

// "3%", "8.3% (noise)", "2 points": the threshold the row was judged by, and where it came from
// unless the floor.
std::string threshold_text(const Row& r) {
  if (!r.both_sides) return "-";
  if (r.basis == "absolute" && std::isfinite(r.abs_floor))
    return r.unit == "%" ? strf("%g points", r.abs_floor) : format_value(r.abs_floor, r.unit);
  if (!std::isfinite(r.threshold)) return "-";
  const std::string v = strf(r.basis == "noise" ? "%.1f%%" : "%g%%", 100 * r.threshold);
  return r.basis.empty() || r.basis == "floor" ? v : v + " (" + r.basis + ")";
}

// "update/graph": what tells most rows apart; "" when the row does not say its workload.
std::string short_benchmark(const Row& r) { return r.workload.empty() ? "" : r.workload + (r.mode.empty() ? "" : "/" + r.mode); }

// A short label per row, unique where the benchmarks are: workload/mode, with the parameters in
// which rows of that same workload/mode and metric differ ("update[kernels=32]/graph"); the whole
// benchmark where the row does not say its parts.
std::vector<std::string> short_labels(const std::vector<const Row*>& rows) {
  std::vector<std::string> out;
  for (const Row* r : rows) {
    const std::string base = short_benchmark(*r);
    if (base.empty()) {
      out.push_back(r->benchmark + " " + r->metric);
      continue;
    }
    std::vector<std::string> differ;  // parameters with another value in a row of the same base
    for (const auto& param : r->params) {
      const std::string& key = param.first;  // not a structured binding: C++17 lambdas cannot capture one
      const std::string& value = param.second;
      for (const Row* o : rows)
        if (o != r && short_benchmark(*o) == base && o->metric == r->metric && o->benchmark != r->benchmark) {
          const auto it = std::find_if(o->params.begin(), o->params.end(), [&](const auto& p) { return p.first == key; });
          if (it == o->params.end() || it->second != value) {
            differ.push_back(key + "=" + value);
            break;
          }
        }
    }
    out.push_back(r->workload + (differ.empty() ? "" : "[" + join(differ, ",") + "]") +
                  (r->mode.empty() ? "" : "/" + r->mode) + " " + r->metric);
  }
  return out;
}

std::string change_text(double ratio) { return std::isfinite(ratio) ? format_change(ratio) : "-"; }

std::string value_text(const json& side, const std::string& unit) {
  const double c = number(side, "center");
  return std::isfinite(c) ? format_value(c, unit) : "-";
}

std::string headline_class(int exit_code) {
  if (exit_code == 0) return "gp-pass";
  if (exit_code == 5) return "gp-untrusted";
  return "gp-fail";
}

}  // namespace

namespace {

// The headline, where the two reports came from, and the banners and environment warnings.
std::string comparison_heading(const json& doc, const std::string& source) {
  std::string s;
  const json summary = doc.value("summary", json::object());
  const int exit_code = summary.contains("exit_code") && summary["exit_code"].is_number_integer()
                            ? summary["exit_code"].get<int>()
                            : -1;
  s += "<p class=\"gp-headline " + headline_class(exit_code) + "\" id=\"compare-headline\">" +
       escape(str(summary, "headline").empty() ? str(summary, "exit_reason") : str(summary, "headline")) + "</p>\n";
  const json base = doc.value("baseline", json::object()), cand = doc.value("candidate", json::object());
  s += "<p class=\"gp-note\">baseline <code>" + escape(str(base, "path")) + "</code> (" +
       escape(str(base, "git_revision")) + ", " + escape(str(base, "created_utc")) + ") · candidate <code>" +
       escape(str(cand, "path")) + "</code> (" + escape(str(cand, "git_revision")) + ", " +
       escape(str(cand, "created_utc")) + ")";
  if (!source.empty()) s += " · from <code>" + escape(source) + "</code>";
  s += "</p>\n";
  const json env = doc.value("environment", json::object());
  for (const json& list : {summary.value("banners", json()), env.value("warnings", json())})
    if (list.is_array())
      for (const auto& line : list)
        if (line.is_string()) s += "<p class=\"gp-warn\">" + escape(line.get<std::string>()) + "</p>\n";
  return s;
}

// One row of the document as the section reads it.
Row comparison_row(const json& r) {
  Row row{&r, str(r, "benchmark"), str(r, "metric"), str(r, "verdict"), str(r, "unit")};
  row.gating = r.value("gating", false);
  row.workload = str(r, "workload");
  row.mode = str(r, "mode");
  if (r.contains("params") && r["params"].is_object())
    for (const auto& [key, value] : r["params"].items())
      row.params.emplace_back(key, value.is_string() ? value.get<std::string>() : json_text(value));
  const json rule = r.value("rule", json());
  row.threshold = number(rule, "threshold");
  row.abs_floor = number(rule, "abs_floor");
  row.basis = str(rule, "threshold_basis");
  row.both_sides = r.value("baseline", json()).is_object() && r.value("candidate", json()).is_object();
  const json est = r.value("estimate", json());
  if (est.is_object()) {
    row.ratio = number(est, "ratio");
    const json ci = est.value("ci_gate", json());
    row.low = number(ci, "ratio_low"), row.high = number(ci, "ratio_high");
  }
  return row;
}

// Every row of the document in reading order: gating first, then by severity, then the largest
// change, then by name.
std::vector<Row> comparison_rows_in_reading_order(const json& doc) {
  std::vector<Row> rows;
  for (const json& r : doc["rows"]) {
    if (!r.is_object()) continue;
    rows.push_back(comparison_row(r));
  }
  std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
    if (a.gating != b.gating) return a.gating;
    if (severity_of(a.verdict) != severity_of(b.verdict)) return severity_of(a.verdict) < severity_of(b.verdict);
    const double la = std::isfinite(a.ratio) ? std::fabs(std::log(a.ratio)) : 0;
    const double lb = std::isfinite(b.ratio) ? std::fabs(std::log(b.ratio)) : 0;
    if (la != lb) return la > lb;
    return a.benchmark + a.metric < b.benchmark + b.metric;
  });
  return rows;
}

// The chart: gating rows with an estimate, in reading order ("" when there is none).
std::string comparison_change_chart(const json& doc, const std::vector<Row>& rows) {
  std::string s;
  ChangeChart chart;
  chart.id = "chart-compare-changes";
  const json settings = doc.value("settings", json::object());
  if (std::isfinite(number(settings, "threshold"))) chart.threshold = number(settings, "threshold");
  std::size_t left_out = 0;
  std::vector<const Row*> charted;
  for (const Row& r : rows) {
    if (!r.gating || !std::isfinite(r.ratio)) continue;
    if (charted.size() >= kMaxChartRows) {
      ++left_out;
      continue;
    }
    charted.push_back(&r);
  }
  const std::vector<std::string> labels = short_labels(charted);
  for (std::size_t i = 0; i < charted.size(); ++i) {
    const Row& r = *charted[i];
    Change c;
    c.label = labels[i];
    c.css = "gp-verdict-" + css_token(r.verdict);
    c.change = r.ratio - 1;
    if (std::isfinite(r.threshold)) c.threshold = r.threshold;
    if (std::isfinite(r.low) && std::isfinite(r.high)) c.low = r.low - 1, c.high = r.high - 1;
    else c.low = 1, c.high = 0;
    c.tooltip = r.benchmark + " " + r.metric + ": " + r.verdict + ", " + change_text(r.ratio) + ", 99% CI " +
                (std::isfinite(r.low) ? change_text(r.low) + " .. " + change_text(r.high) : std::string("n/a"));
    chart.rows.push_back(std::move(c));
  }
  if (!chart.rows.empty()) {
    s += "<figure><h4>Change of each gating metric with its 99% interval (point: estimate; colour: verdict)</h4>" +
         svg_change_chart(chart);
    if (left_out > 0)
      s += "<figcaption>" + std::to_string(left_out) + " more gating rows are in the table below.</figcaption>";
    s += "</figure>\n";
  }
  return s;
}

// workload/mode on the first line, the parameters (which can wrap) under it, the whole name
// in the tooltip: a benchmark name has no space to wrap at and made the table wider than the page.
std::string comparison_benchmark_cell(const Row& r) {
  if (short_benchmark(r).empty()) return escape(r.benchmark);
  std::vector<std::string> params;
  for (const auto& [key, value] : r.params) params.push_back(key + "=" + value);
  return "<span title=\"" + escape(r.benchmark) + "\">" + escape(short_benchmark(r)) + "</span>" +
         (params.empty() ? "" : "<br><span class=\"gp-note\">" + escape(join(params, " ")) + "</span>");
}

std::string comparison_table_row(const Row& r) {
  const json& j = *r.j;
  const std::string unit = r.unit;
  return "<tr><td class=\"l\">" + comparison_benchmark_cell(r) + "</td><td class=\"l\">" + escape(r.metric) +
         (r.gating ? "" : " <span class=\"gp-note\">(info)</span>") + "</td><td class=\"l gp-verdict gp-verdict-" +
         css_token(r.verdict) + "\">" + escape(r.verdict) + "</td><td>" + escape(change_text(r.ratio)) + "</td><td>" +
         escape(std::isfinite(r.low) ? change_text(r.low) + " .. " + change_text(r.high) : "-") + "</td><td>" +
         escape(threshold_text(r)) + "</td><td>" +
         escape(value_text(j.value("baseline", json()), unit)) + "</td><td>" +
         escape(value_text(j.value("candidate", json()), unit)) + "</td><td class=\"l\">" +
         escape(str(j, "reason")) + device_level_note(j) + "</td></tr>\n";
}

// The table: every row that is not "same" first, the "same" ones folded.
std::string comparison_tables(const std::vector<Row>& rows) {
  std::string s;
  const std::string head =
      "<thead><tr><th class=\"l\">benchmark</th><th class=\"l\">metric</th><th class=\"l\">verdict</th>"
      "<th>change</th><th>99% interval</th><th>threshold</th><th>baseline</th><th>candidate</th><th class=\"l\">reason</th></tr></thead>";
  std::string shown, same;
  std::size_t same_count = 0;
  for (const Row& r : rows) {
    if (r.verdict == "same") {
      same += comparison_table_row(r);
      ++same_count;
    } else {
      shown += comparison_table_row(r);
    }
  }
  s += "<div class=\"gp-table-wrap\"><table id=\"table-compare\" class=\"gp-table gp-compare\">" + head + "<tbody>\n" + shown +
       "</tbody></table></div>\n";
  if (same_count > 0)
    s += "<details><summary>" + std::to_string(same_count) +
         " rows shown to be the same</summary><div class=\"gp-table-wrap\"><table id=\"table-compare-same\" "
         "class=\"gp-table gp-compare\">" +
         head + "<tbody>\n" + same + "</tbody></table></div></details>\n";
  return s;
}

// The drift list ("" when the document has none).
std::string comparison_drift(const json& doc) {
  std::string s;
  if (doc.contains("drift") && doc["drift"].is_array() && !doc["drift"].empty()) {
    s += "<h4>Drift (graph structure or outputs changed)</h4><ul>";
    for (const auto& d : doc["drift"]) s += "<li>" + escape(str(d, "benchmark") + ": " + str(d, "what")) + "</li>";
    s += "</ul>\n";
  }
  return s;
}

}  // namespace

std::string comparison_section(const json& doc, const std::string& source) {
  std::string s = "<section id=\"comparison\"><h2>Comparison</h2>\n";
  if (!doc.is_object() || !doc.contains("rows") || !doc["rows"].is_array()) {
    return s + "<p class=\"gp-warn\">" + escape(source) +
           ": not a comparison written by <code>graphprof compare --json</code> (no \"rows\")</p></section>\n";
  }
  s += comparison_heading(doc, source);
  const std::vector<Row> rows = comparison_rows_in_reading_order(doc);
  s += comparison_change_chart(doc, rows);
  s += comparison_tables(rows);
  s += comparison_drift(doc);
  return s + "</section>\n";
}

}  // namespace gp::html
