// The graphs' pictures in the HTML report: each DOT dump a result names is loaded, analysed,
// turned into a GraphView (a heat map when the result has per-node times from the trace pass)
// and rendered to SVG by src/graph, then inlined. A dump that is not here is a note, not an error.
#include <algorithm>
#include <cmath>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>

#include "graphprof/core/atomic_file.hpp"
#include "graphprof/core/error.hpp"
#include "graphprof/graph/graph_analysis.hpp"
#include "graphprof/graph/graph_render.hpp"
#include "graphprof/graph/graph_view.hpp"
#include "graphprof/core/params.hpp"
#include "graphprof/report/reporter.hpp"
#include "graphprof/core/text_format.hpp"
#include "html_sections.hpp"
#include "html_svg.hpp"

namespace gp::html {

namespace {

namespace fs = std::filesystem;

// More pictures than this make the page slow to open; the rest are listed by name.
constexpr std::size_t kMaxPictures = 24;

std::string dot_path_of(const ModeResult& r) {
  return r.sections.graph ? r.sections.graph->dot : std::string();
}

// The recorded path when it exists here, else the first folder of `dirs` holding its file name.
std::string locate(const std::string& recorded, const std::vector<std::string>& dirs) {
  std::error_code ec;
  if (fs::is_regular_file(recorded, ec)) return recorded;
  const fs::path name = fs::path(recorded).filename();
  for (const auto& d : dirs) {
    const fs::path p = fs::path(d) / name;
    if (fs::is_regular_file(p, ec)) return p.string();
  }
  return {};
}

// Whether `path` begins as a DOT graph does ("digraph" or "strict digraph", after blanks and
// comments), read from its first bytes only. A report names the dumps the page draws; one that
// names another file (hand-edited: /etc/passwd) must not have its first line quoted on the page by
// a parse error.
bool begins_as_dot(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char buf[4096];
  in.read(buf, sizeof buf);
  std::string head(buf, static_cast<std::size_t>(in.gcount()));
  if (head.rfind("\xef\xbb\xbf", 0) == 0) head.erase(0, 3);
  std::size_t i = 0;
  for (;;) {
    while (i < head.size() && std::isspace(static_cast<unsigned char>(head[i]))) ++i;
    if (head.compare(i, 2, "//") == 0 || (i < head.size() && head[i] == '#')) {
      i = head.find('\n', i);
      if (i == std::string::npos) return false;
    } else if (head.compare(i, 2, "/*") == 0) {
      i = head.find("*/", i + 2);
      if (i == std::string::npos) return false;
      i += 2;
    } else {
      break;
    }
  }
  std::string word;
  for (; i < head.size() && word.size() < 16 && std::isalpha(static_cast<unsigned char>(head[i])); ++i)
    word += static_cast<char>(std::tolower(static_cast<unsigned char>(head[i])));
  return word == "digraph" || word == "strict";
}

bool has_node_times(const ModeResult& r) {
  return r.sections.trace && !r.sections.trace->nodes.empty();
}

// Inline form: no XML prolog or DOCTYPE, ids made unique on the page, a class on the root.
std::string inline_svg(const std::string& svg, std::size_t index) {
  const auto start = svg.find("<svg");
  if (start == std::string::npos) return {};
  std::string out = svg.substr(start);
  const std::string prefix = " id=\"gv" + std::to_string(index) + "-";
  std::string fixed;
  fixed.reserve(out.size() + 1024);
  std::size_t pos = 0;
  for (std::size_t hit; (hit = out.find(" id=\"", pos)) != std::string::npos; pos = hit + 5) {
    fixed.append(out, pos, hit - pos);
    fixed += prefix;
  }
  fixed.append(out, pos, std::string::npos);
  return "<svg class=\"gp-graph-svg\" id=\"graph-svg-" + std::to_string(index) + "\"" + fixed.substr(4);
}

// The slowest nodes of a traced result: median and p90 per replay and the node's share of the
// summed node medians (what the heat map colours), at most 10 rows.
std::string node_table(const ModeResult& r, std::size_t index) {
  if (!has_node_times(r)) return {};
  std::vector<const TraceNodeTime*> nodes;
  double sum = 0;
  for (const auto& n : r.sections.trace->nodes) {
    if (!std::isfinite(n.median_ns)) continue;
    nodes.push_back(&n);
    sum += std::isfinite(n.per_replay_median_ns) ? n.per_replay_median_ns : n.median_ns;
  }
  if (nodes.empty() || !(sum > 0)) return {};
  auto per_replay = [](const TraceNodeTime* n) { return std::isfinite(n->per_replay_median_ns) ? n->per_replay_median_ns : n->median_ns; };
  std::stable_sort(nodes.begin(), nodes.end(), [&](const TraceNodeTime* a, const TraceNodeTime* b) { return per_replay(a) > per_replay(b); });
  const std::size_t shown = std::min<std::size_t>(nodes.size(), 10);
  std::string s = "<div class=\"gp-table-wrap\"><table id=\"table-nodes-" + std::to_string(index) +
                  "\" class=\"gp-table\"><thead><tr><th class=\"l\">node</th><th class=\"l\">kernel</th><th>median</th><th>p90</th>"
                  "<th>share</th></tr></thead><tbody>\n";
  for (std::size_t i = 0; i < shown; ++i) {
    const TraceNodeTime* n = nodes[i];
    s += "<tr><td class=\"l\">" + escape(n->dot_name) + "</td><td class=\"l\">" + escape(n->name) + "</td><td>" +
         escape(format_ns(per_replay(n))) + "</td><td>" + escape(format_ns(n->p90_ns)) + "</td><td>" +
         escape(strf("%.1f %%", 100.0 * per_replay(n) / sum)) + "</td></tr>\n";
  }
  s += "</tbody></table></div>\n";
  if (nodes.size() > shown)
    s += "<p class=\"gp-note\">" + std::to_string(nodes.size() - shown) + " more nodes in the report (sections.trace.nodes).</p>\n";
  return s;
}

}  // namespace

GraphFigure graph_figure(const ModeResult& r, const HtmlReportOptions& options, std::size_t index, const std::string& id,
                         const std::string& title, const std::string& subtitle) {
  GraphFigure out;
  const std::string recorded = dot_path_of(r);
  std::string& body = out.html;
  body = "<figure class=\"gp-graph-figure\" id=\"" + escape(id) + "\"><h3>" + escape(title) + " <span class=\"gp-note\">" +
         escape(subtitle) + "</span></h3>\n";
  const std::string path = recorded.empty() ? std::string() : locate(recorded, options.dot_dirs);
  if (path.empty()) {
    body += "<p class=\"gp-note\">DOT dump <code>" + escape(recorded.empty() ? std::string("(none recorded)") : recorded) +
            "</code> is not here (pass its folder with <code>--dot-dir</code>).</p>" + node_table(r, index) + "</figure>\n";
    return out;
  }
  if (!begins_as_dot(path)) {
    body += "<p class=\"gp-warn\">cannot draw <code>" + escape(path) +
            "</code>: it is not a DOT dump (a CUDA graph dump begins with <code>digraph</code>).</p>" + node_table(r, index) +
            "</figure>\n";
    return out;
  }
  try {
    const GraphModel model = load_dot(path);
    std::optional<NodeTimes> times;
    std::string times_note;
    if (has_node_times(r)) {
      Report one;
      one.results.push_back(r);
      try {
        times = node_times_from_report(one, options.source.empty() ? "report" : options.source, path, r.workload,
                                       to_string(r.mode));
      } catch (const Error& e) {
        times_note = e.what();
      }
      // Host nodes have no GPU record: they get the GPU's idle gap after them, as in `render`.
      if (times) add_gap_times(model, *times);
    }
    const GraphMetrics metrics = analyze(model, times ? &*times : nullptr);
    const GraphView view = build_view(model, metrics, times ? &*times : nullptr);
    // A picture Graphviz cannot draw here (its plugins fail even through its core SVG renderer) is
    // said in a sentence with the way to draw it elsewhere; the figures stay (the node table).
    std::vector<std::string> render_notes;
    std::string svg;
    try {
      svg = inline_svg(render_svg(view, &render_notes), index);
    } catch (const Error& e) {
      body += "<p class=\"gp-warn\">No picture: Graphviz could not draw this graph on this machine; <code>graphprof render " +
              escape(path) + " -o graph.svg</code> draws it where Graphviz works.</p>\n<details class=\"gp-note\"><summary>"
              "What Graphviz said</summary>" + escape(e.what()) + "</details>\n" + node_table(r, index) + "</figure>\n";
      return out;
    }
    body += "<div class=\"gp-graph\">" + svg + "</div>\n<figcaption>";
    body += plural(model.nodes.size(), "node", "nodes");
    for (const auto& note : render_notes)
      if (note.rfind("drawn by Graphviz's core SVG renderer", 0) == 0)
        body += " (drawn by Graphviz's core SVG renderer: its installed plugins failed here)";
    if (view.collapsed)
      body += ", drawn as " + plural(view.boxes.size(), "box", "boxes") +
              " (similar runs folded)";
    body += !view.heat_map ? ". Colour: node kind. Blue outline: critical path."
            : view.heat.within_2x
                ? ". Colour: traced time per node and replay (CUPTI; traced times run slower than untraced ones): " +
                      none_stands_out_text(view.heat) + "."
                : ". Colour: traced time per node and replay (CUPTI; traced times run slower than untraced ones), in "
                  "steps of 0.5x, 2x, 4x, 10x, 30x and 100x the median node (" + format_ns(view.heat.median_ns) + ").";
    body += " DOT dump: <code>" + escape(path) + "</code>.";
    if (!times_note.empty()) body += " <span class=\"gp-warn\">" + escape(times_note) + "</span>";
    body += "</figcaption>\n" + node_table(r, index);
    if (!metrics.findings.empty()) {
      body += "<ul class=\"gp-findings\">";
      for (std::size_t i = 0; i < metrics.findings.size() && i < 4; ++i)
        body += "<li><b>" + escape(metrics.findings[i].title) + "</b> — " + escape(metrics.findings[i].evidence) + "</li>";
      body += "</ul>\n";
    }
    out.drawn = true;
  } catch (const Error& e) {
    body += "<p class=\"gp-warn\">cannot draw <code>" + escape(path) + "</code>: " + escape(e.what()) + "</p>\n";
  }
  body += "</figure>\n";
  return out;
}

std::string graphs_section(const Report& report, const HtmlReportOptions& options) {
  // Sweeps dump one graph per grid point; their pictures would dwarf the page, so only the
  // workloads run with one parameter set are drawn.
  std::map<std::string, std::set<std::map<std::string, std::string>>> param_sets;
  for (const ModeResult& r : report.results) param_sets[r.workload].insert(r.params);

  std::string body, skipped;
  std::size_t drawn = 0;
  for (const ModeResult& r : report.results) {
    const std::string recorded = dot_path_of(r);
    if (recorded.empty()) continue;
    const std::string name = r.workload + " " + to_string(r.mode);
    if (param_sets[r.workload].size() > 1 || drawn >= kMaxPictures) {
      skipped += "<li>" + escape(name + " [" + params_text(r.params, " ") + "]") + ": <code>" + escape(recorded) +
                 "</code></li>\n";
      continue;
    }
    const GraphFigure f = graph_figure(r, options, drawn, "graph-" + css_token(r.workload + "-" + to_string(r.mode)), name,
                                       params_text(r.params, " "));
    body += f.html;
    if (f.drawn) ++drawn;
  }
  if (body.empty() && skipped.empty()) return {};
  std::string s = "<section id=\"graphs\"><h2>Graphs</h2>\n" + body;
  if (!skipped.empty())
    s += "<details><summary>Graphs not drawn here (sweep points, or more than " + std::to_string(kMaxPictures) +
         " pictures); draw one with <code>graphprof render</code></summary><ul>\n" + skipped + "</ul></details>\n";
  return s + "</section>\n";
}

}  // namespace gp::html
