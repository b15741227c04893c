// Console text of call sites, eager work by site, the memory and start-up ledgers and re-captures
// (the `profile` summary, profile_text.cpp), read from sections.profile alone. Reports written
// before these fields existed have none of them: every function prints nothing then.
#include "profile_sites_text.hpp"

#include <algorithm>
#include <cmath>

#include "graphprof/report/reporter.hpp"
#include "graphprof/core/name_match.hpp"
#include "graphprof/core/site_sampling.hpp"
#include "graphprof/core/text_format.hpp"
#include "graphprof/trace/trace_records.hpp"

namespace gp {

using nlohmann::json;

namespace {

std::string bytes_or_dash(double v) {
  if (!std::isfinite(v)) return "-";
  if (v < 0) return "-" + format_bytes(static_cast<std::uint64_t>(-v));
  return format_bytes(static_cast<std::uint64_t>(v));
}

std::string ns_or_dash(double v) { return std::isfinite(v) ? format_ns(v) : "-"; }

std::string graph_name(const ProfileNumber& id) { return "graph_" + std::to_string(static_cast<unsigned>(id.count())); }

// "96 MiB (3)", "96 MiB (3, since start)" for the first capture of its thread, ", 46 MiB freed" when
// the thread freed device memory in that window too; "-" when not
// measured (an explicit graph, or a report older than the figure).
std::string before_capture_text(const ProfileGraphMemory& m) {
  if (!m.before_capture_since.present()) return "-";
  const std::uint64_t freed = m.before_capture_freed_bytes.count();
  return format_bytes(m.before_capture_alloc_bytes.count()) +
         strf(" (%zu%s)", static_cast<std::size_t>(m.before_capture_allocs.count()), m.before_capture_since == "start" ? ", since start" : "") +
         (freed > 0 ? ", " + format_bytes(freed) + " freed" : "");
}

constexpr std::size_t kKernelsColumns = 72;

// "vectorized_elementwise_kernel x15, nvjet_sm90_hsh_8x6…bz_bias_TNN x8": the first three kernels,
// each name cut in the middle and apart from the others, so the tile shape and suffixes stay.
std::string kernels_text(const ProfileList<ProfileNameCount>& kernels) {
  std::vector<std::string> names;
  for (const auto& k : kernels) {
    if (names.size() == 3) break;
    const std::string& n = k.name;
    names.push_back(one_line(n.size() <= 512 ? n : n.substr(0, 256) + n.substr(n.size() - 256)));
  }
  // The cell's kKernelsColumns shared by the names, each with its " xN, ".
  names = clip_names_apart(names, names.empty() ? 1 : std::max<std::size_t>(12, kKernelsColumns / names.size() - 6));
  std::string s;
  std::size_t shown = 0;
  for (const auto& k : kernels) {
    if (shown == 3) {
      s += strf(", +%zu more", kernels.size() - 3);
      break;
    }
    if (shown > 0) s += ", ";
    s += names[shown++] + " x" + std::to_string(static_cast<std::size_t>(k.count.count()));
  }
  return s.empty() ? "-" : s;
}

// Whether `key` of a struct is there and not null, as a member or kept in `extra`.
template <class T>
bool given(const std::optional<T>& member, const json& extra, const char* key) {
  const auto it = extra.find(key);
  return member.has_value() || (it != extra.end() && !it->is_null());
}

}  // namespace

std::string site_where(const std::optional<ProfileSite>& site, std::size_t max_columns) {
  if (!site) return "-";
  return clip_columns(one_line(site->where.present() ? site->where.str() : std::string("-")), max_columns);
}

std::string graph_made_at(const ProfileGraph& graph) {
  if (given(graph.capture_site, graph.extra, "capture_site")) return site_where(graph.capture_site, 48);
  if (given(graph.instantiate_site, graph.extra, "instantiate_site")) return site_where(graph.instantiate_site, 48);
  return "-";
}

void eager_sites_text(std::ostringstream& out, const ProfileProcess& p) {
  const auto& sites = p.eager_sites;
  if (sites.empty()) return;
  const auto& step = p.step;
  // Without GPU records (--trace none, the default) the sites are ranked by host time.
  const bool gpu = parse_trace_level(p.trace_level) != TraceLevel::kNone;
  out << "\n  eager work left, by call site (" << (gpu ? "GPU time" : "host time; no GPU records at --trace none") << "; ";
  if (step && step->from == "nvtx range")
    out << "a step = one NVTX range '" << one_line(step->range) << "', " << static_cast<std::size_t>(step->steps.count()) << " steps)\n";
  else if (step && step->other_graphs.count() > 0)
    out << "a step = one launch of graph_" << static_cast<unsigned>(step->graph.count()) << " or of the "
        << static_cast<std::size_t>(step->other_graphs.count()) << " other graphs captured at its site, "
        << static_cast<std::size_t>(step->steps.count()) << " steps)\n";
  else if (step)
    out << "a step = one launch of graph_" << static_cast<unsigned>(step->graph.count()) << ", "
        << static_cast<std::size_t>(step->steps.count()) << " steps)\n";
  else
    out << "no graph launched: no steps)\n";
  std::vector<std::string> head = {"#", "call site", "what", "calls", "per step", "GPU total", "host total", "kernels"};
  if (!gpu) head = {"#", "call site", "what", "calls", "per step", "host total"};
  TextTable rows(head);
  std::string hints;
  std::size_t n = 0;
  bool estimated = false;
  for (const auto& s : sites) {
    if (++n > 15) break;
    const double per = s.per_step;
    const std::size_t calls = s.calls.count();
    // A site whose calls were sampled (--site-sample): its counts and totals are estimates.
    const bool sampled = s.taken.present() && s.taken.count() != calls;
    estimated = estimated || sampled;
    const std::string approx = sampled ? "~" : "";
    std::vector<std::string> row = {std::to_string(n), site_where(s.site, 48), s.kind, approx + std::to_string(calls),
                                    std::isfinite(per) ? approx + strf("%.1f", per) : "-"};
    if (gpu) row.push_back(ns_or_dash(s.gpu_ns));
    row.push_back(ns_or_dash(s.host_ns));
    if (gpu) row.push_back(clip_columns(kernels_text(s.kernels), kKernelsColumns));
    rows.add(row);
    if (!s.hint.empty()) hints += "  " + std::to_string(n) + ": " + one_line(s.hint) + "\n";
  }
  out << rows.str() << hints;
  if (sites.size() > 15) out << "  ... " << sites.size() - 15 << " more call sites in the report\n";
  if (estimated) {
    const auto& cost = p.call_site_cost;
    const std::uint32_t first = cost ? static_cast<std::uint32_t>(cost->sample_first.count()) : 0u;
    const std::uint32_t every = cost && cost->sample_every.present() ? static_cast<std::uint32_t>(cost->sample_every.count()) : 1u;
    const std::uint32_t most = cost && cost->sample_every_max.present() ? static_cast<std::uint32_t>(cost->sample_every_max.count()) : every;
    out << "  ~ estimated: after the first " << first << " calls of each thread, 1 call in " << every;
    if (most > every)
      out << " (up to 1 in " << most << " where a stack cost a thread more than " << strf("%g", 100.0 * SiteSampling::kBudget)
          << " % of its time)";
    out << " at random had its site taken and stands for that many (--site-sample all: every call)\n";
  }
}

void step_text(std::ostringstream& out, const ProfileProcess& p) {
  if (!p.step_range) return;  // the graph rule, said with the eager work
  const auto& step = p.step;
  const std::string name = one_line(p.step_range->name);
  if (!step || step->from != "nvtx range") {
    out << "  step = "
        << (step ? "one launch of graph_" + std::to_string(static_cast<unsigned>(step->graph.count())) + " (" +
                       plural(static_cast<std::size_t>(step->steps.count()), "step", "steps") + ")"
                 : std::string("none"))
        << ": the NVTX range '" << name << "' never occurred in this process\n";
    return;
  }
  double launches = 0, waits = 0;
  for (const auto& s : p.eager_sites) {
    const double per = s.per_step.value_or(0);
    if (s.kind == "kernel launch") launches += per;
    else if (s.kind == "sync") waits += per;
  }
  const std::size_t steps = step->steps.count();
  out << "  step = NVTX range '" << name << "' (" << plural(steps, "range", "ranges") << "): "
      << strf("%.2f", launches) << " eager kernel launches and " << strf("%.2f", waits) << " host waits per step\n";
}

// Where each graph's allocations in its capture and before it were made: up to three sites per
// graph and window, most bytes first (the report has them all, with their stacks).
void allocation_sites_text(std::ostringstream& out, const ProfileList<ProfileGraph>& graphs) {
  constexpr std::size_t kShown = 3;
  TextTable by({"graph", "when", "allocated", "at"});
  std::size_t rows = 0, shown = 0;
  for (const auto& g : graphs) {
    if (!g.memory || ++shown > 40) continue;
    for (const auto& [sites, when] : {std::pair<const ProfileList<ProfileAllocSite>*, const char*>{&g.memory->capture_alloc_sites, "in capture"},
                                      std::pair<const ProfileList<ProfileAllocSite>*, const char*>{&g.memory->before_capture_alloc_sites,
                                                                                                  "before capture"}}) {
      std::uint64_t rest = 0;
      std::size_t rest_allocations = 0;
      for (std::size_t i = 0; i < sites->size(); ++i) {
        const ProfileAllocSite& a = (*sites)[i];
        if (i >= kShown) {
          rest += a.bytes.count();
          rest_allocations += a.allocations.count();
          continue;
        }
        std::string at = a.site && a.site->where.present() ? a.site->where.str() : "?";
        if (a.python) at = (a.python->where.present() ? a.python->where.str() : std::string("?")) + " (" + at + ")";
        by.add({graph_name(g.graph), when,
                format_bytes(a.bytes.count()) + strf(" (%zu)", static_cast<std::size_t>(a.allocations.count())), at});
        ++rows;
      }
      if (sites->size() > kShown)
        by.add({graph_name(g.graph), when, format_bytes(rest) + strf(" (%zu)", rest_allocations),
                plural(sites->size() - kShown, "more site", "more sites") + " (in the report)"});
    }
  }
  if (rows == 0) return;
  out << "  allocated at (the call sites of those allocations, most bytes first)\n" << by.str();
}

void ledgers_text(std::ostringstream& out, const ProfileProcess& p) {
  const auto& graphs = p.graphs;
  if (!p.ledgers_recorded.value_or(false) || graphs.empty()) return;
  out << "\n  memory per graph (allocated while it was captured = what it added; before capture = on its thread since the\n"
         "  previous capture, not added; free-memory change around the call)\n";
  TextTable mem({"graph", "allocated in capture", "before capture", "memory nodes", "free change: capture", "instantiate", "upload",
                 "graph pool after", "note"});
  std::size_t shown = 0;
  for (const auto& g : graphs) {
    if (!g.memory || ++shown > 40) continue;
    const ProfileGraphMemory& m = *g.memory;
    std::string note;
    if (m.reuses_memory.value_or(false)) note = "reuses memory of earlier captures (shared pool)";
    mem.add({graph_name(g.graph),
             format_bytes(m.capture_alloc_bytes.count() + m.capture_vmm_bytes.count()) +
                 strf(" (%zu)", static_cast<std::size_t>(m.capture_allocs.count())),
             before_capture_text(m),
             m.memory_nodes.count() > 0
                 ? format_bytes(m.memory_node_bytes.count()) + strf(" (%zu)", static_cast<std::size_t>(m.memory_nodes.count()))
                 : "-",
             bytes_or_dash(m.capture_free_delta_bytes), bytes_or_dash(m.instantiate_free_delta_bytes),
             bytes_or_dash(m.upload_free_delta_bytes), bytes_or_dash(m.graph_pool_reserved_after_bytes), note});
  }
  out << mem.str();
  if (const auto& t = p.memory) {
    out << "  in all: " << format_bytes(t->capture_alloc_bytes.count() + t->capture_vmm_bytes.count())
        << " allocated during captures, " << format_bytes(t->memory_node_bytes.count()) << " in graph memory nodes";
    if (t->graph_pool_reserved_high_bytes >= 0)
      out << ", graph-memory pool high-water mark " << bytes_or_dash(t->graph_pool_reserved_high_bytes);
    out << "\n";
  }
  allocation_sites_text(out, graphs);

  out << "\n  start-up per graph\n";
  TextTable st({"graph", "capture", "instantiate", "upload", "first launch", "instantiated"});
  shown = 0;
  for (const auto& g : graphs) {
    if (!g.startup || ++shown > 40) continue;
    const ProfileGraphStartup& s = *g.startup;
    const double late = s.created_after_first_step_ns;
    st.add({graph_name(g.graph), ns_or_dash(s.capture_ns), ns_or_dash(g.instantiate_ns), ns_or_dash(g.upload_ns),
            ns_or_dash(s.first_launch_ns), std::isfinite(late) ? format_ns(late) + " after the first step" : "before the first step"});
  }
  out << st.str();
  if (const auto& t = p.startup) {
    out << "  making graphs (captures, instantiations, uploads) took " << ns_or_dash(t->graph_making_ns);
    const double share = t->graph_making_share;
    if (std::isfinite(share)) out << strf(" (%.1f %% of the process's ", 100.0 * share) << ns_or_dash(t->wall_ns) << ")";
    out << "\n";
    if (std::isfinite(t->start_to_first_replay_ns))
      out << "  process start to the first graph launch: " << ns_or_dash(t->start_to_first_replay_ns) << " (CUDA start to it: "
          << ns_or_dash(t->cuda_to_first_replay_ns) << ")\n";
    else if (std::isfinite(t->cuda_to_first_replay_ns))
      out << "  CUDA start to the first graph launch: " << ns_or_dash(t->cuda_to_first_replay_ns) << "\n";
  }
}

void call_site_notes_text(std::ostringstream& out, const ProfileProcess& p, bool verbose) {
  // Sites without file:line: once per module, why (no debug information, a rebuilt file, ...).
  if (!p.source_line_notes.empty()) {
    out << "\n";
    for (const auto& n : p.source_line_notes)
      out << "  " << one_line(n) << "; sites named by function (module + offset without symbols)\n";
  }
  if (const auto& c = p.call_site_cost; c && verbose) {
    const double calls = c->calls.value_or(0), fresh = c->new_sites.value_or(0);
    if (calls + fresh > 0) {
      out << "\n  call sites: " << strf("%.0f", calls) << " calls from known sites, "
          << (calls > 0 ? format_ns(c->ns.value_or(0) / calls) : std::string("-")) << " each in the CUDA callback; "
          << strf("%.0f", fresh) << " new sites, " << ns_or_dash(c->new_sites_ns);
      if (c->named_off_thread.value_or(0) > 0)
        out << " in all to take them, " << ns_or_dash(c->naming_ns) << " to name them on graphprof's own thread"
            << " (each module's symbols read once); ";
      else
        out << " in all to take and name them (each module's symbols read once); ";
      out << strf("%.0f", c->full_unwinds.value_or(0)) << " native stacks unwound fully\n";
    }
  }
  const auto& py = p.python_frames;
  if (!py) return;
  const std::uint64_t held = py->held.count(), taken = py->taken.count();
  if (py->stopped.value_or(false))
    out << "  Python frames: taking the GIL stopped after " << py->slow.count()
        << " waits over 1 ms (another thread keeps it busy); later call sites have native frames only\n";
  if (!verbose) return;
  const std::string& mode = py->mode;
  out << "  Python frames (--call-sites " << mode << "): " << held << " calls read where the thread held the GIL, " << taken
      << " where it was taken for the read (" << ns_or_dash(py->wait_ns) << " waiting for it in all)";
  if (mode == "on" && !py->can_take.value_or(false)) out << "; this interpreter does not say when it is finalising: never taken";
  out << "\n";
}

void instability_text(std::ostringstream& out, const ProfileProcess& p) {
  std::string text;
  for (const auto& r : p.recaptures) {
    std::string graphs, nodes;
    for (const auto& g : r.graphs) graphs += (graphs.empty() ? "graph_" : ", graph_") + std::to_string(static_cast<unsigned>(g.count()));
    for (const auto& n : r.nodes) nodes += (nodes.empty() ? "" : "/") + std::to_string(static_cast<std::size_t>(n.count()));
    const std::size_t count = r.graphs.size(), traced = r.traced.present() ? static_cast<std::size_t>(r.traced.count()) : count;
    text += "  same site, " + std::to_string(count) + " graphs (" + std::to_string(static_cast<std::size_t>(r.shapes.count())) +
            " kernel shapes" + (traced < count ? " among the " + std::to_string(traced) + " whose kernels were traced" : "") +
            ", nodes " + nodes + "): " + site_where(r.site, 60) + " made " + graphs + "\n";
  }
  // late_graphs: a list of graph ids (a count in older reports).
  if (p.late_graphs && !p.late_graphs->is_null())
    if (const json& late = *p.late_graphs; !late.empty()) {
      std::string graphs;
      for (const auto& g : late) graphs += (graphs.empty() ? "graph_" : ", graph_") + std::to_string(g.get<unsigned>());
      text += "  instantiated after the first step began: " + graphs + "\n";
    }
  for (const auto& [c, name] : {std::pair<const std::optional<ProfileCallCount>*, const char*>{&p.exec_updates, "cudaGraphExecUpdate"},
                                std::pair<const std::optional<ProfileCallCount>*, const char*>{&p.set_params, "exec SetParams calls"}})
    if (*c && (*c)->calls.count() > 0)
      text += std::string("  ") + name + ": " + std::to_string(static_cast<std::size_t>((*c)->calls.count())) + " calls, " +
              std::to_string(static_cast<std::size_t>((*c)->failures.count())) + " failed\n";
  if (!text.empty()) out << "\n  re-captures and updates\n" << text;
}

}  // namespace gp
