// Steps by kind, the shapes that fell back, the framework's reasons and the capture plan, as text
// (profile_steps_text.hpp).
#include "profile_steps_text.hpp"

#include <cmath>

#include "graphprof/core/text_format.hpp"

namespace gp {

namespace {

std::string opt_ns(const std::optional<double>& v) { return v ? format_ns(*v) : "-"; }

std::string signed_ns(double v) { return (v >= 0 ? "+" : "-") + format_ns(std::fabs(v)); }

std::string graph_name(std::uint32_t g) { return "graph_" + std::to_string(g); }

// A sentence on the console: on one line without terminal escapes (names come from the records and
// the framework's log), wrapped, its first line after `first`, the others after `rest`.
std::string said(const std::string& first, const std::string& text, const std::string& rest) {
  return first + wrap_words(one_line(text), kSentenceWidth - first.size(), rest);
}

}  // namespace

std::string steps_cut_text(const StepKinds& s) {
  if (s.from == "nvtx range") return "a step is one NVTX range of --step-range";
  if (s.from == "sync") return "a step ends at each " + s.delimiter + " of the loop";
  if (s.from == "graph launch") return "a step is one launch of the step's graphs";
  return "no steps";
}

std::string eager_steps_answer(const StepKinds& s) {
  const StepKind* e = s.eager_kind();
  if (e == nullptr || s.steps == 0) return {};
  std::string a = std::to_string(e->steps) + " of " + std::to_string(s.steps) + " steps ran without a graph";
  if (!s.eager_where.empty()) a += " at " + s.eager_where;
  std::vector<std::string> cost;
  if (s.graph_step_host_ns && *s.graph_step_host_ns > 0)
    cost.push_back(strf("%.1fx the host time of a graph step", e->host_ns_median / *s.graph_step_host_ns));
  if (e->eager_gpu_ns && s.graph_step_gpu_ns) cost.push_back(signed_ns(*e->eager_gpu_ns - *s.graph_step_gpu_ns) + " GPU");
  if (!cost.empty()) a += ", " + join(cost, " and ") + " each";
  if (s.loop_ns > 0) a += strf(": %.1f %% of the loop's time", 100.0 * e->host_ns_total / s.loop_ns);
  return a;
}

std::string cluster_text(const EagerCluster& c) {
  std::string t = plural(c.steps, "step", "steps");
  if (c.shapes > 0) t += ", " + plural(c.shapes, "shape", "shapes");
  t += ": ";
  const std::string g = graph_name(c.graph);
  if (c.verdict == "matches_graph") {
    t += "match " + g + " but ran eagerly (a dispatch bug: " + g + " was captured for them)";
  } else if (c.verdict == "larger_than_graphs") {
    t += "match no captured graph: their grids are larger than " + g + "'s" + (c.largest ? " (the largest captured)" : "");
  } else if (c.verdict == "varies") {
    t += "the shapes vary nearly every step (dynamic shapes): no one graph fits them";
  } else if (c.verdict == "unlike_graphs") {
    t += c.graph != 0 ? "match no captured graph (nearest: " + g + ")" : "match no captured graph";
  } else {
    t += "shapes not recorded at this level (--trace node records them)";
  }
  std::vector<std::string> cost;
  if (c.extra_host_ns) cost.push_back(signed_ns(*c.extra_host_ns) + " host");
  if (c.extra_gpu_ns) cost.push_back(signed_ns(*c.extra_gpu_ns) + " GPU");
  if (!cost.empty()) t += "; " + join(cost, ", ") + " per step against a graph step";
  return t;
}

std::string reason_text(const FrameworkReason& r) {
  std::string t = (r.kind == "skip"        ? "CUDA graphs skipped: "
                    : r.kind == "partition" ? "left out of the CUDA graph (a partition run eagerly): "
                                            : "re-recorded: ") +
                  r.reason;
  if (!r.file.empty()) {
    const std::size_t slash = r.file.rfind('/');
    t += " (" + (slash == std::string::npos ? r.file : r.file.substr(slash + 1)) + ":" + std::to_string(r.line) +
         (r.function.empty() ? "" : " in " + r.function) + ")";
  }
  if (r.count > 1) t += strf(", logged %zu times", r.count);
  if (!r.sites.empty()) {
    t += "; explains the eager work at " + join(r.sites, ", ");
    std::vector<std::string> what;
    if (r.calls_per_step) what.push_back(strf("%.2f calls per step", *r.calls_per_step));
    if (r.steps > 0) what.push_back("in " + plural(r.steps, "step", "steps") + " sampled");
    if (r.gpu_ns > 0) what.push_back(format_ns(r.gpu_ns) + " GPU");
    if (r.host_ns > 0) what.push_back(format_ns(r.host_ns) + " host in its calls");
    if (!what.empty()) t += " (" + join(what, ", ") + ")";
  } else if (!r.file.empty()) {
    t += "; no recorded call was made from that code";
  }
  return t;
}

std::vector<std::string> plan_lines(const StepKinds& s) {
  std::vector<std::string> out;
  for (const PlanGraph& g : s.plan_graphs) {
    std::string l = graph_name(g.graph) + ": " + g.verdict + " (" + plural(g.launches, "launch", "launches");
    if (s.steps > 0 && g.launches > 0) l += strf(", %.0f per 1000 steps", g.per_1000_steps);
    l += ")";
    std::vector<std::string> cost;
    if (g.startup_ns) cost.push_back("start-up " + format_ns(*g.startup_ns));
    if (g.shares_pool) cost.push_back("memory: reuses the pool of an earlier capture");
    else if (g.memory_bytes) cost.push_back("memory " + format_bytes(static_cast<std::uint64_t>(*g.memory_bytes)));
    if (!cost.empty()) l += "; " + join(cost, ", ");
    out.push_back(l);
  }
  for (const PlanCluster& c : s.plan_clusters) {
    const EagerCluster& cl = s.clusters[c.cluster];
    std::string l = "eager steps " + std::to_string(c.cluster + 1) + " (" + plural(c.steps, "step", "steps") + "): " + c.verdict;
    if (c.verdict == "fix the dispatch") l += ": they run what " + graph_name(cl.graph) + " holds";
    if (c.saving_per_1000_steps_ns)
      l += std::string(c.verdict == "fix the dispatch" ? "; replaying it would save ~" : "; a graph would save ~") +
           format_ns(*c.saving_per_1000_steps_ns) + " per 1000 steps";
    if (c.verdict == "capture") {
      std::vector<std::string> est;
      if (c.startup_ns) est.push_back("start-up ~" + format_ns(*c.startup_ns) + " (the median capture)");
      if (c.memory_bytes) est.push_back("memory ~" + format_bytes(static_cast<std::uint64_t>(*c.memory_bytes)) + " (" +
                                        (cl.graph != 0 ? graph_name(cl.graph) + "'s" : "the step's largest graph's") + ")");
      if (!est.empty()) l += "; est. " + join(est, ", ");
      if (c.pays_back_steps) l += strf("; pays back after ~%.0f steps", std::ceil(*c.pays_back_steps));
    }
    out.push_back(l);
  }
  if (!s.padding.empty()) out.push_back("padding waste: " + s.padding);
  return out;
}

void step_kinds_text(std::ostringstream& out, const ProfileProcess& process, bool verbose) {
  if (!process.step_kinds || !process.step_kinds->is_object()) return;
  const StepKinds s = step_kinds_from_json(*process.step_kinds, "step_kinds");
  // Said when there is something to say: steps without a graph, or the framework's reasons.
  if (s.eager_steps() == 0 && s.reasons.empty()) return;
  if (s.steps > 0) {
    out << "\n  steps by kind (" << plural(s.steps, "step", "steps") << "; " << steps_cut_text(s) << ")\n";
    if (const std::string a = eager_steps_answer(s); !a.empty()) out << said("  ", "answer: " + a, "    ");
    TextTable rows({"kind", "steps", "host/step", "GPU/step", "eager launches/step"});
    bool partial = false;
    for (const StepKind& k : s.kinds) {
      std::string gpu = opt_ns(k.gpu_ns());
      if (!k.gpu_ns() && k.graph_gpu_ns) gpu = format_ns(*k.graph_gpu_ns) + "*", partial = true;
      rows.add({k.name(), std::to_string(k.steps), format_ns(k.host_ns_median), gpu, strf("%.1f", k.eager_launches)});
    }
    out << rows.str();
    if (partial) out << "  * the graphs' GPU time alone: the eager kernels' needs --trace node\n";
  }
  if (!s.clusters.empty()) {
    out << "\n  eager steps by shape\n";
    for (std::size_t i = 0; i < s.clusters.size(); ++i) {
      out << said("  ", std::to_string(i + 1) + ". " + cluster_text(s.clusters[i]), "     ");
      if (verbose)
        for (const std::string& e : s.clusters[i].example) out << "       " << one_line(e) << "\n";
    }
  }
  if (!s.reasons.empty()) {
    out << "\n  the framework's own reasons (its log)\n";
    for (const FrameworkReason& r : s.reasons) out << said("  ", "- " + reason_text(r), "    ");
  }
  if (s.steps > 0) {
    out << "\n  capture plan\n";
    for (const std::string& l : plan_lines(s)) out << said("  ", "- " + l, "    ");
  }
  for (const std::string& n : s.notes) out << said("  ", "note: " + n, "    ");
}

}  // namespace gp
