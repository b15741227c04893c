// `graphprof compare` of two profiles of one program: the graph-health view (docs/compare.md,
// "Two profiles"). Instead of matching results by exec number, it reads every run of each side
// from sections.profile (runs[] of `profile --repeat`, or the one run of a plain profile) and
// compares per run: coverage, eager launches and synchronising calls per step, graph count,
// capture failures, graphs made after the first replay; and per graph, matched by call site
// (when the report has one), node count and kernel sequence, its nodes, launches, GPU time per
// launch, launch call cost and memory. Each series has its own rule:
// - a fraction (coverage) changes when it moves by at least 2 points;
// - a count (per step or per run) when it moves by at least the threshold and a floor;
// - a time when it moves by at least the threshold;
// and a change counts only when the two sides' runs do not overlap and either both sides are
// constant over at least two runs each (a deterministic count) or that separation is itself
// unlikely by chance (exact probability 1 / C(nb + nc, nb) of the extreme ranking, at most the
// family false-alarm rate). A graph that is no longer there, or a new capture failure, is a
// regression. Host-timed series (wall time, launch call cost) are informational.
#include <algorithm>
#include <cmath>
#include <map>

#include "comparison_internal.hpp"
#include "graphprof/compare/compare_stats.hpp"
#include "graphprof/core/profile_fields.hpp"
#include "graphprof/core/stats.hpp"

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

// --- per-run figures -----------------------------------------------------------------------

using RunFigures = profile_fields::RunTotals;

}  // namespace

// --- the rule (SeriesRule: comparison_internal.hpp) ------------------------------------------

namespace {

// A duration for a reason line ("1.25 µs"); compare does not use the reporters' formatting.
std::string duration_text(double ns) {
  if (ns >= 1e9) return strf("%.3g s", ns / 1e9);
  if (ns >= 1e6) return strf("%.3g ms", ns / 1e6);
  if (ns >= 1e3) return strf("%.3g µs", ns / 1e3);
  return strf("%.3g ns", ns);
}

double binomial(std::size_t n, std::size_t k) {
  double c = 1;
  for (std::size_t i = 1; i <= k; ++i) c = c * static_cast<double>(n - k + i) / static_cast<double>(i);
  return c;
}

SideData side_of(const std::vector<double>& v) {
  SideData s;
  s.reps = v;
  s.samples = v.size();
  s.runs = v.size();
  s.center = median(v);
  return s;
}

}  // namespace

void decide(MetricComparison& r, const std::vector<double>& b, const std::vector<double>& c, const SeriesRule& rule,
            const Thresholds& t) {
  r.rule.gating = rule.gating;
  double relative = rule.relative >= 0 ? rule.relative : t.threshold;
  r.rule.threshold = r.rule.threshold_floor = rule.kind == Kind::kFraction ? 0 : relative;
  r.rule.abs_floor = rule.floor;
  r.rule.series_class = rule.kind == Kind::kTime && !rule.gating ? SeriesClass::kHost : SeriesClass::kDevice;
  r.rule.threshold_basis = rule.kind == Kind::kTime ? ThresholdBasis::kFloor : ThresholdBasis::kDeterministic;
  r.rule.noise_multiple = t.noise_multiple;
  r.method = "profile-runs";
  if (b.empty() || c.empty()) {
    // A figure one side's profile does not carry (another --trace level, an older graphprof) is
    // nothing to decide on: it neither fails nor makes the comparison untrusted.
    r.verdict = Verdict::kNotComparable;
    r.rule.gating = false;
    r.reason = b.empty() && c.empty() ? "neither profile measured it (recorded at a level without it)"
                                      : std::string(b.empty() ? "the baseline" : "the candidate") +
                                            "'s profile has no value for it (recorded at another level, or by an older graphprof)";
    return;
  }
  r.base = side_of(b);
  r.cand = side_of(c);
  const double mb = r.base->center, mc = r.cand->center;
  if (mb > 0 && mc > 0) {
    r.has_estimate = true;
    r.ratio = mc / mb;
  }
  r.abs_change = mc - mb;
  // A gating time follows its runs' noise as every device series does (docs/compare.md, "The
  // threshold of a row"); counts and fractions keep theirs.
  if (rule.kind == Kind::kTime && b.size() >= t.min_runs && c.size() >= t.min_runs) {
    std::vector<double> lb, lc;
    for (double v : b) lb.push_back(std::log(v));
    for (double v : c) lc.push_back(std::log(v));
    if (std::all_of(b.begin(), b.end(), [](double v) { return v > 0; }) &&
        std::all_of(c.begin(), c.end(), [](double v) { return v > 0; })) {
      const WelchResult w = welch(lb, lc);
      r.rule.noise_sd = pooled_sd(w.sd_x, lb.size(), w.sd_y, lc.size());
      apply_noise_term(r.rule);
      relative = r.rule.threshold;
    }
  }
  const double need = rule.kind == Kind::kFraction ? rule.floor : std::max(relative * std::fabs(mb), rule.floor);
  // A count or fraction whose absolute floor is the larger: the row's threshold is that change.
  if (rule.kind != Kind::kTime && (rule.kind == Kind::kFraction || need > relative * std::fabs(mb)))
    r.rule.threshold_basis = ThresholdBasis::kAbsolute;
  const auto [bmin, bmax] = std::minmax_element(b.begin(), b.end());
  const auto [cmin, cmax] = std::minmax_element(c.begin(), c.end());
  const bool up = *cmin > *bmax, down = *cmax < *bmin;
  const bool constant = *bmin == *bmax && *cmin == *cmax && ((b.size() >= 2 && c.size() >= 2) || rule.exact);
  const double chance = 1.0 / binomial(b.size() + c.size(), b.size());
  const std::string unit = r.unit == "%" ? " points" : (r.unit.empty() || r.unit == "ns" ? "" : " " + r.unit);
  auto amount = [&](double v) { return r.unit == "ns" ? duration_text(std::fabs(v)) : strf("%.3g", std::fabs(v)) + unit; };
  const std::string moved = amount(mc - mb) + (mc > mb ? " more" : " less");
  // One run cannot show how much a time moves between runs: not even "same".
  if (rule.kind == Kind::kTime && (b.size() < 2 || c.size() < 2)) {
    r.verdict = Verdict::kInconclusive;
    r.not_enough_runs = true;
    r.reason = moved + "; one run on a side cannot tell a time's change from run-to-run variation (profile --repeat 5)";
    return;
  }
  if (std::fabs(mc - mb) < need && !(rule.categorical && (up || down))) {
    r.verdict = Verdict::kSame;
    r.reason = "within " + amount(need) + " (" + moved + ")";
    return;
  }
  if (!(up || down)) {
    r.verdict = Verdict::kInconclusive;
    r.reason = moved + ", but the two sides' runs overlap";
    r.likely_regression = (r.direction == Direction::kLowerIsBetter && mc > mb) || (r.direction == Direction::kHigherIsBetter && mc < mb);
    return;
  }
  if (!(rule.categorical || constant || chance <= t.family_alpha)) {
    r.verdict = Verdict::kInconclusive;
    r.not_enough_runs = true;
    r.reason = moved + "; " + std::to_string(b.size()) + " vs " + std::to_string(c.size()) +
               " runs cannot tell it from run-to-run variation (profile --repeat 5 on each side)";
    r.likely_regression = (r.direction == Direction::kLowerIsBetter && up) || (r.direction == Direction::kHigherIsBetter && down);
    return;
  }
  const bool worse = (r.direction == Direction::kLowerIsBetter && up) || (r.direction == Direction::kHigherIsBetter && down);
  const std::string why = constant ? "the same in every run of each side" : "every run of one side beyond every run of the other";
  if (r.direction == Direction::kNone) {
    r.verdict = Verdict::kMinor;
    r.reason = "changed: " + moved + " (" + why + ")";
  } else {
    r.verdict = worse ? Verdict::kRegression : Verdict::kImprovement;
    r.reason = moved + ", beyond " + amount(need) + " (" + why + ")";
  }
}

MetricComparison row(const std::string& workload, const std::string& graph, const std::string& metric, const std::string& unit,
                     Direction d) {
  MetricComparison r;
  r.workload = workload;
  r.mode = "app";
  if (!graph.empty()) r.params = {{"graph", graph}};
  r.metric = metric;
  r.unit = unit;
  r.direction = d;
  return r;
}

namespace {

template <typename F>
std::vector<double> per_run(const std::vector<RunFigures>& runs, F f) {
  std::vector<double> v;
  for (const auto& r : runs) {
    const double x = f(r);
    if (std::isfinite(x)) v.push_back(x);
  }
  return v;
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

}  // namespace

bool is_profile_report(const Report& r) { return profile_fields::app_result(r) != nullptr; }

void compare_profiles(const Report& base, const Report& cand, const Thresholds& t, Comparison& out) {
  const ProfileSection bp = *profile_fields::typed_section(base);
  const ProfileSection cp = *profile_fields::typed_section(cand);
  const std::string program = cp.program.empty() ? bp.program.str() : cp.program.str();
  const std::vector<const ProfileAppRun*> bruns = profile_fields::runs(bp), cruns = profile_fields::runs(cp);
  std::vector<RunFigures> bf, cf;
  for (const ProfileAppRun* r : bruns) bf.push_back(profile_fields::run_totals(*r));
  for (const ProfileAppRun* r : cruns) cf.push_back(profile_fields::run_totals(*r));

  auto add = [&](MetricComparison r, const std::vector<double>& b, const std::vector<double>& c, const SeriesRule& rule) {
    decide(r, b, c, rule, t);
    if (r.base && r.cand) ++out.compared;
    out.rows.push_back(std::move(r));
  };
  const SeriesRule coverage{Kind::kFraction, 2.0, false, true};
  const SeriesRule exact_coverage{Kind::kFraction, 2.0, false, true, -1, true};
  const SeriesRule per_step{Kind::kCount, 0.05, false, true, -1, true};
  const SeriesRule count{Kind::kCount, 1.0, false, true, -1, true};
  const SeriesRule failures{Kind::kCount, 1.0, true, true};
  const SeriesRule device_time{Kind::kTime, 100.0, false, true};
  // Host clocks around CUDA calls move 3-40 % between processes (docs/compare.md, classes): only a
  // change beyond that is worth a line, and it never gates.
  const SeriesRule host_time{Kind::kTime, t.default_abs_floor_ns, false, false, 0.40};

  // The step first: the GPU time of a step (its graphs' GPU time, and the eager kernels' where both
  // sides traced kernels) gates; the host time of a step (the program's pace on the host clock) is
  // shown beside it and, like every host clock between processes, does not gate.
  const bool eager_gpu = !bf.empty() && bf.front().kernel_records && !cf.empty() && cf.front().kernel_records;
  auto gpu_per_step = [eager_gpu](const RunFigures& f) -> double {
    if (!(f.steps > 0)) return NAN;
    return (f.graph_gpu_ns + (eager_gpu ? f.eager_kernel_ns : 0.0)) / f.steps;
  };
  auto host_per_step = [](const RunFigures& f) -> double { return f.steps > 1 && f.step_span_ns > 0 ? f.step_span_ns / f.steps : NAN; };
  add(row(program, "", "gpu_time_per_step", "ns", Direction::kLowerIsBetter), per_run(bf, gpu_per_step), per_run(cf, gpu_per_step),
      device_time);
  const std::size_t step_row = out.rows.size() - 1;
  if (out.rows.back().verdict == Verdict::kNotComparable)
    out.rows.back().reason += eager_gpu ? "" : "; the graphs' GPU time per launch needs graphprof's GPU timing (profile records it by default)";
  add(row(program, "", "host_time_per_step", "ns", Direction::kLowerIsBetter), per_run(bf, host_per_step), per_run(cf, host_per_step),
      host_time);

  auto share = [](double a, double b) { return a + b > 0 ? 100.0 * a / (a + b) : NAN; };
  // Coverage in the steady state, where every run of both sides has it: it gates, and the whole
  // process's rows below are shown beside it for information (warm-up, autotuning and captures
  // count as eager work there, and vary with a cold cache).
  const auto all_steady = [](const std::vector<RunFigures>& runs, bool kernels) {
    return !runs.empty() && std::all_of(runs.begin(), runs.end(), [&](const RunFigures& f) {
      return kernels ? f.steady_kernel_records : f.steady;
    });
  };
  const bool steady_kernels = all_steady(bf, true) && all_steady(cf, true);
  const bool steady_launches = !steady_kernels && all_steady(bf, false) && all_steady(cf, false);
  if (steady_kernels) {
    add(row(program, "", "steady_coverage_kernel_time", "%", Direction::kHigherIsBetter),
        per_run(bf, [&](const RunFigures& f) { return share(f.steady_graph_kernel_ns, f.steady_eager_kernel_ns); }),
        per_run(cf, [&](const RunFigures& f) { return share(f.steady_graph_kernel_ns, f.steady_eager_kernel_ns); }), coverage);
  } else if (steady_launches) {
    add(row(program, "", "steady_coverage_launches", "%", Direction::kHigherIsBetter),
        per_run(bf, [&](const RunFigures& f) { return share(f.steady_node_runs, f.steady_eager_launches); }),
        per_run(cf, [&](const RunFigures& f) { return share(f.steady_node_runs, f.steady_eager_launches); }), exact_coverage);
  }
  const std::size_t first_whole_coverage_row = out.rows.size();
  if (!bf.empty() && bf.front().kernel_records && !cf.empty() && cf.front().kernel_records) {
    add(row(program, "", "coverage_kernel_time", "%", Direction::kHigherIsBetter),
        per_run(bf, [&](const RunFigures& f) { return share(f.graph_kernel_ns, f.eager_kernel_ns); }),
        per_run(cf, [&](const RunFigures& f) { return share(f.graph_kernel_ns, f.eager_kernel_ns); }), coverage);
    // A higher share of kernel time inside graphs is better only when work moved into them: when
    // eager kernel time per step did not fall, the share rose because graph kernels got slower
    // (their own rows say so), which is no improvement.
    MetricComparison& share_row = out.rows.back();
    if (share_row.verdict == Verdict::kImprovement) {
      const auto eager_per_step = [&](const std::vector<RunFigures>& runs) {
        return median(per_run(runs, [&](const RunFigures& f) { return f.steps > 0 ? f.eager_kernel_ns / f.steps : f.eager_kernel_ns; }));
      };
      const double be = eager_per_step(bf), ce = eager_per_step(cf);
      if (std::isfinite(be) && std::isfinite(ce) && ce >= 0.97 * be) {
        share_row.verdict = Verdict::kNotComparable;
        share_row.rule.gating = false;
        share_row.reason = "more of the kernel time is inside graphs because graph kernels take longer, not because eager "
                           "work moved into them (eager kernel time per step did not fall): see the graphs' GPU time per launch";
      }
    }
    add(row(program, "", "coverage_kernels", "%", Direction::kHigherIsBetter),
        per_run(bf, [&](const RunFigures& f) { return share(f.graph_kernels, f.eager_kernels); }),
        per_run(cf, [&](const RunFigures& f) { return share(f.graph_kernels, f.eager_kernels); }), coverage);
  } else if (!bf.empty() && !cf.empty()) {
    // Without kernel records (the default level): the share of launched work inside graphs from
    // exact counts, the nodes the graph launches ran against the eager kernel launches.
    auto launched_share = [&](const RunFigures& f) { return share(f.graph_node_runs, f.eager_launches); };
    add(row(program, "", "coverage_launches", "%", Direction::kHigherIsBetter), per_run(bf, launched_share), per_run(cf, launched_share),
        exact_coverage);
  }
  if (steady_kernels || steady_launches)
    for (std::size_t r = first_whole_coverage_row; r < out.rows.size(); ++r) {
      MetricComparison& whole = out.rows[r];
      if (!whole.rule.gating) continue;
      whole.rule.gating = false;
      whole.reason = "over the whole process (warm-up, autotuning and captures count as eager there): informational; the "
                     "steady state's coverage gates";
    }
  auto per = [](double v, double steps) { return steps > 0 ? v / steps : v; };
  add(row(program, "", "eager_launches_per_step", "per step", Direction::kLowerIsBetter),
      per_run(bf, [&](const RunFigures& f) { return per(f.eager_launches, f.steps); }),
      per_run(cf, [&](const RunFigures& f) { return per(f.eager_launches, f.steps); }), per_step);
  add(row(program, "", "syncs_per_step", "per step", Direction::kLowerIsBetter),
      per_run(bf, [&](const RunFigures& f) { return per(f.syncs, f.steps); }),
      per_run(cf, [&](const RunFigures& f) { return per(f.syncs, f.steps); }), per_step);
  add(row(program, "", "graphs", "count", Direction::kNone), per_run(bf, [](const RunFigures& f) { return f.graphs; }),
      per_run(cf, [](const RunFigures& f) { return f.graphs; }), count);
  add(row(program, "", "capture_failures", "count", Direction::kLowerIsBetter),
      per_run(bf, [](const RunFigures& f) { return f.capture_failures; }), per_run(cf, [](const RunFigures& f) { return f.capture_failures; }),
      failures);
  add(row(program, "", "graphs_made_after_first_replay", "count", Direction::kLowerIsBetter),
      per_run(bf, [](const RunFigures& f) { return f.late_graphs; }), per_run(cf, [](const RunFigures& f) { return f.late_graphs; }), count);
  std::vector<double> bw, cw;
  for (const ProfileAppRun* r : bruns) bw.push_back(r->wall_ns);
  for (const ProfileAppRun* r : cruns) cw.push_back(r->wall_ns);
  bw.erase(std::remove_if(bw.begin(), bw.end(), [](double v) { return !std::isfinite(v); }), bw.end());
  cw.erase(std::remove_if(cw.begin(), cw.end(), [](double v) { return !std::isfinite(v); }), cw.end());
  add(row(program, "", "wall_time", "ns", Direction::kLowerIsBetter), bw, cw, host_time);

  // By call site: eager launches per step, graph memory, graphs made (profile_site_rows.cpp).
  const bool several = bp.processes.size() > 1 || cp.processes.size() > 1;
  compare_profile_sites(program, bruns, cruns, several, t, out);
  // The exact eager launches per step decide; the sites' sampled estimates say where they came from.
  for (auto& total : out.rows) {
    if (total.metric != "eager_launches_per_step" || !total.params.empty() || total.verdict != Verdict::kRegression) continue;
    std::vector<const MetricComparison*> grew;
    for (const auto& r : out.rows)
      if (r.metric == "eager_launches_per_step" && r.params.count("site") && r.base && r.cand && r.cand->center > r.base->center + 0.05)
        grew.push_back(&r);
    std::sort(grew.begin(), grew.end(), [](const auto* a, const auto* b) {
      return a->cand->center - a->base->center > b->cand->center - b->base->center;
    });
    std::string from;
    for (std::size_t i = 0; i < grew.size() && i < 3; ++i)
      from += (i ? ", " : "") + grew[i]->params.at("site") +
              (grew[i]->base->center <= 0 ? strf(" (new, ~%.2g per step)", grew[i]->cand->center)
                                          : strf(" (~%.2g -> ~%.2g per step)", grew[i]->base->center, grew[i]->cand->center));
    if (!from.empty()) total.reason += "; more from (sampled call stacks): " + from;
    break;
  }

  // Per graph.
  std::vector<std::vector<GraphView>> bg, cg;
  // A graph's site by its function when only one side knows source lines (profile_site_rows.cpp).
  const SiteMatch how = site_match(bruns, cruns);
  for (std::size_t i = 0; i < bruns.size(); ++i) bg.push_back(graphs_of_run(base, *bruns[i], how));
  for (std::size_t i = 0; i < cruns.size(); ++i) cg.push_back(graphs_of_run(cand, *cruns[i], how));
  const Matching m = match(bg.front(), cg.front());
  for (const auto& [b, c] : m.pairs) {
    const std::string label = label_of(*b, several);
    const auto be = entries_across_runs(*b, bg), ce = entries_across_runs(*c, cg);
    const bool same_shape = b->nodes == c->nodes && b->kernels == c->kernels;
    if (!same_shape) {
      std::string what = "graph changed: " + std::to_string(b->nodes) + " -> " + plural(c->nodes, "node", "nodes");
      if (b->nodes == c->nodes) what = "graph changed: other kernels in its " + plural(b->nodes, "node", "nodes");
      out.drift.push_back({program + "[graph=" + label + "]", what});
    }
    add(row(program, label, "nodes", "count", Direction::kNone), graph_values(be, nodes_of), graph_values(ce, nodes_of), count);
    add(row(program, label, "launches", "count", Direction::kNone), graph_values(be, launches_of), graph_values(ce, launches_of),
        count);
    MetricComparison gpu = row(program, label, "gpu_time_per_launch", "ns", Direction::kLowerIsBetter);
    if (same_shape) {
      add(gpu, graph_values(be, gpu_per_launch), graph_values(ce, gpu_per_launch), device_time);
    } else {
      // Other work per launch: a smaller graph is not a faster one (its work moved elsewhere).
      // A slower graph is slower whatever its nodes became (cuBLAS picking other kernels adds
      // nodes): it gates, with the change named. A faster one is no improvement (its work may have
      // moved elsewhere, which coverage and eager launches show).
      decide(gpu, graph_values(be, gpu_per_launch), graph_values(ce, gpu_per_launch), device_time, t);
      const std::string changed = "the graph changed (" + std::to_string(b->nodes) + " -> " + std::to_string(c->nodes) + " nodes)";
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
    add(row(program, label, "launch_call_cost", "ns", Direction::kLowerIsBetter), graph_values(be, call_cost),
        graph_values(ce, call_cost), host_time);
    const bool bm = std::isfinite(memory_of(*b->entry)), cm = std::isfinite(memory_of(*c->entry));
    if (bm && cm) {
      add(row(program, label, "memory", "bytes", Direction::kLowerIsBetter), graph_values(be, memory_of), graph_values(ce, memory_of),
          count);
    } else if (bm || cm) {  // one side's profile predates the memory ledger: nothing to compare, nothing fails
      MetricComparison r = row(program, label, "memory", "bytes", Direction::kLowerIsBetter);
      r.method = "profile-runs";
      r.rule.gating = false;
      r.verdict = Verdict::kNotComparable;
      r.reason = std::string(bm ? "the candidate" : "the baseline") + "'s profile has no memory ledger for it";
      out.rows.push_back(std::move(r));
    }
  }
  // Less GPU time per step where graphs changed shape is no improvement: their work may have moved
  // to eager kernels timed another way (spans of graph launches, kernels' own times of eager ones).
  if (MetricComparison& step = out.rows[step_row]; step.verdict == Verdict::kImprovement && !m.pairs.empty() &&
                                                   std::any_of(m.pairs.begin(), m.pairs.end(), [](const auto& p) {
                                                     return p.first->nodes != p.second->nodes || p.first->kernels != p.second->kernels;
                                                   })) {
    step.verdict = Verdict::kNotComparable;
    step.rule.gating = false;
    step.reason = "graphs changed shape: less GPU time per step may be work moved out of them (" + step.reason + ")";
  }
  // A slower step names the graphs whose GPU time per launch rose most.
  if (MetricComparison& step = out.rows[step_row]; step.verdict == Verdict::kRegression || step.verdict == Verdict::kInconclusive) {
    std::vector<const MetricComparison*> slower;
    for (const auto& r : out.rows)
      if (r.metric == "gpu_time_per_launch" && r.has_estimate && r.ratio > 1.0 && r.params.count("graph")) slower.push_back(&r);
    std::sort(slower.begin(), slower.end(), [](const auto* a, const auto* b) { return a->ratio > b->ratio; });
    std::string names;
    for (std::size_t i = 0; i < slower.size() && i < 4; ++i)
      names += (i ? ", " : "") + slower[i]->params.at("graph") + strf(" %+.1f%%", 100.0 * (slower[i]->ratio - 1.0));
    if (slower.size() > 4) names += strf(" and %zu more", slower.size() - 4);
    if (!names.empty()) step.reason += "; graphs slower per launch: " + names;
  }
  for (const GraphView* g : m.gone) {
    MetricComparison r = row(program, label_of(*g, several), "*", "", Direction::kLowerIsBetter);
    r.rule.gating = true;
    r.verdict = Verdict::kRegression;
    r.reason = "no longer captured: the candidate has no graph like it (" + plural(g->nodes, "node", "nodes") +
               (g->site_label.empty() ? "" : ", made at " + g->site_label) + ")";
    out.rows.push_back(std::move(r));
  }
  for (const GraphView* g : m.added) {
    MetricComparison r = row(program, label_of(*g, several), "*", "", Direction::kLowerIsBetter);
    r.rule.gating = false;
    r.verdict = Verdict::kAdded;
    r.reason = "new in the candidate (" + plural(g->nodes, "node", "nodes") + ")";
    out.rows.push_back(std::move(r));
  }
  // A failed application is not a profile of the program's graphs.
  for (const auto& [side, p] : {std::pair<const char*, const ProfileSection*>{"baseline", &bp}, {"candidate", &cp}})
    for (const ProfileAppRun* r : profile_fields::runs(*p))
      if (r->exit_status.value_or(0) != 0) {
        MetricComparison f = row(program, "", "*", "", Direction::kLowerIsBetter);
        f.rule.gating = true;
        f.verdict = side == std::string("candidate") ? Verdict::kFailed : Verdict::kNotComparable;
        f.reason = std::string("the application ") + r->exit + " in a " + side + " run";
        out.rows.push_back(std::move(f));
        break;
      }
}

}  // namespace gp::compare_detail
