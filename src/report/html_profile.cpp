// The page of a `graphprof profile` report: per process of the application a headline strip
// (coverage, graphs, launches, eager launches per step, the cost of making graphs), a timeline
// strip, the per-graph table ordered by GPU time, the hottest graphs drawn as heat maps, each graph's
// memory and start-up ledger with its allocations' call sites, eager work
// by call site (or kernel), copies, synchronising calls, capture trouble with its fix; then the runs
// of --repeat, the environment and the exact command line. Read from sections.profile only, so a
// report of any schema since the first `profile` opens (fields it lacks are said to be missing).
#include <algorithm>
#include <cmath>
#include <map>

#include "graphprof/core/json_text.hpp"
#include "graphprof/core/name_match.hpp"
#include "graphprof/core/profile_fields.hpp"
#include "graphprof/report/reporter.hpp"
#include "graphprof/core/text_format.hpp"
#include "graphprof/trace/trace_records.hpp"
#include "html_sections.hpp"
#include "html_svg.hpp"
#include "profile_fix_first.hpp"
#include "profile_text_fields.hpp"

namespace gp::html {

namespace {

using nlohmann::json;

// How many graphs are drawn per process (the hottest by GPU time).
constexpr std::size_t kDrawnGraphs = 3;
constexpr std::size_t kTableGraphs = 60;

double as_number(const ProfileNumber& v) { return v.value_or(0.0); }

using profile_text::pct;
std::string count(double v) { return std::isfinite(v) ? strf("%.0f", v) : "-"; }
std::string bytes_text(double b) {
  if (!std::isfinite(b)) return "-";
  if (b >= 1024.0 * 1024 * 1024) return strf("%.2f GiB", b / (1024.0 * 1024 * 1024));
  if (b >= 1024.0 * 1024) return strf("%.1f MiB", b / (1024.0 * 1024));
  if (b >= 1024.0) return strf("%.1f KiB", b / 1024.0);
  return strf("%.0f B", b);
}

// What a reader recognises a graph by: its capture site when the report has one, else its dump
// name, exec and node count.
std::string graph_label(const ProfileGraph& g) {
  const std::string site = profile_fields::graph_site(g);
  const std::string name = "graph_" + count(g.graph);
  return site.empty() ? name : site + " (" + name + ")";
}

// GPU time the graph took over the run: its kernels' time at node level, else launches x span.
double gpu_total(const ProfileGraph& g) {
  // With node sampling, the kernels of the launches not traced node by node are estimated.
  const double estimate = g.node_sampling ? g.node_sampling->kernel_time_estimate_ns.value() : NAN;
  if (std::isfinite(estimate) && estimate > 0) return estimate;
  const double k = g.kernel_time_ns.value_or(0);
  if (k > 0) return k;
  const double span = g.gpu_span ? g.gpu_span->median_ns.value_or(0) : 0;
  return span * g.launches.value_or(0);
}

std::string stat(const std::string& id, const std::string& title, const std::string& value, const std::string& sub) {
  return "<div class=\"gp-stat\" id=\"" + escape(id) + "\"><span>" + escape(title) + "</span><b>" + escape(value) + "</b><span>" +
         escape(sub) + "</span></div>";
}

std::string headline_strip(const ProfileProcess& p, const std::string& tag) {
  const ProfileCoverage c = p.coverage.value_or(ProfileCoverage{});
  const auto& graphs = p.graphs;
  const profile_fields::Steps steps = profile_fields::steps(p);
  double made_ns = 0, memory = 0;
  bool has_memory = false, has_capture = false;
  std::size_t launched = 0;
  const std::size_t late = profile_fields::late_graphs(p);
  for (const auto& g : graphs) {
    made_ns += profile_fields::graph_making_ns(g);
    has_capture = has_capture || (g.startup && std::isfinite(g.startup->capture_ns));
    const double bytes = profile_fields::graph_memory_bytes(g);
    if (std::isfinite(bytes)) {
      memory += bytes;
      has_memory = true;
    }
    if (g.launches.value_or(0) > 0) ++launched;
  }
  const double making_total = p.startup ? p.startup->graph_making_ns.value() : NAN;
  if (std::isfinite(making_total)) made_ns = making_total;
  std::string s = "<div class=\"gp-strip\" id=\"strip-" + tag + "\">";
  const double time_share = c.kernel_time_in_graphs;
  s += stat("stat-coverage-" + tag, "graph coverage (kernel time)", pct(time_share),
            std::isfinite(c.kernels_in_graphs) ? pct(c.kernels_in_graphs) + " of kernels"
                                                       : "needs --trace node");
  s += stat("stat-graphs-" + tag, "graphs", std::to_string(graphs.size()),
            std::to_string(launched) + " launched" + (late ? ", " + std::to_string(late) + " made after the first replay" : ""));
  s += stat("stat-launches-" + tag, "launches", count(c.graph_launches) + " graph",
            count(c.eager_launches) + " eager kernel launches");
  s += stat("stat-eager-" + tag, "eager launches per step",
            steps.count > 0 ? strf("%.2f", c.eager_launches.value_or(0) / steps.count) : "-",
            steps.count > 0 ? count(steps.count) + " steps; a step is " + steps.from : "no graph was launched");
  s += stat("stat-making-" + tag, "time making graphs", format_ns(made_ns),
            has_capture ? "capture + instantiate + upload" : "instantiate + upload");
  s += stat("stat-memory-" + tag, "memory held by graphs", has_memory ? bytes_text(memory) : "-",
            has_memory ? "sum over graphs" : "not recorded in this report");
  return s + "</div>\n";
}

std::string timeline_section(const ProfileProcess& p, const std::string& tag) {
  if (!p.timeline) return "<p class=\"gp-note\">No timeline: this report was written before graphprof recorded one.</p>\n";
  const ProfileTimeline& t = *p.timeline;
  TimelineChart chart;
  chart.id = "chart-timeline-" + tag;
  chart.bin_ns = t.bin_ns.value_or(0);
  const auto& gk = t.graph_kernel_ns;
  const auto& ek = t.eager_kernel_ns;
  double kernel_sum = 0;
  for (const auto& v : gk) kernel_sum += as_number(v);
  for (const auto& v : ek) kernel_sum += as_number(v);
  // Scaled to the busiest bin, so that a program that keeps the GPU mostly idle still shows its
  // phases; each bin's tooltip has its share.
  if (kernel_sum > 0 && chart.bin_ns > 0) {
    double most = 0;
    for (std::size_t i = 0; i < gk.size() && i < ek.size(); ++i) most = std::max(most, as_number(gk[i]) + as_number(ek[i]));
    for (std::size_t i = 0; i < gk.size() && i < ek.size(); ++i) {
      chart.lower.push_back(as_number(gk[i]) / most);
      chart.upper.push_back(as_number(ek[i]) / most);
    }
    chart.lower_name = "kernels in graph replays";
    chart.upper_name = "eager kernels";
    chart.y_label = "kernel time per bin (busiest bin = 100%; it kept the GPU " +
                    strf("%.0f%%", 100 * std::min(1.0, most / chart.bin_ns)) + " busy)";
  } else {
    // Without kernel records (--trace graph/none): launch calls per bin, scaled to the busiest bin.
    const auto& gl = t.graph_launches;
    const auto& el = t.eager_launches;
    double most = 0;
    for (std::size_t i = 0; i < gl.size() && i < el.size(); ++i) most = std::max(most, as_number(gl[i]) + as_number(el[i]));
    for (std::size_t i = 0; i < gl.size() && i < el.size(); ++i) {
      chart.lower.push_back(most > 0 ? as_number(gl[i]) / most : 0);
      chart.upper.push_back(most > 0 ? as_number(el[i]) / most : 0);
    }
    chart.lower_name = "graph launches";
    chart.upper_name = "eager launches";
    chart.y_label = "launch calls per bin (busiest bin = 100%)";
  }
  for (const auto& v : t.graphs_made) chart.marks.push_back(static_cast<std::size_t>(std::max(0.0, as_number(v))));
  chart.marks_name = "graphs made";
  return "<figure><h4>Timeline: graph replays vs eager work, CUDA initialisation to the last record (" +
         std::to_string(chart.lower.size()) + " bins of " + escape(format_ns(chart.bin_ns)) + ")</h4>" + svg_timeline(chart) +
         "<figcaption>Warm-up shows as eager work, captures as marks, the steady state as replays; marks after the replays "
         "began are re-captures.</figcaption></figure>\n";
}

const ModeResult* graph_result(const Report& report, const ProfileProcess& p, const ProfileGraph& g) {
  const std::string process = count(p.process), exec = count(g.exec);
  for (const ModeResult& r : report.results) {
    const auto pr = r.params.find("process"), ex = r.params.find("exec");
    if (pr != r.params.end() && ex != r.params.end() && pr->second == process && ex->second == exec && !r.params.count("run"))
      return &r;
  }
  return nullptr;
}

std::string graphs_table(const ProfileProcess& p, const std::vector<const ProfileGraph*>& order, const std::string& tag) {
  std::string s = "<div class=\"gp-table-wrap\"><table id=\"table-graphs-" + tag +
                  "\" class=\"gp-table\"><thead><tr><th class=\"l\">graph</th><th class=\"l\">made by</th><th>nodes</th><th>edges</th>"
                  "<th>launches</th><th>GPU / launch</th><th>GPU total</th><th>call cost</th><th>blocked calls</th>"
                  "<th>instantiate</th><th>upload</th><th>memory</th></tr></thead><tbody>\n";
  const bool node_level = parse_trace_level(p.trace_level) == TraceLevel::kNode;
  for (std::size_t i = 0; i < order.size() && i < kTableGraphs; ++i) {
    const ProfileGraph& g = *order[i];
    const ProfileLaunchCalls calls = g.launch_calls.value_or(ProfileLaunchCalls{});
    s += "<tr><td class=\"l\">" + escape(graph_label(g)) + " <span class=\"gp-note\">exec " + count(g.exec) +
         "</span></td><td class=\"l\">" + escape(g.made_by) + "</td><td>" + count(g.nodes) + "</td><td>" +
         count(g.edges) + "</td><td>" + count(g.launches) + "</td><td>" +
         escape(format_ns(g.gpu_span ? g.gpu_span->median_ns.value() : NAN)) + "</td><td>" +
         escape(node_level || g.gpu_span ? format_ns(gpu_total(g)) : "-") + "</td><td>" +
         escape(format_ns(calls.unblocked ? calls.unblocked->median_ns.value() : NAN)) + "</td><td>" + count(calls.blocked) + "</td><td>" +
         escape(format_ns(g.instantiate_ns)) + "</td><td>" + escape(format_ns(g.upload_ns)) + "</td><td>" +
         escape(bytes_text(profile_fields::graph_memory_bytes(g))) + "</td></tr>\n";
  }
  s += "</tbody></table></div>\n";
  if (order.size() > kTableGraphs)
    s += "<p class=\"gp-note\">" + std::to_string(order.size() - kTableGraphs) + " more graphs in the report.</p>\n";
  return s + "<p class=\"gp-note\">Ordered by GPU time. GPU / launch: first node start to last node end (median). Call cost: "
             "host time of a cudaGraphLaunch call that did not wait for a full launch queue (median); blocked calls did.</p>\n";
}

// An eager call site's name: its "where", and the kind of work (kernel launches, copies, syncs).
std::string site_of(const ProfileEagerSite& r) {
  std::string where = profile_fields::site_of(r.site, r.extra, "site").where;
  if (where.empty()) where = "(unknown site)";
  const std::string& kind = r.kind;
  return kind.empty() || kind == "kernel" ? where : where + " [" + kind + "]";
}

// Eager work left: by call site when the report has sites, else by kernel name. Without any GPU
// time (the default level records none for eager work) the bars are the calls, most first: bars of
// "0 ns" rank nothing.
std::string eager_section(const ProfileProcess& p, const std::string& tag) {
  // One row of either list: an eager call site, or a kernel by name.
  struct Row {
    std::string full, hint;
    double time = 0, calls = 0, per_step = NAN, median = NAN;
  };
  const bool by_site = !p.eager_sites.empty();
  std::vector<Row> rows;
  if (by_site)
    for (const ProfileEagerSite& r : p.eager_sites) rows.push_back({site_of(r), r.hint, r.gpu_ns.value_or(0), r.calls.value_or(0), r.per_step, NAN});
  else
    for (const ProfileCallTime& r : p.top_eager_kernels) rows.push_back({r.name, "", r.total_ns.value_or(0), r.count.value_or(0), NAN, r.median_ns});
  if (rows.empty()) return "<p class=\"gp-note\">No eager kernels (or no kernel records at this trace level).</p>\n";
  bool timed = false;
  for (const Row& r : rows) timed = timed || r.time > 0;
  std::vector<const Row*> order;
  for (const Row& r : rows) order.push_back(&r);
  if (!timed)
    std::stable_sort(order.begin(), order.end(), [&](const Row* a, const Row* b) {
      const double x = a->calls, y = b->calls;
      return (std::isfinite(x) ? x : 0) > (std::isfinite(y) ? y : 0);
    });
  if (order.size() > 12) order.resize(12);
  BarChart chart;
  chart.id = "chart-eager-" + tag;
  chart.unit = timed ? "ns" : "count";
  chart.label_width = 260;
  chart.axis_label = std::string(timed ? "GPU time of eager kernels" : "eager calls (no GPU time recorded)") +
                     (by_site ? " by call site" : " by kernel (no call sites in this report)");
  std::vector<std::string> fulls;
  for (const Row* r : order) fulls.push_back(r->full);
  // Cut in the middle and apart (per-layer suffixes, tile shapes); the tooltip has the whole name.
  const std::vector<std::string> labels = clip_names_apart(fulls, 38);
  for (std::size_t i = 0; i < fulls.size(); ++i) {
    const Row& r = *order[i];
    Bar b;
    const std::string& full = fulls[i];
    b.label = labels[i];
    b.css = "gp-mode-eager";
    const double n = r.calls;
    const std::string calls = std::isfinite(n) ? plural(std::round(n), "call", "calls") : "- calls";
    b.value = timed ? r.time : (std::isfinite(n) ? n : 0);
    b.low = 1, b.high = 0;
    b.value_text = timed ? format_ns(b.value) + " · " + calls : calls;
    if (by_site && std::isfinite(r.per_step)) b.value_text += strf(" (%.2f per step)", r.per_step);
    b.tooltip = full + ": " + b.value_text + (by_site ? " " + r.hint : timed ? ", median " + format_ns(r.median) : "");
    chart.bars.push_back(std::move(b));
  }
  return "<figure><h4>" + escape(chart.axis_label) + "</h4>" + svg_bar_chart(chart) + "</figure>\n";
}

std::string named_table(const ProfileList<ProfileCallTime>& rows, const std::string& id, const char* total_label, bool bytes) {
  if (rows.empty()) return "<p class=\"gp-note\">None.</p>\n";
  std::string s = "<div class=\"gp-table-wrap\"><table id=\"" + id + "\" class=\"gp-table\"><thead><tr><th class=\"l\">name</th>"
                  "<th>count</th><th>" + std::string(total_label) + "</th><th>median</th>" + (bytes ? "<th>bytes</th>" : "") +
                  "</tr></thead><tbody>\n";
  for (const auto& r : rows)
    s += "<tr><td class=\"l\">" + escape(r.name) + "</td><td>" + count(r.count) + "</td><td>" + escape(format_ns(r.total_ns)) +
         "</td><td>" + escape(format_ns(r.median_ns)) + "</td>" + (bytes ? "<td>" + escape(bytes_text(r.bytes)) + "</td>" : "") +
         "</tr>\n";
  return s + "</tbody></table></div>\n";
}

std::string trouble_section(const ProfileProcess& p, const std::string& tag) {
  const auto& trouble = p.capture_trouble;
  if (trouble.empty()) return "<p class=\"gp-note gp-good\">Every capture succeeded.</p>\n";
  std::string s = "<div class=\"gp-table-wrap\"><table id=\"table-trouble-" + tag +
                  "\" class=\"gp-table\"><thead><tr><th class=\"l\">offending call</th><th class=\"l\">error</th>"
                  "<th class=\"l\">cudaStreamEndCapture</th><th>stream</th><th class=\"l\">where</th><th class=\"l\">fix</th></tr></thead><tbody>\n";
  for (const auto& t : trouble) {
    const std::string where = t.site ? t.site->where.str() : std::string();
    s += "<tr><td class=\"l gp-bad\">" + escape(t.api) + "</td><td class=\"l\">" + escape(t.error) + "</td><td class=\"l\">" +
         escape(t.end_error.empty() ? "-" : t.end_error.str()) + "</td><td>" + count(t.stream) + "</td><td class=\"l\">" +
         escape(where.empty() ? "-" : where) + "</td><td class=\"l\">" + escape(t.hint) + "</td></tr>\n";
  }
  return s + "</tbody></table></div>\n";
}

// An allocation site's name: its Python line (when it has one) beside the native frame that asked
// for the memory.
std::string allocation_site_text(const ProfileAllocSite& a) {
  const std::string native = !a.site || a.site->where.empty() ? "(unknown site)" : a.site->where.str();
  if (!a.python || a.python->where.empty()) return native;
  return a.python->where + " (" + native + ")";
}

// Per graph: the memory and start-up ledger, then where its allocations in and before its
// capture were made (every site of the report, most bytes first). Nothing without a ledger.
std::string ledger_section(const ProfileProcess& p, const std::vector<const ProfileGraph*>& order, const std::string& tag) {
  if (!p.ledgers_recorded.value_or(false) || order.empty()) return {};
  std::string s = "<h3 id=\"ledgers-" + tag + "\">Memory and start-up per graph</h3>\n"
                  "<div class=\"gp-table-wrap\"><table id=\"table-ledger-" + tag +
                  "\" class=\"gp-table\"><thead><tr><th class=\"l\">graph</th><th>allocated in capture</th><th>before capture</th>"
                  "<th>memory nodes</th><th>free change: capture</th><th>instantiate</th><th>upload</th><th>graph pool after</th>"
                  "<th>capture</th><th>first launch</th><th class=\"l\">note</th></tr></thead><tbody>\n";
  auto free_change = [](const ProfileNumber& n) {
    const double v = n;
    return !std::isfinite(v) ? std::string("-") : v < 0 ? "-" + bytes_text(-v) : bytes_text(v);
  };
  std::string sites;
  std::size_t site_rows = 0;
  for (std::size_t i = 0; i < order.size() && i < kTableGraphs; ++i) {
    const ProfileGraph& g = *order[i];
    if (!g.memory) continue;
    const ProfileGraphMemory& m = *g.memory;
    const ProfileGraphStartup start = g.startup.value_or(ProfileGraphStartup{});
    std::string note;
    if (m.reuses_memory.value_or(false)) note = "reuses memory of earlier captures (shared pool)";
    if (std::isfinite(start.created_after_first_step_ns))
      note += (note.empty() ? "" : "; ") + std::string("made ") + format_ns(start.created_after_first_step_ns) + " after the first step began";
    const std::string& since = m.before_capture_since;
    s += "<tr><td class=\"l\">" + escape(graph_label(g)) + "</td><td>" +
         escape(bytes_text(m.capture_alloc_bytes.value_or(0) + m.capture_vmm_bytes.value_or(0))) + " (" +
         count(m.capture_allocs.value_or(0)) + ")</td><td>" +
         (since.empty() ? std::string("-")
                        : escape(bytes_text(m.before_capture_alloc_bytes.value_or(0))) + " (" + count(m.before_capture_allocs.value_or(0)) +
                              ")" + (since == "start" ? " since start" : "")) +
         "</td><td>" + escape(bytes_text(m.memory_node_bytes.value_or(0))) + " (" + count(m.memory_nodes.value_or(0)) + ")</td><td>" +
         escape(free_change(m.capture_free_delta_bytes)) + "</td><td>" + escape(free_change(m.instantiate_free_delta_bytes)) +
         "</td><td>" + escape(free_change(m.upload_free_delta_bytes)) + "</td><td>" +
         escape(bytes_text(m.graph_pool_reserved_after_bytes)) + "</td><td>" + escape(format_ns(start.capture_ns)) + "</td><td>" +
         escape(format_ns(start.first_launch_ns)) + "</td><td class=\"l\">" + escape(note) + "</td></tr>\n";
    for (const auto& [list, when] :
         {std::pair<const ProfileList<ProfileAllocSite>*, const char*>{&m.capture_alloc_sites, "in capture"},
          std::pair<const ProfileList<ProfileAllocSite>*, const char*>{&m.before_capture_alloc_sites, "before capture"}})
      for (const ProfileAllocSite& a : *list) {
        if (++site_rows > 4 * kTableGraphs) break;
        sites += "<tr><td class=\"l\">" + escape(graph_label(g)) + "</td><td class=\"l\">" + when + "</td><td>" +
                 escape(bytes_text(a.bytes.value_or(0))) + "</td><td>" + count(a.allocations.value_or(0)) + "</td><td class=\"l\">" +
                 escape(allocation_site_text(a)) + "</td><td class=\"l\">" +
                 escape(a.python ? a.python->from == "held" ? "read at the allocation" : "the same call's next CUDA call"
                                 : "native frames only") +
                 "</td></tr>\n";
      }
  }
  s += "</tbody></table></div>\n<p class=\"gp-note\">Allocated in capture: device memory allocated on the capturing thread while it "
       "was captured (what the graph added; graphs sharing a pool are charged their marginal cost). Before capture: on that thread "
       "since its previous capture ended, not added to the graph. Free change: free device memory before minus after the call.</p>\n";
  if (site_rows == 0) return s;
  return s + "<h4>Allocated at</h4>\n<div class=\"gp-table-wrap\"><table id=\"table-alloc-sites-" + tag +
         "\" class=\"gp-table\"><thead><tr><th class=\"l\">graph</th><th class=\"l\">when</th><th>bytes</th><th>allocations</th>"
         "<th class=\"l\">at</th><th class=\"l\">Python line from</th></tr></thead><tbody>\n" + sites + "</tbody></table></div>\n"
         "<p class=\"gp-note\">Each allocation's call site: its Python line where the thread held the GIL at the allocation, or "
         "where the next CUDA call inside the same call from Python had it (PyTorch releases the GIL around its operators), beside "
         "the native frame that asked for the memory.</p>\n";
}

std::string process_section(const Report& report, const HtmlReportOptions& options, const ProfileProcess& p, bool several,
                            std::size_t& picture) {
  const std::string tag = "p" + count(p.process);
  std::string s = "<section class=\"gp-process\" id=\"process-" + tag + "\"><h2>" +
                  (several ? "Process " + count(p.process) + " <span class=\"gp-note\">pid " + count(p.pid) + ": " +
                                 escape(p.command_line) + "</span>"
                           : std::string("The profile")) +
                  "</h2>\n";
  for (const auto& e : text_lines(p.errors, p.extra, "errors")) s += "<p class=\"gp-bad\">NOT PROFILED: " + escape(e) + "</p>\n";
  for (const auto& w : text_lines(p.warnings, p.extra, "warnings")) s += "<p class=\"gp-warn\">graphprof warning: " + escape(w) + "</p>\n";
  for (const auto& n : text_lines(p.cupti_notices, p.extra, "cupti_notices"))
    s += "<p class=\"gp-warn\">CUPTI reported: " + escape(n) + "</p>\n";
  if (p.dropped_records.value_or(0) + p.lost_buffers.value_or(0) + p.malformed_lines.value_or(0) > 0)
    s += "<p class=\"gp-warn\">" + count(p.dropped_records.value_or(0)) + " records dropped by CUPTI, " + count(p.lost_buffers.value_or(0)) +
         " buffers lost, " + count(p.malformed_lines.value_or(0)) + " unreadable lines: the counts are lower bounds.</p>\n";
  s += headline_strip(p, tag);
  s += timeline_section(p, tag);

  std::vector<const ProfileGraph*> order;
  for (const auto& g : p.graphs) order.push_back(&g);
  std::stable_sort(order.begin(), order.end(), [](const ProfileGraph* a, const ProfileGraph* b) { return gpu_total(*a) > gpu_total(*b); });
  s += "<h3 id=\"graphs-" + tag + "\">Graphs</h3>\n";
  if (order.empty()) s += "<p class=\"gp-note\">This process instantiated no graph.</p>\n";
  else s += graphs_table(p, order, tag);
  s += step_kinds_section(p, tag);

  if (options.graphs) {
    std::size_t drawn = 0;
    for (const ProfileGraph* g : order) {
      if (drawn >= kDrawnGraphs || gpu_total(*g) <= 0) break;
      const ModeResult* r = graph_result(report, p, *g);
      if (r == nullptr || !r->sections.graph || r->sections.graph->dot.empty()) continue;
      const double graph_kernel_ns = p.coverage ? p.coverage->graph_kernel_ns.value_or(0) : 0;
      const double share = graph_kernel_ns > 0 ? gpu_total(*g) / graph_kernel_ns : NAN;
      const GraphFigure f = graph_figure(*r, options, picture, "graph-" + tag + "-exec" + count(g->exec),
                                         "Hot graph: " + graph_label(*g),
                                         count(g->nodes) + " nodes, " + count(g->launches) + " launches, " +
                                             format_ns(g->gpu_span ? g->gpu_span->median_ns.value() : NAN) + " GPU per launch" +
                                             (std::isfinite(share) ? ", " + pct(share) + " of the kernel time in graphs" : ""));
      s += f.html;
      ++picture;
      ++drawn;
    }
  }
  s += ledger_section(p, order, tag);
  s += "<h3 id=\"eager-" + tag + "\">Eager work left</h3>\n" + eager_section(p, tag);
  s += "<h4>Copies and memsets outside graphs</h4>\n" + named_table(p.copies, "table-copies-" + tag, "GPU total", true);
  s += "<h4>Synchronising calls</h4>\n" + named_table(p.syncs, "table-syncs-" + tag, "host total", false);
  s += "<h3 id=\"trouble-" + tag + "\">Capture trouble</h3>\n" + trouble_section(p, tag);
  return s + "</section>\n";
}

std::string runs_section(const ProfileSection& profile) {
  const auto& runs = profile.runs;
  if (runs.size() < 2) return {};
  std::string s = "<section id=\"runs\"><h2>Runs</h2>\n<p class=\"gp-note\">" + std::to_string(runs.size()) +
                  " runs of the application (<code>--repeat</code>); the sections below show run 1, every run is in the "
                  "report.</p>\n<div class=\"gp-table-wrap\"><table id=\"table-runs\" class=\"gp-table\"><thead><tr><th>run</th>"
                  "<th class=\"l\">exit</th><th>wall</th><th>coverage (kernel time)</th><th>graph launches</th><th>eager launches</th>"
                  "<th>graphs</th></tr></thead><tbody>\n";
  for (const auto& r : runs) {
    const profile_fields::RunTotals t = profile_fields::run_totals(r);
    s += "<tr><td>" + count(r.run) + "</td><td class=\"l\">" + escape(r.exit) + "</td><td>" + escape(format_ns(r.wall_ns)) +
         "</td><td>" + pct(t.coverage()) + "</td><td>" + count(t.graph_launches) +
         "</td><td>" + count(t.eager_launches) + "</td><td>" + count(t.graphs) + "</td></tr>\n";
  }
  return s + "</tbody></table></div></section>\n";
}

std::string application_section(const ProfileSection& profile) {
  std::string cmd;
  for (const auto& a : text_lines(profile.command, profile.extra, "command")) cmd += (cmd.empty() ? "" : " ") + a;
  std::string s = "<section id=\"application\"><h2>The application</h2>\n<dl class=\"gp-env\"><dt>command</dt><dd><code>" +
                  escape(cmd) + "</code></dd><dt>exit</dt><dd>" + escape(profile.exit) + "</dd><dt>wall time</dt><dd>" +
                  escape(format_ns(profile.wall_ns)) + "</dd><dt>trace level</dt><dd>" + escape(profile.trace_level) + "</dd>";
  if (std::isfinite(profile.overhead))
    s += "<dt>overhead</dt><dd>" + escape(strf("%+.1f %%", 100 * profile.overhead)) + " wall time against " +
         escape(format_ns(profile.plain_wall_ns)) + " without graphprof</dd>";
  // --overhead-windows: the change of the application's own steps, recording against paused windows.
  if (const auto& w = profile.overhead_windows) {
    const bool inside_noise = w->inside_noise.value_or(false);
    if (std::isfinite(w->change))
      s += "<dt>overhead on its steps</dt><dd>" +
           escape(strf("%+.1f %% time per graph launch [%+.1f, %+.1f %%], %s (%.0f recording windows against the paused ones beside "
                       "them, --overhead-windows)",
                       100 * w->change, 100 * w->low, 100 * w->high, inside_noise ? "inside the noise" : "outside the noise",
                       w->windows.value())) +
           "</dd>";
    else
      s += "<dt>overhead on its steps</dt><dd>no verdict: too few windows (--overhead-windows)</dd>";
  }
  for (const auto& p : profile.processes)
    s += "<dt>process " + count(p.process) + "</dt><dd>pid " + count(p.pid) + ": <code>" + escape(p.command_line) + "</code></dd>";
  s += "</dl>\n";
  for (const auto& n : text_lines(profile.notes, profile.extra, "notes")) s += "<p class=\"gp-note\">note: " + escape(n) + "</p>\n";
  return s + "</section>\n";
}

}  // namespace

std::string profile_page(const Report& report, const HtmlReportOptions& options) {
  const ModeResult* app = profile_fields::app_result(report);  // render_html_report's test: not null
  const ProfileSection& profile = *app->sections.profile;
  const std::string& program = profile.program;
  const std::string title = options.title.empty() ? "graphprof profile: " + program : options.title;
  const auto& procs = profile.processes;

  std::string page = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
                     "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                     "<meta name=\"generator\" content=\"graphprof " + escape(report.tool_version) + "\">\n"
                     "<title>" + escape(title) + "</title>\n<style>" + kPageStyle + "</style></head>\n<body>\n";
  page += "<header><h1>" + escape(title) + "</h1>\n<p class=\"gp-sub\">";
  if (report.environment.gpu) page += escape(report.environment.gpu->name) + " · ";
  page += "graphprof " + escape(report.tool_version);
  if (!report.created_utc.empty()) page += " · " + escape(report.created_utc);
  if (!options.source.empty()) page += " · <code>" + escape(options.source) + "</code>";
  page += "</p>\n<nav>";
  if (!procs.empty()) page += "<a href=\"#fix-first\">What to fix</a>";
  for (const auto& p : procs) {
    const std::string tag = "p" + count(p.process);
    page += "<a href=\"#process-" + tag + "\">" + (procs.size() > 1 ? "Process " + count(p.process) : std::string("Summary")) + "</a>";
  }
  if (profile.runs.size() > 1) page += "<a href=\"#runs\">Runs</a>";
  page += "<a href=\"#application\">Application</a><a href=\"#environment\">Environment</a></nav></header>\n<main>\n";
  if (app->status != Status::kOk) page += "<p class=\"gp-headline gp-fail\">" + escape(app->reason) + "</p>\n";
  if (procs.empty()) page += "<p class=\"gp-note\">No process of the application initialised CUDA: nothing was profiled.</p>\n";
  if (!procs.empty()) page += fix_first_html(profile, escape);  // the answer first; the details follow
  std::size_t picture = 0;
  for (const auto& p : procs) page += process_section(report, options, p, procs.size() > 1, picture);
  page += runs_section(profile);
  page += application_section(profile);
  page += environment_section(report, options);
  page += "</main>\n<footer class=\"gp-note\"><p>Written by graphprof " + escape(report.tool_version) +
          ". Self-contained: no script, nothing fetched.</p></footer>\n</body></html>\n";
  return page;
}

}  // namespace gp::html
