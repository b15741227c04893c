// The graph-health view's rows per graph (docs/compare.md, "Two profiles"): the graphs of each
// side's runs, matched by call site (when the report has one), node count and kernel sequence,
// then by what is left in creation order; per matched graph its nodes, launches, GPU time per
// launch, launch call cost and memory, and drift where its shape changed. A graph that is no
// longer there is a regression; a new one is listed. What the graphs did qualifies the GPU time
// per step: less of it where graphs changed shape is no improvement, and more names the graphs
// that got slower per launch.
#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "comparison_internal.hpp"
#include "graphprof/core/profile_fields.hpp"

namespace gp::compare_detail {

namespace {

// A graph as the health view sees it.
struct GraphView {
  std::size_t process = 0;
  std::string site;          // call site as matched (compare_detail::graph_site_key); empty when the report has none
  std::string site_label;    // the call site as the user reads it (`where`)
  std::size_t nodes = 0;
  std::string kernels;       // kernel sequence, comma-joined (empty at --trace graph/none)
  std::string first, last;   // first and last kernel, for the label
  std::size_t rank = 0;      // creation order in its process, from 1
  std::size_t site_rank = 0, site_graphs = 0;  // order among the graphs made at its site, and how many
  const ProfileGraph* entry = nullptr;
  std::string key() const { return std::to_string(process) + "|" + site + "|" + std::to_string(nodes) + "|" + kernels; }
};

// The kernel sequence from the graph's own result (reports written before graphs carried one).
std::vector<std::string> sequence_from_result(const Report& report, std::size_t process, const ProfileGraph& g) {
  std::vector<std::string> seq;
  for (const ModeResult& r : report.results) {
    const auto pr = r.params.find("process"), ex = r.params.find("exec");
    if (pr == r.params.end() || ex == r.params.end() || r.params.count("run")) continue;
    if (pr->second != std::to_string(process) || ex->second != std::to_string(static_cast<long long>(g.exec.value_or(-1)))) continue;
    if (r.sections.trace)
      for (const auto& n : r.sections.trace->nodes) seq.push_back(n.name);
    break;
  }
  return seq;
}

std::vector<GraphView> graphs_of_run(const Report& report, const ProfileAppRun& run, SiteMatch how) {
  std::vector<GraphView> out;
  for (const auto& p : run.processes) {
    const std::size_t process = static_cast<std::size_t>(p.process.value_or(1));
    std::size_t rank = 0;
    for (const auto& g : p.graphs) {
      GraphView v;
      v.process = process;
      v.site = graph_site_key(g, how);
      v.site_label = graph_site_label(g);
      if (v.site_label.empty()) v.site_label = v.site;
      v.nodes = static_cast<std::size_t>(g.nodes.value_or(0));
      std::vector<std::string> seq;
      if (g.kernel_sequence.present) {
        for (const auto& k : g.kernel_sequence) seq.push_back(k);
      } else if (const auto it = g.extra.find("kernel_sequence"); it != g.extra.end() && it->is_array()) {
        for (const auto& k : *it)  // elements of other types beside the names
          if (k.is_string()) seq.push_back(k.get<std::string>());
      } else {
        // Runs of one build number their execs alike: a pooled report's result of that exec.
        seq = sequence_from_result(report, process, g);
      }
      for (std::size_t i = 0; i < seq.size(); ++i) v.kernels += (i ? "," : "") + seq[i];
      if (!seq.empty()) v.first = seq.front(), v.last = seq.back();
      v.rank = ++rank;
      v.entry = &g;
      out.push_back(std::move(v));
    }
  }
  // A site that made several graphs (one per batch size, say): they are told apart by their order.
  for (auto& v : out) {
    if (v.site.empty()) continue;
    for (const auto& w : out)
      if (w.process == v.process && w.site == v.site) {
        ++v.site_graphs;
        if (w.rank <= v.rank) ++v.site_rank;
      }
  }
  return out;
}

// What a user recognises a graph by: its call site, else its place among the process's graphs
// and its first and last kernel.
std::string label_of(const GraphView& g, bool several_processes) {
  std::string s = several_processes ? "p" + std::to_string(g.process) + " " : "";
  // The rank first: a clipped label still tells the graphs of one site apart.
  if (!g.site.empty())
    return s + (g.site_graphs > 1 ? "#" + std::to_string(g.site_rank) + "/" + std::to_string(g.site_graphs) + " " : "") + g.site_label +
           " (" + plural(g.nodes, "node", "nodes") + ")";
  s += "#" + std::to_string(g.rank) + " " + plural(g.nodes, "node", "nodes");
  if (!g.first.empty()) s += " " + g.first + (g.last != g.first ? "…" + g.last : "");
  return s;
}

// Per-run values of one graph's figure, over the runs where the graph was matched.
std::vector<double> graph_values(const std::vector<const ProfileGraph*>& entries, double (*f)(const ProfileGraph&)) {
  std::vector<double> v;
  for (const ProfileGraph* g : entries) {
    const double x = f(*g);
    if (std::isfinite(x)) v.push_back(x);
  }
  return v;
}

double gpu_per_launch(const ProfileGraph& g) { return g.gpu_span ? g.gpu_span->median_ns.value() : NAN; }
double call_cost(const ProfileGraph& g) {
  return g.launch_calls && g.launch_calls->unblocked ? g.launch_calls->unblocked->median_ns.value() : NAN;
}
double memory_of(const ProfileGraph& g) { return profile_fields::graph_memory_bytes(g); }
double launches_of(const ProfileGraph& g) { return g.launches; }
double nodes_of(const ProfileGraph& g) { return g.nodes; }

// Matches run 1's graphs of each side: by key (process, site, nodes, kernels) and rank among
// equal keys; then, left over, by call site; then by creation order when both sides have as many
// left. Returns pairs (base, cand) and the ones left over on each side.
struct Matching {
  std::vector<std::pair<const GraphView*, const GraphView*>> pairs;
  std::vector<const GraphView*> gone, added;
};

Matching match(const std::vector<GraphView>& b, const std::vector<GraphView>& c) {
  Matching m;
  std::vector<bool> used(c.size(), false);
  std::vector<const GraphView*> left;
  for (const auto& g : b) {
    bool found = false;
    for (std::size_t j = 0; j < c.size() && !found; ++j)
      if (!used[j] && c[j].key() == g.key()) used[j] = found = true, m.pairs.push_back({&g, &c[j]});
    if (!found) left.push_back(&g);
  }
  std::vector<const GraphView*> rest;
  for (const GraphView* g : left) {
    bool found = false;
    for (std::size_t j = 0; j < c.size() && !found && !g->site.empty(); ++j)
      if (!used[j] && c[j].process == g->process && c[j].site == g->site) used[j] = found = true, m.pairs.push_back({g, &c[j]});
    if (!found) rest.push_back(g);
  }
  // Left over (a renamed capture function or file): by what the graph is — its process, node count
  // and kernel sequence — in creation order.
  std::vector<const GraphView*> unmatched;
  for (const GraphView* g : rest) {
    bool found = false;
    for (std::size_t j = 0; j < c.size() && !found; ++j)
      if (!used[j] && c[j].process == g->process && c[j].nodes == g->nodes && c[j].kernels == g->kernels)
        used[j] = found = true, m.pairs.push_back({g, &c[j]});
    if (!found) unmatched.push_back(g);
  }
  std::vector<const GraphView*> cand_rest;
  for (std::size_t j = 0; j < c.size(); ++j)
    if (!used[j]) cand_rest.push_back(&c[j]);
  // As many left on both sides: paired in creation order (each pair's changes then show as drift).
  if (!unmatched.empty() && unmatched.size() == cand_rest.size()) {
    for (std::size_t i = 0; i < unmatched.size(); ++i) m.pairs.push_back({unmatched[i], cand_rest[i]});
    return m;
  }
  m.gone = unmatched;
  m.added = cand_rest;
  return m;
}

// The same graph in a later run of one side: same key and rank among its equals.
std::vector<const ProfileGraph*> entries_across_runs(const GraphView& g, const std::vector<std::vector<GraphView>>& runs) {
  std::vector<const ProfileGraph*> out;
  std::size_t rank_among_equals = 0;
  for (const auto& x : runs.front()) {
    if (&x == &g) break;
    if (x.key() == g.key()) ++rank_among_equals;
  }
  for (const auto& run : runs) {
    std::size_t seen = 0;
    for (const auto& x : run)
      if (x.key() == g.key() && seen++ == rank_among_equals) {
        out.push_back(x.entry);
        break;
      }
  }
  return out;
}

// A graph whose node count or kernels changed is drift, named by its label.
void note_changed_graph(const ProfilePair& p, const GraphView& b, const GraphView& c, const std::string& label, Comparison& out) {
  std::string what = "graph changed: " + std::to_string(b.nodes) + " -> " + plural(c.nodes, "node", "nodes");
  if (b.nodes == c.nodes) what = "graph changed: other kernels in its " + plural(b.nodes, "node", "nodes");
  out.drift.push_back({p.program + "[graph=" + label + "]", what});
}

// Other work per launch: a smaller graph is not a faster one (its work moved elsewhere).
// A slower graph is slower whatever its nodes became (cuBLAS picking other kernels adds
// nodes): it gates, with the change named. A faster one is no improvement (its work may have
// moved elsewhere, which coverage and eager launches show).
void add_changed_graph_gpu_row(const ProfilePair& p, const GraphView& b, const GraphView& c, MetricComparison gpu,
                               const std::vector<const ProfileGraph*>& be, const std::vector<const ProfileGraph*>& ce,
                               Comparison& out) {
  decide(gpu, graph_values(be, gpu_per_launch), graph_values(ce, gpu_per_launch), p.rules.device_time, p.t);
  const std::string changed = "the graph changed (" + std::to_string(b.nodes) + " -> " + std::to_string(c.nodes) + " nodes)";
  if (gpu.verdict == Verdict::kRegression || gpu.verdict == Verdict::kInconclusive) {
    gpu.reason += "; " + changed;
  } else if (gpu.verdict != Verdict::kSame) {
    gpu.verdict = Verdict::kNotComparable;
    gpu.rule.gating = false;
    gpu.reason = changed + ": less time per launch may be work moved out of it; see coverage and eager launches";
  }
  if (gpu.base && gpu.cand) ++out.compared;
  out.rows.push_back(std::move(gpu));
}

// The graph's memory, where both sides' profiles have a memory ledger.
void add_graph_memory_row(const ProfilePair& p, const GraphView& b, const GraphView& c, const std::string& label,
                          const std::vector<const ProfileGraph*>& be, const std::vector<const ProfileGraph*>& ce, Comparison& out) {
  const bool bm = std::isfinite(memory_of(*b.entry)), cm = std::isfinite(memory_of(*c.entry));
  if (bm && cm) {
    add_judged_row(out, row(p.program, label, "memory", "bytes", Direction::kLowerIsBetter), graph_values(be, memory_of),
                   graph_values(ce, memory_of), p.rules.count, p.t);
  } else if (bm || cm) {  // one side's profile predates the memory ledger: nothing to compare, nothing fails
    MetricComparison r = row(p.program, label, "memory", "bytes", Direction::kLowerIsBetter);
    r.method = "profile-runs";
    r.rule.gating = false;
    r.verdict = Verdict::kNotComparable;
    r.reason = std::string(bm ? "the candidate" : "the baseline") + "'s profile has no memory ledger for it";
    out.rows.push_back(std::move(r));
  }
}

// The rows of one graph matched on both sides, over every run of each.
void add_matched_graph_rows(const ProfilePair& p, const GraphView* b, const GraphView* c, const std::vector<std::vector<GraphView>>& bg,
                            const std::vector<std::vector<GraphView>>& cg, Comparison& out) {
  const std::string label = label_of(*b, p.several_processes);
  const auto be = entries_across_runs(*b, bg), ce = entries_across_runs(*c, cg);
  const bool same_shape = b->nodes == c->nodes && b->kernels == c->kernels;
  if (!same_shape) note_changed_graph(p, *b, *c, label, out);
  add_judged_row(out, row(p.program, label, "nodes", "count", Direction::kNone), graph_values(be, nodes_of), graph_values(ce, nodes_of),
                 p.rules.count, p.t);
  add_judged_row(out, row(p.program, label, "launches", "count", Direction::kNone), graph_values(be, launches_of),
                 graph_values(ce, launches_of), p.rules.count, p.t);
  MetricComparison gpu = row(p.program, label, "gpu_time_per_launch", "ns", Direction::kLowerIsBetter);
  if (same_shape) {
    add_judged_row(out, gpu, graph_values(be, gpu_per_launch), graph_values(ce, gpu_per_launch), p.rules.device_time, p.t);
  } else {
    add_changed_graph_gpu_row(p, *b, *c, gpu, be, ce, out);
  }
  add_judged_row(out, row(p.program, label, "launch_call_cost", "ns", Direction::kLowerIsBetter), graph_values(be, call_cost),
                 graph_values(ce, call_cost), p.rules.host_time, p.t);
  add_graph_memory_row(p, *b, *c, label, be, ce, out);
}

// Less GPU time per step where graphs changed shape is no improvement: their work may have moved
// to eager kernels timed another way (spans of graph launches, kernels' own times of eager ones).
void qualify_faster_step(const Matching& m, MetricComparison& step) {
  if (step.verdict == Verdict::kImprovement && !m.pairs.empty() && std::any_of(m.pairs.begin(), m.pairs.end(), [](const auto& p) {
        return p.first->nodes != p.second->nodes || p.first->kernels != p.second->kernels;
      })) {
    step.verdict = Verdict::kNotComparable;
    step.rule.gating = false;
    step.reason = "graphs changed shape: less GPU time per step may be work moved out of them (" + step.reason + ")";
  }
}

// A slower step names the graphs whose GPU time per launch rose most.
void name_graphs_of_slower_step(const std::vector<MetricComparison>& rows, MetricComparison& step) {
  if (step.verdict == Verdict::kRegression || step.verdict == Verdict::kInconclusive) {
    std::vector<const MetricComparison*> slower;
    for (const auto& r : rows)
      if (r.metric == "gpu_time_per_launch" && r.has_estimate && r.ratio > 1.0 && r.params.count("graph")) slower.push_back(&r);
    std::sort(slower.begin(), slower.end(), [](const auto* a, const auto* b) { return a->ratio > b->ratio; });
    std::string names;
    for (std::size_t i = 0; i < slower.size() && i < 4; ++i)
      names += (i ? ", " : "") + slower[i]->params.at("graph") + strf(" %+.1f%%", 100.0 * (slower[i]->ratio - 1.0));
    if (slower.size() > 4) names += strf(" and %zu more", slower.size() - 4);
    if (!names.empty()) step.reason += "; graphs slower per launch: " + names;
  }
}

// A graph no longer there is a regression; a new one is listed.
void add_gone_and_new_graph_rows(const ProfilePair& p, const Matching& m, Comparison& out) {
  for (const GraphView* g : m.gone) {
    MetricComparison r = row(p.program, label_of(*g, p.several_processes), "*", "", Direction::kLowerIsBetter);
    r.rule.gating = true;
    r.verdict = Verdict::kRegression;
    r.reason = "no longer captured: the candidate has no graph like it (" + plural(g->nodes, "node", "nodes") +
               (g->site_label.empty() ? "" : ", made at " + g->site_label) + ")";
    out.rows.push_back(std::move(r));
  }
  for (const GraphView* g : m.added) {
    MetricComparison r = row(p.program, label_of(*g, p.several_processes), "*", "", Direction::kLowerIsBetter);
    r.rule.gating = false;
    r.verdict = Verdict::kAdded;
    r.reason = "new in the candidate (" + plural(g->nodes, "node", "nodes") + ")";
    out.rows.push_back(std::move(r));
  }
}

}  // namespace

void compare_profile_graphs(const ProfilePair& p, std::size_t step_row, Comparison& out) {
  std::vector<std::vector<GraphView>> bg, cg;
  // A graph's site by its function when only one side knows source lines (profile_site_rows.cpp).
  const SiteMatch how = site_match(p.bruns, p.cruns);
  for (std::size_t i = 0; i < p.bruns.size(); ++i) bg.push_back(graphs_of_run(p.base, *p.bruns[i], how));
  for (std::size_t i = 0; i < p.cruns.size(); ++i) cg.push_back(graphs_of_run(p.cand, *p.cruns[i], how));
  const Matching m = match(bg.front(), cg.front());
  for (const auto& [b, c] : m.pairs) add_matched_graph_rows(p, b, c, bg, cg, out);
  qualify_faster_step(m, out.rows[step_row]);
  name_graphs_of_slower_step(out.rows, out.rows[step_row]);
  add_gone_and_new_graph_rows(p, m, out);
}

}  // namespace gp::compare_detail
