// Console summary of `graphprof profile`, read from the report's sections.profile only.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <sstream>

#include "graphprof/core/json_text.hpp"
#include "graphprof/profile/profile.hpp"
#include "graphprof/core/error.hpp"
#include "graphprof/core/name_match.hpp"
#include "graphprof/core/profile_fields.hpp"
#include "graphprof/report/profile_text.hpp"
#include "graphprof/report/reporter.hpp"
#include "graphprof/core/text_format.hpp"
#include "graphprof/profile/observer.hpp"
#include "graphprof/profile/profile_ranks.hpp"
#include "profile_fix_first.hpp"
#include "profile_overhead_text.hpp"
#include "profile_sites_text.hpp"
#include "profile_steps_text.hpp"
#include "profile_text_fields.hpp"

namespace gp {

using nlohmann::json;

namespace {

// A name in a table cell: one line, at most kNameColumns columns (CUTLASS and Triton kernel names
// reach 10 kB; a hostile one 200 MB). The report keeps the whole name.
constexpr std::size_t kNameColumns = 60;
std::string name_cell(const std::string& s) { return clip_columns(one_line(s.substr(0, 4 * kNameColumns + 4)), kNameColumns); }
// A column of kernel names, cut in the middle so that different kernels stay apart
// (clip_names_apart); a huge name is first reduced to its two ends.
std::vector<std::string> name_column(const std::vector<std::string>& names) {
  std::vector<std::string> lines;
  for (const std::string& s : names)
    lines.push_back(one_line(s.size() <= 8 * kNameColumns ? s : s.substr(0, 4 * kNameColumns) + s.substr(s.size() - 4 * kNameColumns)));
  return clip_names_apart(lines, kNameColumns);
}

using profile_text::ns;

using profile_text::needed;  // a field the summary needs below its headline
std::string median_of(const std::optional<ProfileStats>& s) { return format_ns(s ? s->median_ns.value() : NAN); }

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

using profile_text::pct;

// "1 call", "55 calls" for a stats object's count.
std::string calls_of(const std::optional<ProfileStats>& stats) {
  const std::size_t n = stats ? stats->count.count() : 0;
  return plural(n, "call", "calls");
}

// A launch call line, then (with GPU records) what the calls cost the host, how many waited for a
// full queue, and how long their work waited to start.
std::string calls_line(const char* what, const std::optional<ProfileLaunchCalls>& calls, bool verbose) {
  if (!calls || !calls->all) return {};
  const ProfileLaunchCalls& c = *calls;
  const ProfileStats& all = *c.all;
  std::string s = std::string("  ") + what + ": " + std::to_string(static_cast<std::size_t>(all.count.count())) + " calls, median " +
                  ns(all.median_ns) + " (p90 " + ns(all.p90_ns) + ")\n";
  if (!c.reference_ns.is_number()) return s;
  const std::size_t blocked = c.blocked.count();
  s += "    host cost " + median_of(c.unblocked) + " (median of the " + calls_of(c.unblocked) + " not blocked)\n";
  s += "    " + std::to_string(blocked) + " blocked on a full launch queue";
  if (blocked > 0)
    s += ", " + format_ns(c.blocked_wait_ns.value_or(0)) + " waiting in all (" +
         plural(std::round(c.in_flight_when_blocked.value_or(0)), "launch", "launches") + " in flight when blocked)";
  s += "\n";
  if (!verbose) return s;
  const auto& idle = c.idle_latency;
  const auto& queued = c.queued_latency;
  if (idle || queued) {
    s += "    work starts";
    if (idle) s += " " + median_of(idle) + " after the call returns to an idle GPU (" + calls_of(idle) + ")";
    if (idle && queued) s += ";";
    if (queued)
      s += " " + median_of(queued) + " after it returns when queued behind earlier work (" + calls_of(queued) + ", up to " +
           plural(std::round(c.max_in_flight.value_or(0)), "launch", "launches") + " in flight)";
    s += "\n";
  }
  return s;
}

// The slowest nodes of the graph with the most kernel time, from its own result's sections.trace.
void slowest_nodes(std::ostringstream& out, const Report& report, const ProfileProcess& p, const std::string& report_path) {
  const ProfileGraph* top = nullptr;
  for (const auto& g : p.graphs)
    if (top == nullptr || g.kernel_time_ns.value_or(0) > top->kernel_time_ns.value_or(0)) top = &g;
  if (top == nullptr || top->kernel_time_ns.value_or(0) <= 0) return;
  const std::string process = std::to_string(static_cast<std::size_t>(p.process.count()));
  const std::string exec = std::to_string(static_cast<unsigned>(top->exec.count()));
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
    const auto& sampled = top->node_sampling;
    const std::size_t timed = sampled ? sampled->traced_launches.count() : top->launches.count();
    out << "\n  slowest nodes of graph_" << static_cast<unsigned>(top->graph.count()) << " (exec " << exec << ", "
        << all.size() << " nodes timed over " << timed << (sampled ? " node-traced" : "")
        << " launches; all in the report)\n";
    const std::string& dot = top->dot;
    out << "  heat map: graphprof render " << (dot.empty() ? std::string("DOT") : shell_word(dot)) << " --report "
        << (report_path.empty() ? std::string("REPORT") : shell_word(report_path)) << " -o graph.svg\n";
    TextTable rows({"node", "kind", "name", "median", "p90", "gap before"});
    std::vector<std::string> names;
    for (const TraceNodeTime* n : nodes) names.push_back(n->name);
    names = name_column(names);
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      const TraceNodeTime* n = nodes[i];
      rows.add({name_cell(n->dot_name), name_cell(n->kind), names[i], format_ns(n->median_ns), format_ns(n->p90_ns),
                format_ns(n->gap_before_median_ns)});
    }
    out << rows.str();
    return;
  }
}

// "1-20, 40, 60" from [[1, 20], [40, 40], [60, 60]]; at most `keep` runs, then "...".
// Each run is [first, last], launch ordinals from 0, first <= last; any other shape is a malformed
// report (exit 3 naming the field), never a read past the end of a run or a wrapped-around number.
std::string ordinal_runs_text(const json& runs, std::size_t keep = 6) {
  const auto malformed = [](const std::string& what) {
    return input_error("node_sampling.traced_ordinals: " + what + "; expected a list of [first, last] launch numbers (0 <= first <= last)");
  };
  if (runs.is_null()) return "not recorded";
  if (!runs.is_array()) throw malformed("not a list");
  for (const auto& r : runs) {
    const bool pair = r.is_array() && r.size() == 2 && r[0].is_number_unsigned() && r[1].is_number_unsigned();
    if (!pair || r[0].get<std::uint64_t>() > r[1].get<std::uint64_t>() || r[1].get<std::uint64_t>() >= (std::uint64_t{1} << 53))
      throw malformed(json_text(r).substr(0, 60) + " is not one");
  }
  std::string s;
  std::size_t shown = 0;
  for (const auto& r : runs) {
    if (shown++ == keep) return s + ", ...";
    if (!s.empty()) s += ", ";
    const auto a = r[0].get<std::uint64_t>() + 1, b = r[1].get<std::uint64_t>() + 1;  // 1-based for people
    s += a == b ? std::to_string(a) : std::to_string(a) + "-" + std::to_string(b);
  }
  return s;
}

// Node sampling: which launches of each graph were traced node by node, and how much longer those
// ran on the GPU than the launches that were not (GRAPH_TRACE spans of both).
void sampling_text(std::ostringstream& out, const ProfileProcess& p) {
  bool header = false;
  for (const auto& g : p.graphs) {
    if (!g.node_sampling) continue;
    const ProfileNodeSampling& s = *g.node_sampling;
    if (!header) {
      const bool rule = p.node_sampling.present();
      out << "\n  node sampling (" << (rule ? p.node_sampling + " = warm-up, first, 1 in" : std::string("rule not recorded"))
          << "; --node-sample all traces every launch): node times come from the launches\n"
             "  traced node by node, launch counts and GPU spans from all; 'stretch' is how much longer a traced launch\n"
             "  ran on the GPU than an untraced one (medians: first node record to last, and GRAPH_TRACE spans)\n";
      if (const auto& ka = p.kernel_activity)
        out << "  kernel activity (CONCURRENT_KERNEL) was on for the samples only: switched off "
            << plural(ka->switched_off.value_or(0.0), "time", "times") << ", each once the GPU had run the last traced launch; records in flight at a switch set aside ("
            << static_cast<int>(ka->eager_records_set_aside.value_or(0)) << " eager)\n";
      header = true;
    }
    out << "    graph_" << strf("%.0f", g.graph.value_or(0)) << ": " << s.traced_launches << " of " << g.launches
        << " launches traced (launch " << ordinal_runs_text(s.traced_ordinals ? *s.traced_ordinals : json()) << "); span "
        << median_of(s.span_traced) << " traced vs " << median_of(s.span_untraced) << " untraced, stretch "
        << (s.perturbation.is_number() ? strf("%+.1f %%", 100.0 * s.perturbation) : std::string("-"));
    if (const double n = s.set_aside.value_or(0.0); n > 0)
      out << "; " << plural(std::round(n), "node record", "node records")
          << " set aside (longer than twice an untraced launch: CUPTI's wrong end times right after GRAPH_TRACE is switched off)";
    if (const double n = s.set_aside_switched.value_or(0.0); n > 0)
      out << "; " << plural(std::round(n), "node record", "node records") << " of launches in flight at a kernel switch set aside";
    out << "\n";
  }
}

// Graph coverage, launch counts and what the launch calls cost (verbose: also when work starts
// after a call, and the eager launch calls).
// Coverage in the steady state beside the whole process's, where they differ by 2 points or more
// (warm-up, autotuning and captures count as eager work in the whole process): kernel time with
// kernel records, else the launched work (graph nodes run against eager kernel launches).
void steady_coverage_text(std::ostringstream& out, const ProfileProcess& p) {
  if (!p.coverage || !p.coverage->steady) return;
  const ProfileCoverage& c = *p.coverage;
  const ProfileSteadyCoverage& s = *c.steady;
  double whole = NAN, steady = NAN;
  const char* what = "";
  const char* how = "";
  if (c.kernel_time_in_graphs.is_number() && s.kernel_time_in_graphs.is_number()) {
    whole = c.kernel_time_in_graphs;
    steady = s.kernel_time_in_graphs;
    what = "GPU kernel time";
  } else if (s.launches_in_graphs.is_number()) {
    double node_runs = 0;
    for (const auto& g : p.graphs) node_runs += g.launches.value_or(0) * g.nodes.value_or(0);
    const double eager = c.eager_launches.value_or(0);
    if (node_runs + eager > 0) whole = node_runs / (node_runs + eager);
    steady = s.launches_in_graphs;
    what = "launched work";
    how = "graph nodes run against eager kernel launches;\n    ";
  }
  if (!std::isfinite(whole) || !std::isfinite(steady) || std::fabs(steady - whole) < 0.02) return;
  out << "  in the steady state: " << pct(steady) << " of " << what << " in graphs, " << pct(whole) << " over the whole process\n"
      << "    (" << how << "from the first launch of the most-launched graph, " << format_ns(s.from_ns)
      << " in, to the last\n    graph launch: warm-up, autotuning and captures left out)\n";
}

void coverage_text(std::ostringstream& out, const ProfileProcess& p, bool verbose) {
  const ProfileCoverage& c = needed(p.coverage);
  if (c.kernel_time_in_graphs.is_number()) {
    out << "  graph coverage: " << pct(c.kernel_time_in_graphs) << " of GPU kernel time and " << pct(c.kernels_in_graphs)
        << " of kernels ran inside graphs (" << c.graph_kernels << " graph kernels, " << c.eager_kernels << " eager)"
        << (c.estimated.value_or(false) ? "; graph kernels estimated from the node-traced launches" : "") << "\n";
  }
  steady_coverage_text(out, p);
  out << "  launches: " << c.graph_launches << " graph launches, " << c.eager_launches << " eager kernel launches";
  if (c.eager_launches_per_graph_launch.is_number())
    out << " (" << strf("%.1f", c.eager_launches_per_graph_launch.value()) << " per graph launch)";
  out << "\n";
  step_text(out, p);
  out << calls_line("cudaGraphLaunch", p.graph_launch_calls, verbose);
  if (!verbose) return;
  if (parse_trace_level(p.trace_level) == TraceLevel::kNode && c.graph_launches.count() > 0)
    out << "    (at --trace node CUPTI adds work for every kernel node to each launch call and to the GPU, and fewer\n"
           "     launches fit in the queue; --trace graph measures launch calls with much less distortion)\n";
  out << calls_line("eager launches", p.eager_launch_calls, verbose);
}

// Records that did not reach the analysis: dropped by CUPTI, lost buffers, unreadable lines.
void lost_records_text(std::ostringstream& out, const ProfileProcess& p) {
  const double dropped = p.dropped_records.value_or(0), malformed = p.malformed_lines.value_or(0), lost = p.lost_buffers.value_or(0);
  if (dropped + malformed + lost > 0)
    out << "  warning: " << strf("%.0f", dropped) << " records dropped by CUPTI, " << strf("%.0f", lost)
        << " buffers lost, " << strf("%.0f", malformed) << " unreadable lines: counts above are lower bounds\n";
}

// The summary as a terminal may show it: every field from the records is printed through one_line
// or a table's name cell, and this last pass catches any other: a control character other than
// the line ends (ESC starts a terminal's escape sequence; C1 controls, U+0080..U+009F, can too)
// is written as \xNN.
std::string terminal_safe(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    const auto next = i + 1 < text.size() ? static_cast<unsigned char>(text[i + 1]) : 0;
    if ((c < 0x20 && c != '\n') || c == 0x7f) {
      out += strf("\\x%02x", c);
    } else if (c == 0xc2 && next >= 0x80 && next <= 0x9f) {
      out += strf("\\x%02x", next);
      ++i;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

// The lines a process's records gave (its errors, warnings, CUPTI's notices), each on one line
// without terminal escapes (one_line), and counted, not repeated: lines that differ only in their
// numbers are one line with "(and N more like it)", and at most kShownRecordLines such lines are
// printed (a process can write 100,000 warnings; the report keeps them all).
constexpr std::size_t kShownRecordLines = 10;
void record_lines_text(std::ostringstream& out, const ProfileList<ProfileText>& lines, const std::string& prefix) {
  std::vector<std::pair<std::string, std::size_t>> kinds;  // first text of the kind, how many
  std::map<std::string, std::size_t> index;
  for (const std::string& line : lines) {
    const std::string text = one_line(line.substr(0, 1000));
    std::string kind;
    for (std::size_t i = 0; i < text.size(); ++i) {
      if (!std::isdigit(static_cast<unsigned char>(text[i]))) kind += text[i];
      else if (kind.empty() || kind.back() != '#') kind += '#';
    }
    const auto [it, added] = index.emplace(kind, kinds.size());
    if (added) kinds.emplace_back(text, 0);
    ++kinds[it->second].second;
  }
  std::size_t left = 0;
  for (std::size_t i = 0; i < kinds.size(); ++i) {
    if (i >= kShownRecordLines) {
      left += kinds[i].second;
      continue;
    }
    out << prefix << kinds[i].first;
    if (kinds[i].second > 1) out << " (and " << group_digits(kinds[i].second - 1) << " more like it)";
    out << "\n";
  }
  if (left > 0) out << prefix << "... and " << group_digits(left) << " more of other kinds (the report lists them all)\n";
}

// CUPTI was taken from graphprof before the process ended (its records stop early, or have a hole).
bool cupti_taken(const ProfileProcess& p) {
  const ProfileText& at_end = p.cupti_at_end;
  return at_end == "finalized_elsewhere" || at_end == "activity_taken" || at_end == "teardown_timeout";
}

// What the process's records say of themselves: its errors, warnings and CUPTI's notices, CUPTI
// refused to the application or taken from graphprof, and how the process ended.
void record_notes_text(std::ostringstream& out, const ProfileProcess& p) {
  record_lines_text(out, p.errors, "  NOT PROFILED: ");
  record_lines_text(out, p.warnings, "  graphprof warning: ");  // older reports have none
  if (const auto& refused = p.cupti_refused)
    out << "  graphprof warning: the application's own CUPTI client could not attach: " << refused->subscribe_calls
        << " cuptiSubscribe call(s) from " << one_line(refused->caller) << " returned " << one_line(refused->result)
        << "\n    (CUPTI allows one subscriber per process and graphprof holds it: the application's profiler, such as\n"
           "    torch.profiler, records no GPU activity in this run; the application ran on. Choices: profile without the\n"
           "    application's profiler, or run its profiler without graphprof)\n";
  record_lines_text(out, p.cupti_notices, "  CUPTI reported: ");
  const ProfileText& at_end = p.cupti_at_end;
  const bool taken = cupti_taken(p);
  // With activity_taken the records have a hole instead (what CUPTI held at exit was taken back).
  if (taken && at_end != "activity_taken")
    out << "  records stop " << ns(p.records_end_ns) << " after CUDA initialisation, "
        << format_ns(p.cuda_wall_ns.value_or(0) - p.records_end_ns.value_or(0))
        << " before the process's last flush: the figures below may miss what came later\n";
  const bool interposed = parse_observer(p.observed_by) == Observer::kInterpose;
  if (!p.end_reason.present() && interposed)
    out << "  note: the process ended without flushing its records (killed): the interposer writes them every 100 ms, so\n"
           "  at most its last 100 ms are missing\n";
  else if (!p.end_reason.present())
    out << "  note: the process ended without flushing its records (killed or crashed): the records CUPTI had not handed over yet\n"
           "  (its last, partly filled buffer) are missing\n";
  else if (const std::string& why = p.end_reason; why.rfind("SIG", 0) == 0 || why.rfind("_exit(", 0) == 0)
    out << "  the process ended by " << why << ": graphprof wrote its pending records first, nothing is missing\n";
}

// How the process was observed: said where it is not the default (reports older than the field: CUPTI).
void observed_by_text(std::ostringstream& out, const ProfileProcess& p) {
  const bool interposed = parse_observer(p.observed_by) == Observer::kInterpose;
  if (interposed) {
    // Graph launches timed by CUDA events (a sample, the light default's GPU time): said so.
    bool event_times = false;
    for (const auto& g : p.graphs)
      if (g.gpu_span_from == "events") event_times = true;
    const std::string& at = p.observed_at;
    if (at.empty()) {  // records from before the interposer answered the driver's look-ups
      out << (event_times ? "  observed by: interposition (no CUPTI; graphs' GPU time from CUDA events around a sample of their launches,\n"
                            "    no per-node or eager GPU times: --trace node for them). Not seen: calls of libraries\n"
                          : "  observed by: interposition (no CUPTI, no GPU times: --trace node for them). Not seen: calls of libraries\n")
          << "    with a runtime of their own (cuBLAS, cuDNN) or that look the driver up themselves (Triton), so eager\n"
             "    launches are a lower bound\n";
    } else {
      out << (at == "driver" ? "  observed by: interposition at the CUDA driver API (no shared runtime in this process; no CUPTI"
                             : "  observed by: interposition at the CUDA runtime and driver API (no CUPTI")
          << (event_times ? ";\n    graphs' GPU time from CUDA events around a sample of their launches, no per-node or eager GPU\n"
                            "    times: --trace node for them)\n"
                          : ", no GPU times: --trace node for them)\n");
    }
    if (const auto& ic = p.interposition_cost) {
      // In the steps where there are steps (the start-up's naming of new call sites left out).
      if (const double per = ic->per_step_ns; std::isfinite(per)) {
        out << "    its cost on the application's threads in the steps: " << format_ns(ic->step_per_call_ns) << " a call, "
            << format_ns(per) << " a step";
        if (const double share = ic->step_share; std::isfinite(share)) out << strf(" (%.1f %% of a step)", 100.0 * share);
        out << " (" << ic->step_timed_calls.count() << " of " << ic->step_calls.count() << " calls timed at random); whole run "
            << format_ns(ic->own_ns) << "\n";
      } else {
        out << "    its cost on the application's threads: " << format_ns(ic->own_ns) << " in all, " << format_ns(ic->per_call_ns)
            << " a call (" << ic->timed_calls.count() << " of " << ic->calls.count() << " calls timed at random)\n";
      }
    }
  }
  else if (p.observe_note.present())
    out << "  observed by: CUPTI (" << p.observe_note.str() << ")\n";
}

// The graphs: a row each (at most 10, 40 with --verbose), those changed in place, how their node
// figures were measured, and (--verbose) the slowest nodes.
void graphs_text(std::ostringstream& out, const Report& report, const ProfileProcess& p, bool verbose,
                 const std::string& report_path) {
  const auto& graphs = p.graphs;
  if (graphs.empty()) return;
  out << "\n  graphs (" << graphs.size() << " instantiated)\n";
  // Where each graph was made (reports before call sites have none): left-aligned in the last column.
  std::vector<std::string> made_at;
  std::size_t made_at_width = 0;
  const bool sites = p.call_sites_recorded.value_or(false);
  for (const auto& g : graphs) {
    made_at.push_back(graph_made_at(g));
    made_at_width = std::max(made_at_width, display_width(made_at.back()));
  }
  std::vector<std::string> header{"graph", "exec", "made by", "nodes", "edges", "instantiate", "upload", "launches", "call median",
                                  "blocked", "GPU/launch", "kernel time"};
  if (sites) header.push_back(pad_right("made at", made_at_width));
  TextTable rows(std::move(header));
  const std::size_t cap = verbose ? 40 : 10;
  std::size_t shown = 0;
  for (const auto& g : graphs) {
    if (++shown > cap) break;
    const ProfileLaunchCalls calls = g.launch_calls.value_or(ProfileLaunchCalls{});
    std::vector<std::string> row{"graph_" + std::to_string(static_cast<unsigned>(g.graph.count())),
                                 std::to_string(static_cast<unsigned>(g.exec.count())), g.made_by,
                                 std::to_string(static_cast<std::size_t>(g.nodes.count())),
                                 std::to_string(static_cast<std::size_t>(g.edges.count())), ns(g.instantiate_ns), ns(g.upload_ns),
                                 std::to_string(static_cast<std::size_t>(g.launches.count())), calls.all ? median_of(calls.all) : "-",
                                 std::to_string(static_cast<std::size_t>(calls.blocked.count())),
                                 g.gpu_span ? median_of(g.gpu_span) : "-", parse_trace_level(p.trace_level) == TraceLevel::kNode ? ns(g.kernel_time_ns) : "-"};
    if (sites) row.push_back(pad_right(made_at[shown - 1], made_at_width));
    rows.add(std::move(row));
  }
  out << rows.str();
  if (graphs.size() > cap)
    out << "  ... " << graphs.size() - cap << " more in the report" << (verbose ? "" : " (--verbose lists 40)") << "\n";
  // Graphs changed in place before their launches (XLA's command buffers; interposed only).
  for (const auto& g : graphs) {
    const std::uint64_t set = g.set_params_calls.count(), upd = g.exec_update_calls.count();
    const std::size_t launches = g.launches.count();
    if (set + upd == 0) continue;
    out << "  graph_" << static_cast<unsigned>(g.graph.count()) << ": ";
    if (launches > 0)
      out << strf("%.1f", static_cast<double>(set + upd) / static_cast<double>(launches)) << " changes per launch (";
    out << set << " SetParams, " << upd << " exec updates" << (launches > 0 ? ")" : "")
        << ": the program updates the exec in place before launching it (XLA's command buffers do)\n";
  }
  sampling_text(out, p);  // how the node figures were measured: shown with or without --verbose
  if (verbose) slowest_nodes(out, report, p, report_path);
}

// What the verbose text lists, in one line: work left outside graphs.
void outside_graphs_text(std::ostringstream& out, const ProfileProcess& p) {
  const ProfileCoverage& c = needed(p.coverage);
  std::vector<std::string> outside;
  auto count = [&](const ProfileList<ProfileCallTime>& list, const char* one, const char* many) {
    if (list.empty()) return;
    std::size_t n = 0;
    for (const auto& x : list) n += x.count.count();
    outside.push_back(std::to_string(n) + " " + (n == 1 ? one : many));
  };
  const std::size_t eager = c.eager_kernels.count();
  if (eager > 0) outside.push_back(std::to_string(eager) + (eager == 1 ? " eager kernel" : " eager kernels"));
  count(p.copies, "copy or memset", "copies and memsets");
  count(p.syncs, "synchronising call", "synchronising calls");
  if (!outside.empty()) out << "\n  outside graphs: " << join(outside, ", ") << " (--verbose lists them by name)\n";
}

// A table of CUDA calls or kernels by name (copies, syncs, eager kernels).
void named_text(std::ostringstream& out, const char* title, const ProfileList<ProfileCallTime>& list, bool bytes, bool host) {
  if (list.empty()) return;
  out << "\n  " << title << "\n";
  std::vector<std::string> header{"name", "count", host ? "host total" : "GPU total", "median"};
  if (bytes) header.push_back("bytes");
  TextTable rows(std::move(header));
  std::vector<std::string> names;
  for (const auto& n : list) names.push_back(n.name);
  names = name_column(names);
  std::size_t row = 0;
  for (const auto& n : list) {
    std::vector<std::string> r{names[row++], std::to_string(static_cast<std::size_t>(n.count.count())), ns(n.total_ns), ns(n.median_ns)};
    if (bytes) r.push_back(std::to_string(n.bytes.count()));
    rows.add(std::move(r));
  }
  out << rows.str();
}

// The captures that failed, with where each began and its fix.
void capture_trouble_text(std::ostringstream& out, const ProfileProcess& p) {
  const auto& trouble = p.capture_trouble;
  if (trouble.empty()) return;
  out << "\n  capture trouble\n";
  bool sited = false;
  for (const auto& t : trouble) sited = sited || t.site.has_value();
  std::vector<std::string> header{"#", "stream", "offending call", "error", "cudaStreamEndCapture"};
  if (sited) header.push_back("capture began at");
  TextTable rows(std::move(header), sited ? TextTable::Layout::kText : TextTable::Layout::kNumbers);
  std::string fixes;
  std::size_t number = 0;
  for (const auto& t : trouble) {
    const std::string n = std::to_string(++number);
    std::vector<std::string> row{n, std::to_string(static_cast<unsigned>(t.stream.count())), t.api, t.error,
                                 t.end_error.empty() ? "-" : t.end_error.str()};
    if (sited) row.push_back(site_where(t.site, 60));
    rows.add(std::move(row));
    if (!t.hint.empty()) fixes += "  fix " + n + ": " + t.hint + "\n";
  }
  out << rows.str() << fixes;
}

void process_text(std::ostringstream& out, const Report& report, const ProfileProcess& p, bool several, bool verbose,
                  const std::string& report_path) {
  if (several) {
    const std::string rank = rank_label(p);
    out << "\nprocess " << p.process << " (pid " << p.pid << (rank.empty() ? "" : ", " + rank) << "): " << one_line(p.command_line)
        << "\n";
  }
  record_notes_text(out, p);
  const bool taken = cupti_taken(p);
  const ProfileCoverage& c = needed(p.coverage);
  const bool no_work = c.graph_kernels.count() + c.eager_kernels.count() == 0 && c.graph_launches.count() + c.eager_launches.count() == 0;
  if (no_work && taken) {
    out << "  no kernel or launch record reached graphprof before CUPTI was taken from it (CUPTI hands over only full\n"
           "  buffers until a flush): only the graphs instantiated until then were recorded\n";
  } else if (no_work && p.graphs.empty() && p.copies.empty()) {
    out << "  no kernel ran in this process (it initialised CUDA only)\n";
    lost_records_text(out, p);  // a garbled or truncated record file reads as one without work
    return;
  }
  observed_by_text(out, p);
  if (!(no_work && taken)) coverage_text(out, p, verbose);
  graphs_text(out, report, p, verbose, report_path);
  step_kinds_text(out, p, verbose);
  if (!verbose) outside_graphs_text(out, p);
  const bool by_site = !p.eager_sites.empty();
  if (verbose) {
    if (by_site) {
      eager_sites_text(out, p);
    } else {
      named_text(out, "top eager kernels (outside graphs)", p.top_eager_kernels, false, false);
    }
    ledgers_text(out, p);
  }
  call_site_notes_text(out, p, verbose);
  instability_text(out, p);
  if (verbose) {
    named_text(out, "copies and memsets outside graphs", p.copies, true, false);
    if (!by_site) named_text(out, "synchronising calls", p.syncs, false, true);
  }
  capture_trouble_text(out, p);
  lost_records_text(out, p);
}

}  // namespace

std::string format_profile_summary(const Report& report, bool verbose, const std::string& report_path) {
  const ProfileSection* section = profile_fields::typed_section(report);
  if (!section) return {};
  const ProfileSection& p = *section;
  std::ostringstream out;
  // The headline reads tolerantly: a field missing from a hand-edited report shows as "-".
  const auto or_dash = [](const ProfileText& v) { return v.empty() ? std::string("-") : one_line(v); };
  const auto& procs = p.processes;
  out << "\nprofile: " << or_dash(p.program) << " (" << procs.size()
      << (procs.size() == 1 ? " CUDA process" : " CUDA processes") << ", trace " << or_dash(p.trace_level)
      << "): the application " << or_dash(p.exit) << ", wall " << ns(p.wall_ns) << "\n";
  if (!procs.empty()) out << "\n" << fix_first_text(p);  // the answer first; the details follow
  overhead_text(out, p);
  overhead_windows_text(out, p);
  for (const auto& n : p.notes) out << "  note: " << one_line(n) << "\n";
  if (procs.empty()) out << "  no process of the application initialised CUDA (nothing to profile)\n";
  repeat_text(out, p);
  if (p.cross_rank) out << format_cross_rank_summary(*p.cross_rank);
  for (const auto& proc : procs) process_text(out, report, proc, procs.size() > 1, verbose, report_path);
  return terminal_safe(out.str());
}

}  // namespace gp
