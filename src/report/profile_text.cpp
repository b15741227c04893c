// Console summary of `graphprof profile`, read from the report's sections.profile only.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <sstream>

#include "graphprof/profile.hpp"
#include "graphprof/profile_fields.hpp"
#include "graphprof/reporters.hpp"
#include "graphprof/text_format.hpp"

namespace gp {

using nlohmann::json;

namespace {

double get(const json& j, const char* key, double fallback = NAN) {
  auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<double>() : fallback;
}

std::string ns(const json& j, const char* key) { return format_ns(get(j, key)); }

// A path as one word of a shell command: quoted when it holds anything but safe characters.
std::string shell_word(const std::string& s) {
  const bool safe = !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || std::strchr("_./-=:,+@%", c) != nullptr;
  });
  if (safe) return s;
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::string pct(double f) { return std::isfinite(f) ? strf("%.1f %%", 100.0 * f) : "-"; }

// "1 call", "55 calls" for a stats object's count.
std::string calls_of(const json& stats) {
  const std::size_t n = stats.is_object() ? stats["count"].get<std::size_t>() : 0;
  return std::to_string(n) + (n == 1 ? " call" : " calls");
}

// A launch call line, then (with GPU records) what the calls cost the host, how many waited for a
// full queue, and how long their work waited to start.
std::string calls_line(const char* what, const json& c) {
  const json& all = c["all"];
  if (!all.is_object()) return {};
  std::string s = std::string("  ") + what + ": " + std::to_string(all["count"].get<std::size_t>()) + " calls, median " +
                  ns(all, "median_ns") + " (p90 " + ns(all, "p90_ns") + ")\n";
  if (!c["reference_ns"].is_number()) return s;
  const std::size_t blocked = c["blocked"].get<std::size_t>();
  s += "    host cost " + ns(c["unblocked"], "median_ns") + " (median of the " + calls_of(c["unblocked"]) + " not blocked)\n";
  s += "    " + std::to_string(blocked) + " blocked on a full launch queue";
  if (blocked > 0)
    s += ", " + format_ns(get(c, "blocked_wait_ns", 0)) + " waiting in all (" + strf("%.0f", get(c, "in_flight_when_blocked", 0)) +
         " launches in flight when blocked)";
  s += "\n";
  static const json kNull;
  const json& idle = c.contains("idle_latency") ? c["idle_latency"] : kNull;
  const json& queued = c.contains("queued_latency") ? c["queued_latency"] : kNull;
  if (idle.is_object() || queued.is_object()) {
    s += "    work starts";
    if (idle.is_object()) s += " " + ns(idle, "median_ns") + " after the call returns to an idle GPU (" + calls_of(idle) + ")";
    if (idle.is_object() && queued.is_object()) s += ";";
    if (queued.is_object())
      s += " " + ns(queued, "median_ns") + " after it returns when queued behind earlier work (" + calls_of(queued) +
           ", up to " + strf("%.0f", get(c, "max_in_flight", 0)) + " launches in flight)";
    s += "\n";
  }
  return s;
}

// The slowest nodes of the graph with the most kernel time, from its own result's sections.trace.
void slowest_nodes(std::ostringstream& out, const Report& report, const json& p, const std::string& report_path) {
  const json* top = nullptr;
  for (const auto& g : p["graphs"])
    if (top == nullptr || get(g, "kernel_time_ns", 0) > get(*top, "kernel_time_ns", 0)) top = &g;
  if (top == nullptr || get(*top, "kernel_time_ns", 0) <= 0) return;
  const std::string process = std::to_string(p["process"].get<std::size_t>());
  const std::string exec = std::to_string((*top)["exec"].get<unsigned>());
  for (const auto& r : report.results) {
    auto pr = r.params.find("process"), ex = r.params.find("exec");
    if (pr == r.params.end() || ex == r.params.end() || pr->second != process || ex->second != exec) continue;
    if (!r.sections.trace || !r.sections.trace->has_records) return;
    const std::vector<TraceNodeTime>& all = r.sections.trace->nodes;
    std::vector<const TraceNodeTime*> nodes;
    for (const auto& n : all)
      if (std::isfinite(n.median_ns)) nodes.push_back(&n);
    std::sort(nodes.begin(), nodes.end(),
              [](const TraceNodeTime* a, const TraceNodeTime* b) { return a->median_ns > b->median_ns; });
    if (nodes.size() > 8) nodes.resize(8);
    out << "\n  slowest nodes of graph_" << (*top)["graph"].get<unsigned>() << " (exec " << exec << ", "
        << all.size() << " nodes timed over " << (*top)["launches"].get<std::size_t>()
        << " launches; all in the report)\n";
    const std::string dot = top->value("dot", std::string());
    out << "  heat map: graphprof render " << (dot.empty() ? std::string("DOT") : shell_word(dot)) << " --report "
        << (report_path.empty() ? std::string("REPORT") : shell_word(report_path)) << " -o graph.svg\n";
    TextTable rows({"node", "kind", "name", "median", "p90", "gap before"});
    for (const TraceNodeTime* n : nodes)
      rows.add({n->dot_name, n->kind, n->name, format_ns(n->median_ns), format_ns(n->p90_ns),
                format_ns(n->gap_before_median_ns)});
    out << rows.str();
    return;
  }
}

// Graph coverage, launch counts and what the launch calls cost.
void coverage_text(std::ostringstream& out, const json& p) {
  const json& c = p["coverage"];
  if (c["kernel_time_in_graphs"].is_number()) {
    out << "  graph coverage: " << pct(get(c, "kernel_time_in_graphs")) << " of GPU kernel time and "
        << pct(get(c, "kernels_in_graphs")) << " of kernels ran inside graphs (" << c["graph_kernels"] << " graph kernels, "
        << c["eager_kernels"] << " eager)\n";
  }
  out << "  launches: " << c["graph_launches"] << " graph launches, " << c["eager_launches"] << " eager kernel launches";
  if (c["eager_launches_per_graph_launch"].is_number())
    out << " (" << strf("%.1f", get(c, "eager_launches_per_graph_launch")) << " per graph launch)";
  out << "\n";
  out << calls_line("cudaGraphLaunch", p["graph_launch_calls"]);
  if (p["trace_level"] == "node" && c["graph_launches"].get<std::size_t>() > 0)
    out << "    (at --trace node CUPTI adds work for every kernel node to each launch call and to the GPU, and fewer\n"
           "     launches fit in the queue; --trace graph measures launch calls with much less distortion)\n";
  out << calls_line("eager launches", p["eager_launch_calls"]);
}

// Records that did not reach the analysis: dropped by CUPTI, lost buffers, unreadable lines.
void lost_records_text(std::ostringstream& out, const json& p) {
  const double dropped = get(p, "dropped_records", 0), malformed = get(p, "malformed_lines", 0), lost = get(p, "lost_buffers", 0);
  if (dropped + malformed + lost > 0)
    out << "  warning: " << strf("%.0f", dropped) << " records dropped by CUPTI, " << strf("%.0f", lost)
        << " buffers lost, " << strf("%.0f", malformed) << " unreadable lines: counts above are lower bounds\n";
}

void process_text(std::ostringstream& out, const Report& report, const json& p, bool several, const std::string& report_path) {
  if (several) out << "\nprocess " << p["process"] << " (pid " << p["pid"] << "): " << p["command_line"].get<std::string>() << "\n";
  for (const auto& e : p["errors"]) out << "  NOT PROFILED: " << e.get<std::string>() << "\n";
  const auto warnings = p.find("warnings");  // reports older than this field have none
  if (warnings != p.end())
    for (const auto& w : *warnings) out << "  graphprof warning: " << w.get<std::string>() << "\n";
  const auto notices = p.find("cupti_notices");
  if (notices != p.end())
    for (const auto& n : *notices) out << "  CUPTI reported: " << n.get<std::string>() << "\n";
  const auto at_end = p.find("cupti_at_end");
  const bool taken = at_end != p.end() && at_end->is_string() &&
                     (*at_end == "finalized_elsewhere" || *at_end == "activity_taken" || *at_end == "teardown_timeout");
  // With activity_taken the records have a hole instead (what CUPTI held at exit was taken back).
  if (taken && *at_end != "activity_taken")
    out << "  records stop " << ns(p, "records_end_ns") << " after CUDA initialisation, "
        << format_ns(get(p, "cuda_wall_ns", 0) - get(p, "records_end_ns", 0))
        << " before the process's last flush: the figures below may miss what came later\n";
  if (p["end_reason"].is_null())
    out << "  note: the process ended without flushing its records (killed or crashed): the records CUPTI had not handed over yet\n"
           "  (its last, partly filled buffer) are missing\n";
  const json& c = p["coverage"];
  const bool no_work = c["graph_kernels"].get<std::size_t>() + c["eager_kernels"].get<std::size_t>() == 0 &&
                       c["graph_launches"].get<std::size_t>() + c["eager_launches"].get<std::size_t>() == 0;
  if (no_work && taken) {
    out << "  no kernel or launch record reached graphprof before CUPTI was taken from it (CUPTI hands over only full\n"
           "  buffers until a flush): only the graphs instantiated until then were recorded\n";
  } else if (no_work && p["graphs"].empty() && p["copies"].empty()) {
    out << "  no kernel ran in this process (it initialised CUDA only)\n";
    lost_records_text(out, p);  // a garbled or truncated record file reads as one without work
    return;
  }
  if (!(no_work && taken)) coverage_text(out, p);

  const json& graphs = p["graphs"];
  if (!graphs.empty()) {
    out << "\n  graphs (" << graphs.size() << " instantiated)\n";
    TextTable rows({"graph", "exec", "made by", "nodes", "edges", "instantiate", "upload", "launches", "call median",
                    "blocked", "GPU/launch", "kernel time"});
    std::size_t shown = 0;
    for (const auto& g : graphs) {
      if (++shown > 40) break;
      const json& calls = g["launch_calls"];
      rows.add({"graph_" + std::to_string(g["graph"].get<unsigned>()), std::to_string(g["exec"].get<unsigned>()),
                g["made_by"].get<std::string>(), std::to_string(g["nodes"].get<std::size_t>()),
                std::to_string(g["edges"].get<std::size_t>()), ns(g, "instantiate_ns"), ns(g, "upload_ns"),
                std::to_string(g["launches"].get<std::size_t>()),
                calls["all"].is_object() ? ns(calls["all"], "median_ns") : "-",
                std::to_string(calls["blocked"].get<std::size_t>()),
                g["gpu_span"].is_object() ? ns(g["gpu_span"], "median_ns") : "-",
                p["trace_level"] == "node" ? ns(g, "kernel_time_ns") : "-"});
    }
    out << rows.str();
    if (graphs.size() > 40) out << "  ... " << graphs.size() - 40 << " more in the report\n";
    slowest_nodes(out, report, p, report_path);
  }
  auto named = [&](const char* title, const json& list, bool bytes, bool host) {
    if (list.empty()) return;
    out << "\n  " << title << "\n";
    std::vector<std::string> header{"name", "count", host ? "host total" : "GPU total", "median"};
    if (bytes) header.push_back("bytes");
    TextTable rows(std::move(header));
    for (const auto& n : list) {
      std::vector<std::string> r{n["name"].get<std::string>(), std::to_string(n["count"].get<std::size_t>()),
                                 ns(n, "total_ns"), ns(n, "median_ns")};
      if (bytes) r.push_back(std::to_string(n["bytes"].get<std::uint64_t>()));
      rows.add(std::move(r));
    }
    out << rows.str();
  };
  named("top eager kernels (outside graphs)", p["top_eager_kernels"], false, false);
  named("copies and memsets outside graphs", p["copies"], true, false);
  named("synchronising calls", p["syncs"], false, true);
  const json& trouble = p["capture_trouble"];
  if (!trouble.empty()) {
    out << "\n  capture trouble\n";
    TextTable rows({"#", "stream", "offending call", "error", "cudaStreamEndCapture"});
    std::string fixes;
    std::size_t number = 0;
    for (const auto& t : trouble) {
      const std::string n = std::to_string(++number);
      rows.add({n, std::to_string(t["stream"].get<unsigned>()), t["api"].get<std::string>(), t["error"].get<std::string>(),
                t["end_error"].get<std::string>().empty() ? "-" : t["end_error"].get<std::string>()});
      if (!t["hint"].get<std::string>().empty()) fixes += "  fix " + n + ": " + t["hint"].get<std::string>() + "\n";
    }
    out << rows.str() << fixes;
  }
  lost_records_text(out, p);
}

// --repeat: one line per run (exit, wall, coverage, launches); the details below are the first run's.
void repeat_text(std::ostringstream& out, const json& p) {
  namespace f = profile_fields;
  const std::vector<const json*> runs = f::runs(p);
  if (runs.size() < 2) return;
  out << "  " << runs.size() << " runs (--repeat); the details below are run 1's\n";
  TextTable rows({"run", "exit", "wall", "coverage (time)", "graph launches", "eager launches", "graphs"});
  for (const json* r : runs) {
    const f::RunTotals t = f::run_totals(*r);
    rows.add({strf("%.0f", f::number(*r, "run", 0)), strf("%.0f", f::number(*r, "exit_status", 0)), ns(*r, "wall_ns"),
              pct(t.coverage()), strf("%.0f", t.graph_launches), strf("%.0f", t.eager_launches), strf("%.0f", t.graphs)});
  }
  out << rows.str();
}

}  // namespace

std::string format_profile_summary(const Report& report, const std::string& report_path) {
  const ModeResult* app = nullptr;
  for (const auto& r : report.results)
    if (r.mode == Mode::kApp && r.params.empty() && r.sections.other.contains("profile")) app = &r;
  if (app == nullptr) return {};
  const json& p = app->sections.other.at("profile");
  std::ostringstream out;
  const json& procs = p["processes"];
  out << "\nprofile: " << p["program"].get<std::string>() << " (" << procs.size()
      << (procs.size() == 1 ? " CUDA process" : " CUDA processes") << ", trace " << p["trace_level"].get<std::string>()
      << "): the application " << p["exit"].get<std::string>() << ", wall " << ns(p, "wall_ns") << "\n";
  if (p["plain_wall_ns"].is_number()) {
    out << "  overhead: " << ns(p, "wall_ns") << " profiled vs " << ns(p, "plain_wall_ns") << " without graphprof ("
        << strf("%+.1f %%", 100.0 * get(p, "overhead")) << " wall time)";
    const json& runs = p["plain_runs_ns"];
    if (runs.is_array() && runs.size() >= 2) {
      out << "; plain runs " << format_ns(runs[0].get<double>());
      for (std::size_t i = 1; i < runs.size(); ++i) out << (i + 1 == runs.size() ? " and " : ", ") << format_ns(runs[i].get<double>());
      out << " (before and after the profiled run, mean used)";
    }
    if (p["warmup_wall_ns"].is_number()) out << ", after a warm-up run of " << ns(p, "warmup_wall_ns") << " (not counted)";
    out << "\n  (wall time includes start-up; compare the application's own timing lines for its steady state)\n";
  }
  for (const auto& n : p["notes"]) out << "  note: " << n.get<std::string>() << "\n";
  if (procs.empty()) out << "  no process of the application initialised CUDA (nothing to profile)\n";
  repeat_text(out, p);
  for (const auto& proc : procs) process_text(out, report, proc, procs.size() > 1, report_path);
  return out.str();
}

}  // namespace gp
