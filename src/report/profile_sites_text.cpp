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

namespace gp {

using nlohmann::json;

namespace {

double num(const json& j, const char* key, double fallback = NAN) {
  auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<double>() : fallback;
}

const json* member(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && !it->is_null() ? &*it : nullptr;
}

std::string bytes_or_dash(const json& j, const char* key) {
  const double v = num(j, key);
  if (!std::isfinite(v)) return "-";
  if (v < 0) return "-" + format_bytes(static_cast<std::uint64_t>(-v));
  return format_bytes(static_cast<std::uint64_t>(v));
}

std::string ns_or_dash(const json& j, const char* key) {
  const double v = num(j, key);
  return std::isfinite(v) ? format_ns(v) : "-";
}

// "96 MiB (3)", "96 MiB (3, since start)" for the first capture of its thread, ", 46 MiB freed" when
// the thread freed device memory in that window too; "-" when not
// measured (an explicit graph, or a report older than the figure).
std::string before_capture_text(const json& m) {
  const json* since = member(m, "before_capture_since");
  if (since == nullptr || !since->is_string()) return "-";
  const std::uint64_t freed = m.value("before_capture_freed_bytes", std::uint64_t{0});
  return format_bytes(m.value("before_capture_alloc_bytes", std::uint64_t{0})) +
         strf(" (%zu%s)", m.value("before_capture_allocs", std::size_t{0}), *since == "start" ? ", since start" : "") +
         (freed > 0 ? ", " + format_bytes(freed) + " freed" : "");
}

constexpr std::size_t kKernelsColumns = 72;

// "vectorized_elementwise_kernel x15, nvjet_sm90_hsh_8x6…bz_bias_TNN x8": the first three kernels,
// each name cut in the middle and apart from the others, so the tile shape and suffixes stay.
std::string kernels_text(const json& kernels) {
  std::vector<std::string> names;
  for (const auto& k : kernels) {
    if (names.size() == 3) break;
    const std::string n = k.value("name", std::string());
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
    s += names[shown++] + " x" + std::to_string(k.value("count", std::size_t{0}));
  }
  return s.empty() ? "-" : s;
}

}  // namespace

std::string site_where(const json& site, std::size_t max_columns) {
  if (!site.is_object()) return "-";
  return clip_columns(one_line(site.value("where", std::string("-"))), max_columns);
}

std::string graph_made_at(const json& graph) {
  if (const json* c = member(graph, "capture_site")) return site_where(*c, 48);
  if (const json* i = member(graph, "instantiate_site")) return site_where(*i, 48);
  return "-";
}

void eager_sites_text(std::ostringstream& out, const json& p) {
  const json* sites = member(p, "eager_sites");
  if (sites == nullptr || sites->empty()) return;
  const json* step = member(p, "step");
  // Without GPU records (--trace none, the default) the sites are ranked by host time.
  const bool gpu = p.value("trace_level", std::string("node")) != "none";
  out << "\n  eager work left, by call site (" << (gpu ? "GPU time" : "host time; no GPU records at --trace none") << "; ";
  if (step != nullptr && step->value("from", std::string()) == "nvtx range")
    out << "a step = one NVTX range '" << one_line(step->value("range", std::string())) << "', "
        << step->value("steps", std::size_t{0}) << " steps)\n";
  else if (step != nullptr && step->value("other_graphs", std::size_t{0}) > 0)
    out << "a step = one launch of graph_" << step->value("graph", 0u) << " or of the " << step->value("other_graphs", std::size_t{0})
        << " other graphs captured at its site, " << step->value("steps", std::size_t{0}) << " steps)\n";
  else if (step != nullptr)
    out << "a step = one launch of graph_" << step->value("graph", 0u) << ", " << step->value("steps", std::size_t{0}) << " steps)\n";
  else
    out << "no graph launched: no steps)\n";
  std::vector<std::string> head = {"#", "call site", "what", "calls", "per step", "GPU total", "host total", "kernels"};
  if (!gpu) head = {"#", "call site", "what", "calls", "per step", "host total"};
  TextTable rows(head);
  std::string hints;
  std::size_t n = 0;
  bool estimated = false;
  for (const auto& s : *sites) {
    if (++n > 15) break;
    const double per = num(s, "per_step");
    const std::size_t calls = s.value("calls", std::size_t{0});
    // A site whose calls were sampled (--site-sample): its counts and totals are estimates.
    const bool sampled = s.contains("taken") && s.value("taken", calls) != calls;
    estimated = estimated || sampled;
    const std::string approx = sampled ? "~" : "";
    std::vector<std::string> row = {std::to_string(n), site_where(s.value("site", json()), 48), s.value("kind", std::string()),
                                    approx + std::to_string(calls), std::isfinite(per) ? approx + strf("%.1f", per) : "-"};
    if (gpu) row.push_back(ns_or_dash(s, "gpu_ns"));
    row.push_back(ns_or_dash(s, "host_ns"));
    if (gpu) row.push_back(clip_columns(kernels_text(s.value("kernels", json::array())), kKernelsColumns));
    rows.add(row);
    const std::string hint = s.value("hint", std::string());
    if (!hint.empty()) hints += "  " + std::to_string(n) + ": " + one_line(hint) + "\n";
  }
  out << rows.str() << hints;
  if (sites->size() > 15) out << "  ... " << sites->size() - 15 << " more call sites in the report\n";
  if (estimated) {
    const json* cost = member(p, "call_site_cost");
    const std::uint32_t first = cost != nullptr ? cost->value("sample_first", 0u) : 0u;
    const std::uint32_t every = cost != nullptr ? cost->value("sample_every", 1u) : 1u;
    const std::uint32_t most = cost != nullptr ? cost->value("sample_every_max", every) : every;
    out << "  ~ estimated: after the first " << first << " calls of each thread, 1 call in " << every;
    if (most > every)
      out << " (up to 1 in " << most << " where a stack cost a thread more than " << strf("%g", 100.0 * SiteSampling::kBudget)
          << " % of its time)";
    out << " at random had its site taken and stands for that many (--site-sample all: every call)\n";
  }
}

void step_text(std::ostringstream& out, const json& p) {
  const json* asked = member(p, "step_range");
  if (asked == nullptr) return;  // the graph rule, said with the eager work
  const json* step = member(p, "step");
  const std::string name = one_line(asked->value("name", std::string()));
  if (step == nullptr || step->value("from", std::string()) != "nvtx range") {
    out << "  step = " << (step != nullptr ? "one launch of graph_" + std::to_string(step->value("graph", 0u)) + " (" +
                                                 plural(step->value("steps", std::size_t{0}), "step", "steps") + ")"
                                           : std::string("none"))
        << ": the NVTX range '" << name << "' never occurred in this process\n";
    return;
  }
  double launches = 0, waits = 0;
  for (const auto& s : p.value("eager_sites", json::array())) {
    const double per = num(s, "per_step", 0);
    const std::string kind = s.value("kind", std::string());
    if (kind == "kernel launch") launches += per;
    else if (kind == "sync") waits += per;
  }
  const std::size_t steps = step->value("steps", std::size_t{0});
  out << "  step = NVTX range '" << name << "' (" << plural(steps, "range", "ranges") << "): "
      << strf("%.2f", launches) << " eager kernel launches and " << strf("%.2f", waits) << " host waits per step\n";
}

// Where each graph's allocations in its capture and before it were made: up to three sites per
// graph and window, most bytes first (the report has them all, with their stacks).
void allocation_sites_text(std::ostringstream& out, const json& graphs) {
  constexpr std::size_t kShown = 3;
  TextTable by({"graph", "when", "allocated", "at"});
  std::size_t rows = 0, shown = 0;
  for (const auto& g : graphs) {
    const json* m = member(g, "memory");
    if (m == nullptr || ++shown > 40) continue;
    for (const auto& [key, when] : {std::pair<const char*, const char*>{"capture_alloc_sites", "in capture"},
                                    std::pair<const char*, const char*>{"before_capture_alloc_sites", "before capture"}}) {
      const json* sites = member(*m, key);
      if (sites == nullptr || !sites->is_array()) continue;
      std::uint64_t rest = 0;
      std::size_t rest_allocations = 0;
      for (std::size_t i = 0; i < sites->size(); ++i) {
        const json& a = (*sites)[i];
        if (i >= kShown) {
          rest += a.value("bytes", std::uint64_t{0});
          rest_allocations += a.value("allocations", std::size_t{0});
          continue;
        }
        const json* site = member(a, "site");
        const json* python = member(a, "python");
        std::string at = site != nullptr ? site->value("where", std::string("?")) : "?";
        if (python != nullptr && python->is_object()) at = python->value("where", std::string("?")) + " (" + at + ")";
        by.add({"graph_" + std::to_string(g.value("graph", 0u)), when,
                format_bytes(a.value("bytes", std::uint64_t{0})) + strf(" (%zu)", a.value("allocations", std::size_t{0})), at});
        ++rows;
      }
      if (sites->size() > kShown)
        by.add({"graph_" + std::to_string(g.value("graph", 0u)), when, format_bytes(rest) + strf(" (%zu)", rest_allocations),
                plural(sites->size() - kShown, "more site", "more sites") + " (in the report)"});
    }
  }
  if (rows == 0) return;
  out << "  allocated at (the call sites of those allocations, most bytes first)\n" << by.str();
}

void ledgers_text(std::ostringstream& out, const json& p) {
  const json& graphs = p.value("graphs", json::array());
  if (!p.value("ledgers_recorded", false) || graphs.empty()) return;
  out << "\n  memory per graph (allocated while it was captured = what it added; before capture = on its thread since the\n"
         "  previous capture, not added; free-memory change around the call)\n";
  TextTable mem({"graph", "allocated in capture", "before capture", "memory nodes", "free change: capture", "instantiate", "upload",
                 "graph pool after", "note"});
  std::size_t shown = 0;
  for (const auto& g : graphs) {
    const json* m = member(g, "memory");
    if (m == nullptr || ++shown > 40) continue;
    std::string note;
    if (m->value("reuses_memory", false)) note = "reuses memory of earlier captures (shared pool)";
    mem.add({"graph_" + std::to_string(g.value("graph", 0u)),
             format_bytes(m->value("capture_alloc_bytes", std::uint64_t{0}) + m->value("capture_vmm_bytes", std::uint64_t{0})) +
                 strf(" (%zu)", m->value("capture_allocs", std::size_t{0})),
             before_capture_text(*m),
             m->value("memory_nodes", std::size_t{0}) > 0
                 ? format_bytes(m->value("memory_node_bytes", std::uint64_t{0})) + strf(" (%zu)", m->value("memory_nodes", std::size_t{0}))
                 : "-",
             bytes_or_dash(*m, "capture_free_delta_bytes"), bytes_or_dash(*m, "instantiate_free_delta_bytes"),
             bytes_or_dash(*m, "upload_free_delta_bytes"), bytes_or_dash(*m, "graph_pool_reserved_after_bytes"), note});
  }
  out << mem.str();
  if (const json* t = member(p, "memory")) {
    out << "  in all: " << format_bytes(t->value("capture_alloc_bytes", std::uint64_t{0}) + t->value("capture_vmm_bytes", std::uint64_t{0}))
        << " allocated during captures, " << format_bytes(t->value("memory_node_bytes", std::uint64_t{0})) << " in graph memory nodes";
    if (num(*t, "graph_pool_reserved_high_bytes") >= 0)
      out << ", graph-memory pool high-water mark " << bytes_or_dash(*t, "graph_pool_reserved_high_bytes");
    out << "\n";
  }
  allocation_sites_text(out, graphs);

  out << "\n  start-up per graph\n";
  TextTable st({"graph", "capture", "instantiate", "upload", "first launch", "instantiated"});
  shown = 0;
  for (const auto& g : graphs) {
    const json* s = member(g, "startup");
    if (s == nullptr || ++shown > 40) continue;
    const double late = num(*s, "created_after_first_step_ns");
    st.add({"graph_" + std::to_string(g.value("graph", 0u)), ns_or_dash(*s, "capture_ns"), ns_or_dash(g, "instantiate_ns"),
            ns_or_dash(g, "upload_ns"), ns_or_dash(*s, "first_launch_ns"),
            std::isfinite(late) ? format_ns(late) + " after the first step" : "before the first step"});
  }
  out << st.str();
  if (const json* t = member(p, "startup")) {
    out << "  making graphs (captures, instantiations, uploads) took " << ns_or_dash(*t, "graph_making_ns");
    const double share = num(*t, "graph_making_share");
    if (std::isfinite(share)) out << strf(" (%.1f %% of the process's ", 100.0 * share) << ns_or_dash(*t, "wall_ns") << ")";
    out << "\n";
    if (std::isfinite(num(*t, "start_to_first_replay_ns")))
      out << "  process start to the first graph launch: " << ns_or_dash(*t, "start_to_first_replay_ns") << " (CUDA start to it: "
          << ns_or_dash(*t, "cuda_to_first_replay_ns") << ")\n";
    else if (std::isfinite(num(*t, "cuda_to_first_replay_ns")))
      out << "  CUDA start to the first graph launch: " << ns_or_dash(*t, "cuda_to_first_replay_ns") << "\n";
  }
}

void call_site_notes_text(std::ostringstream& out, const json& p, bool verbose) {
  // Sites without file:line: once per module, why (no debug information, a rebuilt file, ...).
  if (const json* notes = member(p, "source_line_notes"); notes != nullptr && notes->is_array() && !notes->empty()) {
    out << "\n";
    for (const auto& n : *notes)
      if (n.is_string()) out << "  " << one_line(n.get<std::string>()) << "; sites named by function (module + offset without symbols)\n";
  }
  if (const json* c = member(p, "call_site_cost"); c != nullptr && verbose) {
    const double calls = num(*c, "calls", 0), fresh = num(*c, "new_sites", 0);
    if (calls + fresh > 0) {
      out << "\n  call sites: " << strf("%.0f", calls) << " calls from known sites, "
          << (calls > 0 ? format_ns(num(*c, "ns", 0) / calls) : std::string("-")) << " each in the CUDA callback; "
          << strf("%.0f", fresh) << " new sites, " << ns_or_dash(*c, "new_sites_ns");
      if (num(*c, "named_off_thread", 0) > 0)
        out << " in all to take them, " << ns_or_dash(*c, "naming_ns") << " to name them on graphprof's own thread"
            << " (each module's symbols read once); ";
      else
        out << " in all to take and name them (each module's symbols read once); ";
      out << strf("%.0f", num(*c, "full_unwinds", 0)) << " native stacks unwound fully\n";
    }
  }
  const json* py = member(p, "python_frames");
  if (py == nullptr) return;
  const std::uint64_t held = py->value("held", std::uint64_t{0}), taken = py->value("taken", std::uint64_t{0});
  if (py->value("stopped", false))
    out << "  Python frames: taking the GIL stopped after " << py->value("slow", std::uint64_t{0})
        << " waits over 1 ms (another thread keeps it busy); later call sites have native frames only\n";
  if (!verbose) return;
  const std::string mode = py->value("mode", std::string());
  out << "  Python frames (--call-sites " << mode << "): " << held << " calls read where the thread held the GIL, " << taken
      << " where it was taken for the read (" << ns_or_dash(*py, "wait_ns") << " waiting for it in all)";
  if (mode == "on" && !py->value("can_take", false)) out << "; this interpreter does not say when it is finalising: never taken";
  out << "\n";
}

void instability_text(std::ostringstream& out, const json& p) {
  std::string text;
  if (const json* rec = member(p, "recaptures"))
    for (const auto& r : *rec) {
      std::string graphs, nodes;
      for (const auto& g : r.value("graphs", json::array())) graphs += (graphs.empty() ? "graph_" : ", graph_") + std::to_string(g.get<unsigned>());
      for (const auto& n : r.value("nodes", json::array())) nodes += (nodes.empty() ? "" : "/") + std::to_string(n.get<std::size_t>());
      const std::size_t count = r.value("graphs", json::array()).size(), traced = r.value("traced", count);
      text += "  same site, " + std::to_string(count) + " graphs (" + std::to_string(r.value("shapes", std::size_t{0})) +
              " kernel shapes" + (traced < count ? " among the " + std::to_string(traced) + " whose kernels were traced" : "") +
              ", nodes " + nodes + "): " +
              site_where(r.value("site", json()), 60) + " made " + graphs + "\n";
    }
  if (const json* late = member(p, "late_graphs"))
    if (!late->empty()) {
      std::string graphs;
      for (const auto& g : *late) graphs += (graphs.empty() ? "graph_" : ", graph_") + std::to_string(g.get<unsigned>());
      text += "  instantiated after the first step began: " + graphs + "\n";
    }
  for (const char* key : {"exec_updates", "set_params"})
    if (const json* c = member(p, key))
      if (c->value("calls", std::size_t{0}) > 0)
        text += std::string("  ") + (std::string(key) == "exec_updates" ? "cudaGraphExecUpdate" : "exec SetParams calls") + ": " +
                std::to_string(c->value("calls", std::size_t{0})) + " calls, " + std::to_string(c->value("failures", std::size_t{0})) +
                " failed\n";
  if (!text.empty()) out << "\n  re-captures and updates\n" << text;
}

}  // namespace gp
