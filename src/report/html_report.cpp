// The HTML report's page: style sheet, header, suite summary, one section per workload (bars per
// mode with their intervals), sweep curves, graphs, trace perturbation, comparison, environment.
// See html_report.hpp; the charts are drawn in html_svg.cpp.
#include "graphprof/core/json_text.hpp"
#include "graphprof/core/metric_catalog.hpp"
#include "graphprof/core/profile_fields.hpp"
#include "graphprof/report/html_report.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "graphprof/core/device_level.hpp"
#include "graphprof/core/params.hpp"
#include "graphprof/report/reporter.hpp"
#include "graphprof/core/text_format.hpp"
#include "html_sections.hpp"
#include "html_svg.hpp"

namespace gp {

namespace html {

using nlohmann::json;

const char* const kPageStyle = R"css(
:root { --eager:#d97706; --capture:#2563eb; --graph:#059669; --other:#6b7280; --ink:#1f2328; --muted:#57606a;
        --line:#d0d7de; --bg-soft:#f6f8fa; --bad:#cf222e; --good:#1a7f37; --warn:#9a6700; }
* { box-sizing:border-box; }
body { font-family:-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,"Noto Sans",sans-serif; color:var(--ink);
       margin:0 auto; max-width:1120px; padding:16px 24px 48px; line-height:1.45; font-size:15px; }
h1 { font-size:1.6em; margin:0.2em 0 0.1em; } h2 { font-size:1.3em; border-bottom:1px solid var(--line);
     padding-bottom:4px; margin-top:1.8em; } h3 { font-size:1.1em; margin:1.4em 0 0.4em; }
h4 { font-size:0.95em; margin:0.8em 0 0.2em; color:var(--muted); font-weight:600; }
.gp-sub { color:var(--muted); margin:0; } nav { margin:10px 0 0; font-size:0.9em; }
nav a { margin-right:14px; color:#0969da; text-decoration:none; } nav a:hover { text-decoration:underline; }
table { border-collapse:collapse; margin:6px 0 10px; font-size:0.88em; font-variant-numeric:tabular-nums; }
th, td { border-bottom:1px solid var(--line); padding:4px 10px; text-align:right; vertical-align:top; }
th { background:var(--bg-soft); font-weight:600; } th:first-child, td:first-child, td.l, th.l { text-align:left; }
td:not(.l) { white-space:nowrap; }
.gp-table-wrap { overflow-x:auto; } table.gp-compare th, table.gp-compare td { padding:4px 6px; } .gp-note { color:var(--muted); font-size:0.9em; }
.gp-warn { color:var(--warn); } .gp-bad { color:var(--bad); font-weight:600; } .gp-good { color:var(--good); }
.gp-charts { display:flex; flex-wrap:wrap; gap:4px 28px; } figure { margin:0 0 14px; }
figure figcaption { font-size:0.85em; color:var(--muted); max-width:640px; }
code { background:var(--bg-soft); padding:1px 4px; border-radius:3px; font-size:0.9em; word-break:break-all; }
pre { background:var(--bg-soft); padding:8px 12px; border-radius:6px; } pre code { background:none; padding:0; word-break:normal; }
svg.gp-chart { max-width:100%; height:auto; font-size:12px; display:block; }
svg.gp-chart text { fill:var(--ink); } .gp-tick { fill:var(--muted) !important; font-size:11px; }
.gp-axis-label { font-size:11.5px; fill:var(--muted) !important; }
.gp-grid { stroke:#eaeef2; stroke-width:1; } .gp-axis { stroke:#8c959f; stroke-width:1; }
.gp-zero { stroke:#57606a; stroke-width:1.2; } .gp-band { fill:#eaeef2; } .gp-row-threshold { stroke:#8c959f; stroke-width:2; }
.gp-whisker { stroke:#24292f; stroke-width:1.4; }
.gp-bar rect { fill:var(--other); } .gp-series polyline { fill:none; stroke:var(--other); stroke-width:2; }
.gp-series circle, .gp-legend circle { fill:var(--other); } .gp-legend line { stroke:var(--other); stroke-width:2; }
.gp-mode-eager rect, .gp-mode-eager circle { fill:var(--eager); } .gp-mode-eager polyline, .gp-mode-eager line { stroke:var(--eager); }
.gp-mode-capture rect, .gp-mode-capture circle { fill:var(--capture); } .gp-mode-capture polyline, .gp-mode-capture line { stroke:var(--capture); }
.gp-mode-graph rect, .gp-mode-graph circle { fill:var(--graph); } .gp-mode-graph polyline, .gp-mode-graph line { stroke:var(--graph); }
.gp-series .gp-whisker, .gp-bar .gp-whisker { stroke:#24292f; }
.gp-change circle { fill:var(--other); } .gp-verdict-regression circle, .gp-verdict-failed circle { fill:var(--bad); }
.gp-verdict-improvement circle { fill:var(--good); } .gp-verdict-same circle { fill:#8c959f; }
.gp-verdict-inconclusive circle, .gp-verdict-minor circle { fill:var(--warn); }
.gp-graph { overflow:auto; max-height:900px; border:1px solid var(--line); border-radius:6px; padding:6px; background:#fff; }
.gp-graph svg { max-width:100%; height:auto; }
details summary { cursor:pointer; color:#0969da; margin:6px 0; }
.gp-verdict { font-weight:600; } td.gp-verdict-regression, td.gp-verdict-failed { color:var(--bad); }
td.gp-verdict-improvement { color:var(--good); } td.gp-verdict-inconclusive { color:var(--warn); }
.gp-headline { font-size:1.05em; padding:8px 12px; border-radius:6px; background:var(--bg-soft); border-left:5px solid var(--line); }
.gp-headline.gp-fail { border-left-color:var(--bad); } .gp-headline.gp-pass { border-left-color:var(--good); }
.gp-headline.gp-untrusted { border-left-color:var(--warn); }
.gp-strip { display:flex; flex-wrap:wrap; gap:10px; margin:10px 0 14px; }
.gp-stat { background:var(--bg-soft); border:1px solid var(--line); border-radius:6px; padding:8px 12px; min-width:160px; flex:1 1 160px; }
.gp-stat b { display:block; font-size:1.45em; margin:2px 0; } .gp-stat span { color:var(--muted); font-size:0.82em; display:block; }
.gp-tl-graph { fill:var(--graph); } .gp-tl-eager { fill:var(--eager); } .gp-tl-made { fill:var(--capture); }
dl.gp-env { display:grid; grid-template-columns:max-content 1fr; gap:2px 16px; font-size:0.9em; }
dl.gp-env dt { color:var(--muted); } dl.gp-env dd { margin:0; }
@media (max-width:720px) { body { padding:10px; font-size:14px; } }
@media print {
  body { max-width:none; padding:0; font-size:11pt; } nav { display:none; }
  section, figure, table { break-inside:avoid; } h2, h3 { break-after:avoid; }
  .gp-graph { max-height:none; overflow:visible; border:none; } details > *:not(summary) { display:block; }
  a { color:inherit; text-decoration:none; }
}
)css";

namespace {

const Metric* metric(const ModeResult& r, const std::string& key) {
  auto it = r.metrics.find(key);
  return it == r.metrics.end() ? nullptr : &it->second;
}

std::string mode_css(Mode mode) { return std::string("gp-mode-") + css_token(to_string(mode)); }

// One (workload, params) and its results in report order.
struct Benchmark {
  std::string workload;
  std::map<std::string, std::string> params;
  std::vector<const ModeResult*> modes;
  const ModeResult* find(Mode mode) const {
    for (const ModeResult* r : modes)
      if (r->mode == mode) return r;
    return nullptr;
  }
};

std::vector<Benchmark> benchmarks_of(const Report& report) {
  std::vector<Benchmark> out;
  for (const ModeResult& r : report.results) {
    auto it = std::find_if(out.begin(), out.end(),
                           [&](const Benchmark& b) { return b.workload == r.workload && b.params == r.params; });
    if (it == out.end()) {
      out.push_back({r.workload, r.params, {}});
      it = out.end() - 1;
    }
    it->modes.push_back(&r);
  }
  return out;
}

// Parameters whose value differs between the benchmarks of one workload (what a sweep varies).
std::vector<std::string> varying_params(const std::vector<const Benchmark*>& group) {
  std::vector<std::string> keys;
  for (const auto& [k, v] : group.front()->params)
    for (const Benchmark* b : group) {
      auto it = b->params.find(k);
      if (it == b->params.end() || it->second != v) {
        keys.push_back(k);
        break;
      }
    }
  return keys;
}

// The console's rules (reporter.hpp), for a mode that may be missing or failed.
std::string speedup_text(const ModeResult* r) {
  return r == nullptr || r->status != Status::kOk ? "-" : speedup_cell(*r);
}

std::string break_even_text(const ModeResult* r) {
  return r == nullptr || r->status != Status::kOk ? "-" : break_even_cell(*r);
}

std::string gpu_cell(const ModeResult* r) {
  if (r == nullptr) return "-";
  if (r->status != Status::kOk) return to_string(r->status);
  return format_ns(median_or_nan(*r, metric_key::kGpuTimePerIter));
}

std::string outputs_text(const Benchmark& b) {
  bool any = false, same = true;
  for (const ModeResult* r : b.modes)
    if (r->checksum_matches_eager && r->mode != Mode::kEager) {
      any = true;
      same = same && *r->checksum_matches_eager;
    }
  if (!any) return "-";
  return same ? "same" : "<span class=\"gp-bad\">DIFFERENT</span>";
}

// A bar per mode of one metric, whisker = the 95 % CI of the median.
std::string mode_bars(const Benchmark& b, const std::string& key, const std::string& id, const std::string& label) {
  BarChart chart;
  chart.id = id;
  chart.axis_label = label;
  chart.unit = "ns";
  for (const ModeResult* r : b.modes) {
    if (r->status != Status::kOk) continue;
    const Metric* m = metric(*r, key);
    if (m == nullptr || m->summary.n == 0) continue;
    const Summary& s = m->summary;
    chart.unit = m->unit;
    Bar bar;
    bar.label = to_string(r->mode);
    bar.css = mode_css(r->mode);
    bar.value = s.median;
    bar.low = s.ci_low;
    bar.high = s.ci_high;
    bar.value_text = (m->unit == "ns" ? format_ns(s.median) : format_count(s.median)) + " " + ci_percent_cell(s);
    bar.tooltip = std::string(to_string(r->mode)) + ": median " + format_ns(s.median) + ", 95% CI [" + format_ns(s.ci_low) + ", " +
                  format_ns(s.ci_high) + "], p10 " + format_ns(s.p10) + ", p90 " + format_ns(s.p90) +
                  ", n=" + std::to_string(s.n);
    chart.bars.push_back(std::move(bar));
  }
  if (chart.bars.empty()) return {};
  return "<figure><h4>" + escape(label) + "</h4>" + svg_bar_chart(chart) + "</figure>\n";
}

std::string header(const Report& report, const HtmlReportOptions& options, const std::string& title,
                   bool has_sweep, bool has_graphs, bool has_trace) {
  std::string s = "<header><h1>" + escape(title) + "</h1>\n<p class=\"gp-sub\">";
  if (report.environment.gpu) s += escape(report.environment.gpu->name) + " · ";
  s += "graphprof " + escape(report.tool_version);
  if (!report.git_revision.empty()) s += " (" + escape(report.git_revision) + ")";
  if (!report.created_utc.empty()) s += " · " + escape(report.created_utc);
  if (!options.source.empty()) s += " · <code>" + escape(options.source) + "</code>";
  s += "</p>\n<nav><a href=\"#summary\">Summary</a><a href=\"#workloads\">Workloads</a>";
  if (has_sweep) s += "<a href=\"#sweep\">Sweep</a>";
  if (has_graphs) s += "<a href=\"#graphs\">Graphs</a>";
  if (has_trace) s += "<a href=\"#trace\">Trace</a>";
  if (options.comparison) s += "<a href=\"#comparison\">Comparison</a>";
  s += "<a href=\"#environment\">Environment</a></nav></header>\n";
  return s;
}

std::string summary_section(const std::vector<Benchmark>& benches) {
  std::string s = "<section id=\"summary\"><h2>Suite summary</h2>\n"
                  "<p class=\"gp-note\">Median GPU time per iteration (CUDA events, iterations back to back); speedup "
                  "against eager; break-even: replays after which a graph's one-off costs are paid back.</p>\n"
                  "<div class=\"gp-table-wrap\"><table id=\"table-summary\" class=\"gp-table\"><thead><tr>"
                  "<th>workload</th><th class=\"l\">parameters</th><th>eager</th><th>capture</th><th>graph</th>"
                  "<th>capture speedup</th><th>graph speedup</th><th>break-even (capture)</th><th>outputs</th>"
                  "</tr></thead><tbody>\n";
  BarChart chart;
  chart.id = "chart-suite-speedup";
  chart.axis_label = "GPU-time speedup of the captured graph against eager (x)";
  chart.unit = "x";
  for (const Benchmark& b : benches) {
    const ModeResult* c = b.find(Mode::kCapture);
    s += "<tr><td>" + escape(b.workload) + "</td><td class=\"l\">" + escape(params_text(b.params, " ")) + "</td><td>" +
         escape(gpu_cell(b.find(Mode::kEager))) + "</td><td>" + escape(gpu_cell(c)) + "</td><td>" +
         escape(gpu_cell(b.find(Mode::kGraph))) + "</td><td>" + speedup_text(c) + "</td><td>" +
         speedup_text(b.find(Mode::kGraph)) + "</td><td>" + break_even_text(c) + "</td><td>" + outputs_text(b) +
         "</td></tr>\n";
    const bool swept = std::count_if(benches.begin(), benches.end(),
                                     [&](const Benchmark& x) { return x.workload == b.workload; }) > 1;
    if (!swept && c != nullptr && c->status == Status::kOk && std::isfinite(derived_or_nan(*c, "speedup_gpu_time_vs_eager"))) {
      Bar bar;
      bar.label = b.workload;
      bar.css = mode_css(Mode::kCapture);
      bar.value = derived_or_nan(*c, "speedup_gpu_time_vs_eager");
      bar.low = 1, bar.high = 0;  // no interval for a ratio of medians
      bar.value_text = strf("%.2fx", bar.value);
      bar.tooltip = b.workload + " " + params_text(b.params, " ") + ": " + bar.value_text;
      chart.bars.push_back(std::move(bar));
    }
  }
  s += "</tbody></table></div>\n";
  if (chart.bars.size() > 1)
    s += "<figure><h4>Speedup of the captured graph (GPU time per iteration, eager = 1)</h4>" + svg_bar_chart(chart) +
         "</figure>\n";
  return s + "</section>\n";
}

std::string failure_text(const ModeResult& r) {
  std::string s = "<p class=\"gp-bad\">" + escape(to_string(r.mode)) + ": " + escape(to_string(r.status)) + " — " +
                  escape(r.reason) + "</p>";
  if (r.failure && !r.failure->hint.empty()) s += "<p class=\"gp-note\">fix: " + escape(r.failure->hint) + "</p>";
  return s + "\n";
}

// Every metric of every mode, median with p10/p90 and the CI.
std::string metrics_table(const Benchmark& b, const std::string& id) {
  std::string s = "<details><summary>All metrics</summary><div class=\"gp-table-wrap\"><table id=\"" + id +
                  "\" class=\"gp-table\"><thead><tr><th>mode</th><th class=\"l\">metric</th><th>median</th>"
                  "<th>95% CI</th><th>p10</th><th>p90</th><th>n</th><th class=\"l\"></th></tr></thead><tbody>\n";
  for (const ModeResult* r : b.modes)
    for (const auto& [key, m] : r->metrics) {
      const Summary& x = m.summary;
      auto v = [&m = m](double d) { return m.unit == "ns" ? format_ns(d) : format_count(d); };
      s += "<tr><td>" + escape(to_string(r->mode)) + "</td><td class=\"l\" title=\"" + escape(m.description) + "\">" +
           escape(key) + "</td><td>" + escape(v(x.median)) + "</td><td>" + escape(v(x.ci_low)) + " – " +
           escape(v(x.ci_high)) + "</td><td>" + escape(v(x.p10)) + "</td><td>" + escape(v(x.p90)) + "</td><td>" +
           std::to_string(x.n) + "</td><td class=\"l gp-warn\">" + (m.converged ? "" : "noisy") + "</td></tr>\n";
    }
  return s + "</tbody></table></div></details>\n";
}

// The device level each mode's device figures were measured at, and the method of each figure;
// a line per mode whose two device methods disagree, saying why (device_methods_note).
std::string device_level_text(const Benchmark& b, const std::string& latch) {
  std::string s;
  for (const ModeResult* r : b.modes) {
    if (r->status != Status::kOk || !r->sections.device_probe) continue;
    const std::string note = device_methods_note(*r);
    s += "<p class=\"gp-note\">" + escape(to_string(r->mode)) + ": device level " + escape(device_level_cell(*r)) +
         " ns per kernel (probe, back to back/latched); GPU time/iteration: CUDA events between iterations queued "
         "back to back; per node: one iteration at a time queued behind " + escape(latch) +
         (note.empty() ? std::string() : "<br><span class=\"gp-warn\">" + escape(note) + "</span>") + "</p>\n";
  }
  return s;
}

std::string workload_section(const std::vector<Benchmark>& benches, const std::string& latch) {
  std::string s = "<section id=\"workloads\"><h2>Workloads</h2>\n"
                  "<p class=\"gp-note\">Bars are medians; whiskers the 95% confidence interval of the median "
                  "(often narrower than the line). Hover a bar for p10/p90 and the sample count.</p>\n";
  std::map<std::string, std::size_t> seen;
  for (const Benchmark& b : benches) {
    const std::size_t index = seen[b.workload]++;
    const std::string tag = css_token(b.workload) + (index > 0 ? "-" + std::to_string(index) : "");
    s += "<section class=\"gp-workload\" id=\"workload-" + tag + "\"><h3>" + escape(b.workload) +
         " <span class=\"gp-note\">" + escape(params_text(b.params, " ")) + "</span></h3>\n";
    for (const ModeResult* r : b.modes)
      if (r->status != Status::kOk) s += failure_text(*r);
    s += device_level_text(b, latch);
    s += "<div class=\"gp-charts\">";
    s += mode_bars(b, metric_key::kGpuTimePerIter, "chart-gpu-" + tag, "GPU time / iteration");
    s += mode_bars(b, metric_key::kLaunchCpuPerIter, "chart-submit-" + tag, "CPU submit time / iteration");
    s += mode_bars(b, metric_key::kLaunchCpuPerCall, "chart-launch-" + tag, "launch call CPU time (per call)");
    s += "</div>\n";
    s += metrics_table(b, "table-metrics-" + tag);
    s += "</section>\n";
  }
  return s + "</section>\n";
}

bool numeric(const std::string& text) {
  char* end = nullptr;
  std::strtod(text.c_str(), &end);
  return !text.empty() && end != nullptr && *end == '\0';
}

// Log-log curves of one workload's sweep, one series per mode (and per value of any other varied parameter).
std::string sweep_charts(const std::vector<const Benchmark*>& group, const std::string& x_key,
                         const std::vector<std::string>& others, const std::string& tag) {
  struct Figure {
    const char* id;
    const char* title;
    const char* y_label;
    std::string key;      // metric key, or a derived key
    bool is_derived;
    bool graph_only;
  };
  const std::vector<Figure> figures{
      {"gpu", "GPU time / iteration", "GPU time / iteration", metric_key::kGpuTimePerIter, false, false},
      {"submit", "CPU submit time / iteration", "CPU time / iteration", metric_key::kLaunchCpuPerIter, false, false},
      {"per-node", "GPU time per node (graphs) / per kernel launch (eager), behind a latch", "time per node",
       "per_node", true, false},
      {"break-even", "Break-even: replays until the one-off costs are paid back", "replays", "break_even_replays",
       true, true},
  };
  std::string s = "<div class=\"gp-charts\">";
  for (const Figure& f : figures) {
    LineChart chart;
    chart.id = std::string("chart-sweep-") + f.id + "-" + tag;
    chart.x_label = x_key;
    chart.y_label = f.y_label;
    chart.y_unit = f.key == "break_even_replays" ? "" : "ns";
    std::map<std::string, Series> by_name;
    std::vector<std::string> order;
    for (const Benchmark* b : group)
      for (const ModeResult* r : b->modes) {
        if (r->status != Status::kOk || (f.graph_only && r->mode == Mode::kEager)) continue;
        Point p;
        p.x = std::strtod(b->params.at(x_key).c_str(), nullptr);
        p.low = 1, p.high = 0;
        if (!f.is_derived) {
          const Metric* m = metric(*r, f.key);
          if (m == nullptr) continue;
          p.y = m->summary.median, p.low = m->summary.ci_low, p.high = m->summary.ci_high;
        } else if (f.key == "per_node") {
          p.y = derived_or_nan(*r, r->mode == Mode::kEager ? "gpu_time_per_call_latched_ns" : "gpu_time_per_node_latched_ns");
        } else {
          p.y = derived_or_nan(*r, f.key);
        }
        if (!std::isfinite(p.y)) continue;
        p.tooltip = std::string(to_string(r->mode)) + " " + x_key + "=" + b->params.at(x_key) + ": " +
                    (chart.y_unit == "ns" ? format_ns(p.y) : plural(std::round(p.y), "replay", "replays"));
        std::string name = to_string(r->mode);
        for (const auto& k : others) name += " " + k + "=" + b->params.at(k);
        if (!by_name.count(name)) {
          order.push_back(name);
          by_name[name].name = name;
          by_name[name].css = mode_css(r->mode);
        }
        by_name[name].points.push_back(p);
      }
    for (const auto& n : order) chart.series.push_back(by_name[n]);
    if (chart.series.empty()) continue;
    s += "<figure><h4>" + escape(f.title) + "</h4>" + svg_loglog_chart(chart) + "</figure>\n";
  }
  return s + "</div>\n";
}

std::string sweep_table(const std::vector<const Benchmark*>& group, const std::vector<std::string>& keys,
                        const std::string& tag) {
  std::string s = "<div class=\"gp-table-wrap\"><table id=\"table-sweep-" + tag + "\" class=\"gp-table\"><thead><tr>";
  for (const auto& k : keys) s += "<th>" + escape(k) + "</th>";
  // Reports with the device probe get the level beside the device figures.
  bool levels = false;
  for (const Benchmark* b : group)
    for (const ModeResult* r : b->modes) levels = levels || r->sections.device_probe.has_value();
  s += "<th class=\"l\">mode</th><th>GPU/iter [95% CI]</th><th>per node</th>";
  if (levels)
    s += "<th title=\"device probe, ns per kernel, back to back/latched, before the passes (and after, when it "
         "moved)\">level</th>";
  s += "<th>launch/call</th><th>CPU submit/iter</th><th>instantiate</th><th>speedup</th><th>break-even</th></tr></thead>"
       "<tbody>\n";
  for (const Benchmark* b : group)
    for (const ModeResult* r : b->modes) {
      s += "<tr>";
      for (const auto& k : keys) s += "<td>" + escape(b->params.count(k) ? b->params.at(k) : "-") + "</td>";
      s += "<td class=\"l\">" + escape(to_string(r->mode)) + "</td>";
      if (r->status != Status::kOk) {
        s += std::string("<td class=\"l gp-bad\" colspan=\"") + (levels ? "8" : "7") + "\">" + escape(std::string(to_string(r->status)) + ": " + r->reason) +
             "</td></tr>\n";
        continue;
      }
      const Metric* g = metric(*r, metric_key::kGpuTimePerIter);
      const bool graph_mode = r->mode != Mode::kEager;
      s += "<td>" +
           (g ? ns_with_interval(g->summary.median, g->summary.ci_low, g->summary.ci_high) : std::string("-")) +
           "</td><td>" +
           escape(format_ns(derived_or_nan(*r, graph_mode ? "gpu_time_per_node_latched_ns" : "gpu_time_per_call_latched_ns"))) +
           "</td><td>" + (levels ? escape(device_level_cell(*r)) + "</td><td>" : std::string()) +
           escape(format_ns(median_or_nan(*r, metric_key::kLaunchCpuPerCall))) + "</td><td>" +
           escape(format_ns(median_or_nan(*r, metric_key::kLaunchCpuPerIter))) + "</td><td>" +
           escape(graph_mode ? format_ns(median_or_nan(*r, metric_key::kInstantiateTime)) : "-") + "</td><td>" + speedup_text(r) +
           "</td><td>" + break_even_text(r) + "</td></tr>\n";
    }
  return s + "</tbody></table></div>\n";
}

std::string sweep_section(const std::vector<Benchmark>& benches) {
  std::map<std::string, std::vector<const Benchmark*>> by_workload;
  std::vector<std::string> order;
  for (const Benchmark& b : benches) {
    if (!by_workload.count(b.workload)) order.push_back(b.workload);
    by_workload[b.workload].push_back(&b);
  }
  std::string s;
  for (const auto& w : order) {
    const auto& group = by_workload[w];
    if (group.size() < 2) continue;
    const std::vector<std::string> keys = varying_params(group);
    std::string x_key;
    for (const auto& k : keys) {
      bool all = true;
      for (const Benchmark* b : group) all = all && b->params.count(k) && numeric(b->params.at(k));
      if (all) {
        x_key = k;
        break;
      }
    }
    const std::string tag = css_token(w);
    s += "<section class=\"gp-sweep\" id=\"sweep-" + tag + "\"><h3>" + escape(w) + ": sweep over " +
         escape(x_key.empty() ? "parameters" : x_key) + "</h3>\n";
    if (!x_key.empty()) {
      std::vector<std::string> others;
      for (const auto& k : keys)
        if (k != x_key) others.push_back(k);
      s += "<p class=\"gp-note\">Both axes logarithmic. Whiskers: 95% CI of the median. Per-node cost is measured "
           "behind a latch (the GPU starts only after everything is queued), so launch overhead is not in it.</p>\n";
      s += sweep_charts(group, x_key, others, tag);
    } else {
      s += "<p class=\"gp-note\">No numeric parameter varies; no curves drawn.</p>\n";
    }
    s += sweep_table(group, keys, tag) + "</section>\n";
  }
  if (s.empty()) return s;
  return "<section id=\"sweep\"><h2>Sweep</h2>\n" + s + "</section>\n";
}

std::string trace_section(const Report& report) {
  std::string rows;
  for (const ModeResult& r : report.results) {
    if (!r.sections.trace) continue;
    const TraceSection& t = *r.sections.trace;
    const std::string& status = t.status;
    rows += "<tr><td>" + escape(r.workload) + "</td><td class=\"l\">" + escape(params_text(r.params, " ")) +
            "</td><td class=\"l\">" + escape(to_string(r.mode)) + "</td>";
    if (status != "ok") {
      rows += "<td class=\"l gp-warn\" colspan=\"7\">" + escape(status + ": " + t.reason) + "</td></tr>\n";
      continue;
    }
    const TracePerturbation& p = t.perturbation;
    const TraceSpread untraced = p.untraced.value_or(TraceSpread{});
    std::string ratio_text = std::isfinite(p.ratio) ? strf("%.2fx", p.ratio) : "-";
    if (p.ratio_range && std::isfinite(p.ratio_range->first))
      ratio_text += strf(" [%.2f, ", p.ratio_range->first) + strf("%.2f]", p.ratio_range->second);
    rows += "<td class=\"l\">" + escape(t.level.empty() ? "?" : t.level) + "</td><td>" +
            ns_with_interval(untraced.median_ns, untraced.ci_low_ns, untraced.ci_high_ns) + "</td><td>" +
            ns_with_interval(p.traced.median_ns, p.traced.ci_low_ns, p.traced.ci_high_ns) + "</td><td>" +
            escape(ratio_text) + "</td><td>" + std::to_string(t.replays) + "</td><td>" +
            std::to_string(t.dropped_records) + "</td><td>" + std::to_string(t.unattributed_records) + "</td></tr>\n";
  }
  if (rows.empty()) return {};
  return "<section id=\"trace\"><h2>Trace perturbation</h2>\n"
         "<p class=\"gp-note\">The CUPTI trace pass runs after the timing passes. Tracing slows the GPU work down; "
         "this table says by how much, so per-node times from the trace are read as what they are: traced times.</p>\n"
         "<div class=\"gp-table-wrap\"><table id=\"table-trace\" class=\"gp-table\"><thead><tr><th>workload</th>"
         "<th class=\"l\">parameters</th><th class=\"l\">mode</th><th class=\"l\">trace</th>"
         "<th>untraced GPU/iter [95% CI]</th><th>traced GPU/iter [95% CI]</th><th>traced/untraced</th>"
         "<th>replays</th><th>dropped</th><th>unattributed</th></tr></thead><tbody>\n" +
         rows + "</tbody></table></div></section>\n";
}

std::string default_title(const std::vector<Benchmark>& benches) {
  std::vector<std::string> names;
  for (const Benchmark& b : benches)
    if (std::find(names.begin(), names.end(), b.workload) == names.end()) names.push_back(b.workload);
  std::string s = "graphprof report";
  if (names.empty()) return s;
  s += ": ";
  for (std::size_t i = 0; i < names.size() && i < 6; ++i) s += (i ? ", " : "") + names[i];
  if (names.size() > 6) s += ", …";
  return s;
}

}  // namespace

namespace {

std::string version_text(int v) { return v > 0 ? std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10) : "?"; }

}  // namespace

std::string environment_section(const Report& report, const HtmlReportOptions& options) {
  std::string s = "<section id=\"environment\"><h2>Environment and command line</h2>\n<dl class=\"gp-env\">";
  auto row = [&](const std::string& k, const std::string& v) {
    s += "<dt>" + escape(k) + "</dt><dd>" + escape(v) + "</dd>";
  };
  std::string cmd;
  for (const auto& a : report.command_line) cmd += (cmd.empty() ? "" : " ") + a;
  s += "<dt>command line</dt><dd><code>" + escape(cmd) + "</code></dd>";
  if (const auto& g = report.environment.gpu) {
    row("GPU", g->name + " (sm_" + std::to_string(g->cc_major) + std::to_string(g->cc_minor) + ", " +
                   std::to_string(g->sm_count) + " SMs, " + strf("%.0f MHz", g->clock_khz / 1000.0) + " SM clock, " +
                   strf("%.0f GiB", static_cast<double>(g->global_memory_bytes) / (1024.0 * 1024 * 1024)) + ")");
    row("driver / runtime / CUPTI", version_text(g->driver_version) + " / " + version_text(g->runtime_version) + " / " +
                                        std::to_string(g->cupti_version));
    row("GPU UUID, PCI", g->uuid + ", " + g->pci_bus_id);
  }
  const HostInfo& h = report.environment.host;
  row("host", h.hostname + ": " + h.cpu_model + " (" + std::to_string(h.cpu_count) + " CPUs)");
  row("OS, kernel", h.os + ", " + h.kernel);
  row("compiler", h.compiler);
  for (const auto& [k, v] : report.environment.probes) row("probe " + k, format_ns(v));
  row("graphprof", report.tool_version + (report.git_revision.empty() ? "" : " (" + report.git_revision + ")") +
                       ", report schema " + report.schema_version);
  row("created", report.created_utc);
  if (!options.source.empty()) row("report file", options.source);
  s += "</dl>\n<h4>Measurement settings</h4><pre><code>" + escape(json_text(to_json(report.settings), 1)) + "</code></pre>\n";
  return s + "</section>\n";
}

std::string ns_with_interval(double median, double low, double high) {
  std::string s = escape(format_ns(median));
  if (std::isfinite(low) && std::isfinite(high))
    s += " <span class=\"gp-note\">[" + escape(format_ns(low)) + ", " + escape(format_ns(high)) + "]</span>";
  return s;
}

}  // namespace html

std::string render_html_report(const Report& report, const HtmlReportOptions& options) {
  using namespace html;
  if (profile_fields::app_result(report) != nullptr) return profile_page(report, options);
  const std::vector<Benchmark> benches = benchmarks_of(report);
  std::map<std::string, int> per_workload;
  for (const Benchmark& b : benches) ++per_workload[b.workload];
  std::vector<Benchmark> single, swept;
  for (const Benchmark& b : benches) (per_workload[b.workload] > 1 ? swept : single).push_back(b);

  const std::string sweep = sweep_section(swept);
  const std::string graphs = options.graphs ? graphs_section(report, options) : std::string();
  const std::string trace = trace_section(report);
  const std::string title = options.title.empty() ? default_title(benches) : options.title;

  std::string page = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
                     "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                     "<meta name=\"generator\" content=\"graphprof " + escape(report.tool_version) + "\">\n"
                     "<title>" + escape(title) + "</title>\n<style>" + kPageStyle + "</style></head>\n<body>\n";
  page += header(report, options, title, !sweep.empty(), !graphs.empty(), !trace.empty());
  page += "<main>\n";
  if (options.comparison) page += comparison_section(*options.comparison, options.comparison_source);
  page += summary_section(benches);
  if (!single.empty()) page += workload_section(single, latch_description(report));
  page += sweep + graphs + trace;
  page += environment_section(report, options);
  page += "</main>\n<footer class=\"gp-note\"><p>Written by graphprof " + escape(report.tool_version) +
          ". Self-contained: no script, nothing fetched.</p></footer>\n</body></html>\n";
  return page;
}

}  // namespace gp
