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

void add_judged_row(Comparison& out, MetricComparison r, const std::vector<double>& b, const std::vector<double>& c,
                    const SeriesRule& rule, const Thresholds& t) {
  decide(r, b, c, rule, t);
  if (r.base && r.cand) ++out.compared;
  out.rows.push_back(std::move(r));
}

HealthRules health_rules(const Thresholds& t) {
  HealthRules r;
  r.coverage = SeriesRule{Kind::kFraction, 2.0, false, true};
  r.exact_coverage = SeriesRule{Kind::kFraction, 2.0, false, true, -1, true};
  r.per_step = SeriesRule{Kind::kCount, 0.05, false, true, -1, true};
  r.count = SeriesRule{Kind::kCount, 1.0, false, true, -1, true};
  r.failures = SeriesRule{Kind::kCount, 1.0, true, true};
  r.device_time = SeriesRule{Kind::kTime, 100.0, false, true};
  // Host clocks around CUDA calls move 3-40 % between processes (docs/compare.md, classes): only a
  // change beyond that is worth a line, and it never gates.
  r.host_time = SeriesRule{Kind::kTime, t.default_abs_floor_ns, false, false, 0.40};
  return r;
}

// --- per-run figures -----------------------------------------------------------------------

namespace {

using RunFigures = profile_fields::RunTotals;

template <typename F>
std::vector<double> per_run(const std::vector<RunFigures>& runs, F f) {
  std::vector<double> v;
  for (const auto& r : runs) {
    const double x = f(r);
    if (std::isfinite(x)) v.push_back(x);
  }
  return v;
}

// The per-run totals of each side, and the row-adding step the run-level rows share.
struct RunRows {
  const ProfilePair& p;
  Comparison& out;
  std::vector<RunFigures> bf, cf;
  void add(MetricComparison r, const std::vector<double>& b, const std::vector<double>& c, const SeriesRule& rule) const {
    add_judged_row(out, std::move(r), b, c, rule, p.t);
  }
};

// Both sides traced kernels (the first run of each has kernel records).
bool both_traced_kernels(const RunRows& x) {
  return !x.bf.empty() && x.bf.front().kernel_records && !x.cf.empty() && x.cf.front().kernel_records;
}

// The step first: the GPU time of a step (its graphs' GPU time, and the eager kernels' where both
// sides traced kernels) gates; the host time of a step (the program's pace on the host clock) is
// shown beside it and, like every host clock between processes, does not gate. Returns the index
// of the GPU time row.
std::size_t add_step_time_rows(const RunRows& x) {
  const ProfilePair& p = x.p;
  const std::vector<RunFigures>& bf = x.bf;
  const std::vector<RunFigures>& cf = x.cf;
  const bool eager_gpu = both_traced_kernels(x);
  auto gpu_per_step = [eager_gpu](const RunFigures& f) -> double {
    if (!(f.steps > 0)) return NAN;
    return (f.graph_gpu_ns + (eager_gpu ? f.eager_kernel_ns : 0.0)) / f.steps;
  };
  auto host_per_step = [](const RunFigures& f) -> double { return f.steps > 1 && f.step_span_ns > 0 ? f.step_span_ns / f.steps : NAN; };
  x.add(row(p.program, "", "gpu_time_per_step", "ns", Direction::kLowerIsBetter), per_run(bf, gpu_per_step), per_run(cf, gpu_per_step),
        p.rules.device_time);
  const std::size_t step_row = x.out.rows.size() - 1;
  if (x.out.rows.back().verdict == Verdict::kNotComparable)
    x.out.rows.back().reason += eager_gpu ? "" : "; the graphs' GPU time per launch needs graphprof's GPU timing (profile records it by default)";
  x.add(row(p.program, "", "host_time_per_step", "ns", Direction::kLowerIsBetter), per_run(bf, host_per_step), per_run(cf, host_per_step),
        p.rules.host_time);
  return step_row;
}

double share_of(double a, double b) { return a + b > 0 ? 100.0 * a / (a + b) : NAN; }

// Coverage in the steady state, where every run of both sides has it: it gates, and the whole
// process's rows below are shown beside it for information (warm-up, autotuning and captures
// count as eager work there, and vary with a cold cache). Returns whether it added the row.
bool add_steady_coverage_row(const RunRows& x) {
  const ProfilePair& p = x.p;
  const std::vector<RunFigures>& bf = x.bf;
  const std::vector<RunFigures>& cf = x.cf;
  auto share = share_of;
  const auto all_steady = [](const std::vector<RunFigures>& runs, bool kernels) {
    return !runs.empty() && std::all_of(runs.begin(), runs.end(), [&](const RunFigures& f) {
      return kernels ? f.steady_kernel_records : f.steady;
    });
  };
  const bool steady_kernels = all_steady(bf, true) && all_steady(cf, true);
  const bool steady_launches = !steady_kernels && all_steady(bf, false) && all_steady(cf, false);
  if (steady_kernels) {
    x.add(row(p.program, "", "steady_coverage_kernel_time", "%", Direction::kHigherIsBetter),
          per_run(bf, [&](const RunFigures& f) { return share(f.steady_graph_kernel_ns, f.steady_eager_kernel_ns); }),
          per_run(cf, [&](const RunFigures& f) { return share(f.steady_graph_kernel_ns, f.steady_eager_kernel_ns); }), p.rules.coverage);
  } else if (steady_launches) {
    x.add(row(p.program, "", "steady_coverage_launches", "%", Direction::kHigherIsBetter),
          per_run(bf, [&](const RunFigures& f) { return share(f.steady_node_runs, f.steady_eager_launches); }),
          per_run(cf, [&](const RunFigures& f) { return share(f.steady_node_runs, f.steady_eager_launches); }), p.rules.exact_coverage);
  }
  return steady_kernels || steady_launches;
}

// A higher share of kernel time inside graphs is better only when work moved into them: when
// eager kernel time per step did not fall, the share rose because graph kernels got slower
// (their own rows say so), which is no improvement.
void qualify_kernel_share_improvement(const RunRows& x, MetricComparison& share_row) {
  if (share_row.verdict == Verdict::kImprovement) {
    const auto eager_per_step = [&](const std::vector<RunFigures>& runs) {
      return median(per_run(runs, [&](const RunFigures& f) { return f.steps > 0 ? f.eager_kernel_ns / f.steps : f.eager_kernel_ns; }));
    };
    const double be = eager_per_step(x.bf), ce = eager_per_step(x.cf);
    if (std::isfinite(be) && std::isfinite(ce) && ce >= 0.97 * be) {
      share_row.verdict = Verdict::kNotComparable;
      share_row.rule.gating = false;
      share_row.reason = "more of the kernel time is inside graphs because graph kernels take longer, not because eager "
                         "work moved into them (eager kernel time per step did not fall): see the graphs' GPU time per launch";
    }
  }
}

// Coverage over the whole process: of kernel time and kernels where both sides traced kernels,
// else of launched work.
void add_whole_coverage_rows(const RunRows& x) {
  const ProfilePair& p = x.p;
  const std::vector<RunFigures>& bf = x.bf;
  const std::vector<RunFigures>& cf = x.cf;
  auto share = share_of;
  if (both_traced_kernels(x)) {
    x.add(row(p.program, "", "coverage_kernel_time", "%", Direction::kHigherIsBetter),
          per_run(bf, [&](const RunFigures& f) { return share(f.graph_kernel_ns, f.eager_kernel_ns); }),
          per_run(cf, [&](const RunFigures& f) { return share(f.graph_kernel_ns, f.eager_kernel_ns); }), p.rules.coverage);
    qualify_kernel_share_improvement(x, x.out.rows.back());
    x.add(row(p.program, "", "coverage_kernels", "%", Direction::kHigherIsBetter),
          per_run(bf, [&](const RunFigures& f) { return share(f.graph_kernels, f.eager_kernels); }),
          per_run(cf, [&](const RunFigures& f) { return share(f.graph_kernels, f.eager_kernels); }), p.rules.coverage);
  } else if (!bf.empty() && !cf.empty()) {
    // Without kernel records (the default level): the share of launched work inside graphs from
    // exact counts, the nodes the graph launches ran against the eager kernel launches.
    auto launched_share = [&](const RunFigures& f) { return share(f.graph_node_runs, f.eager_launches); };
    x.add(row(p.program, "", "coverage_launches", "%", Direction::kHigherIsBetter), per_run(bf, launched_share),
          per_run(cf, launched_share), p.rules.exact_coverage);
  }
}

// Where the steady state's coverage gates, the whole process's rows from `first` on do not.
void make_whole_coverage_informational(Comparison& out, std::size_t first) {
  for (std::size_t r = first; r < out.rows.size(); ++r) {
    MetricComparison& whole = out.rows[r];
    if (!whole.rule.gating) continue;
    whole.rule.gating = false;
    whole.reason = "over the whole process (warm-up, autotuning and captures count as eager there): informational; the "
                   "steady state's coverage gates";
  }
}

void add_coverage_rows(const RunRows& x) {
  const bool steady = add_steady_coverage_row(x);
  const std::size_t first_whole_coverage_row = x.out.rows.size();
  add_whole_coverage_rows(x);
  if (steady) make_whole_coverage_informational(x.out, first_whole_coverage_row);
}

// Eager launches and synchronising calls per step, graphs, capture failures, graphs made after
// the first replay, and the wall time.
void add_run_count_rows(const RunRows& x) {
  const ProfilePair& p = x.p;
  const std::vector<RunFigures>& bf = x.bf;
  const std::vector<RunFigures>& cf = x.cf;
  auto per = [](double v, double steps) { return steps > 0 ? v / steps : v; };
  x.add(row(p.program, "", "eager_launches_per_step", "per step", Direction::kLowerIsBetter),
        per_run(bf, [&](const RunFigures& f) { return per(f.eager_launches, f.steps); }),
        per_run(cf, [&](const RunFigures& f) { return per(f.eager_launches, f.steps); }), p.rules.per_step);
  x.add(row(p.program, "", "syncs_per_step", "per step", Direction::kLowerIsBetter),
        per_run(bf, [&](const RunFigures& f) { return per(f.syncs, f.steps); }),
        per_run(cf, [&](const RunFigures& f) { return per(f.syncs, f.steps); }), p.rules.per_step);
  x.add(row(p.program, "", "graphs", "count", Direction::kNone), per_run(bf, [](const RunFigures& f) { return f.graphs; }),
        per_run(cf, [](const RunFigures& f) { return f.graphs; }), p.rules.count);
  x.add(row(p.program, "", "capture_failures", "count", Direction::kLowerIsBetter),
        per_run(bf, [](const RunFigures& f) { return f.capture_failures; }),
        per_run(cf, [](const RunFigures& f) { return f.capture_failures; }), p.rules.failures);
  x.add(row(p.program, "", "graphs_made_after_first_replay", "count", Direction::kLowerIsBetter),
        per_run(bf, [](const RunFigures& f) { return f.late_graphs; }), per_run(cf, [](const RunFigures& f) { return f.late_graphs; }),
        p.rules.count);
  std::vector<double> bw, cw;
  for (const ProfileAppRun* r : p.bruns) bw.push_back(r->wall_ns);
  for (const ProfileAppRun* r : p.cruns) cw.push_back(r->wall_ns);
  bw.erase(std::remove_if(bw.begin(), bw.end(), [](double v) { return !std::isfinite(v); }), bw.end());
  cw.erase(std::remove_if(cw.begin(), cw.end(), [](double v) { return !std::isfinite(v); }), cw.end());
  x.add(row(p.program, "", "wall_time", "ns", Direction::kLowerIsBetter), bw, cw, p.rules.host_time);
}

// The exact eager launches per step decide; the sites' sampled estimates say where they came from.
void name_sites_of_more_eager_launches(Comparison& out) {
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
}

// A failed application is not a profile of the program's graphs.
void add_failed_run_rows(const ProfilePair& pair, Comparison& out) {
  for (const auto& [side, p] : {std::pair<const char*, const ProfileSection*>{"baseline", &pair.bp}, {"candidate", &pair.cp}})
    for (const ProfileAppRun* r : profile_fields::runs(*p))
      if (r->exit_status.value_or(0) != 0) {
        MetricComparison f = row(pair.program, "", "*", "", Direction::kLowerIsBetter);
        f.rule.gating = true;
        f.verdict = side == std::string("candidate") ? Verdict::kFailed : Verdict::kNotComparable;
        f.reason = std::string("the application ") + r->exit + " in a " + side + " run";
        out.rows.push_back(std::move(f));
        break;
      }
}

}  // namespace

bool is_profile_report(const Report& r) { return profile_fields::app_result(r) != nullptr; }

void compare_profiles(const Report& base, const Report& cand, const Thresholds& t, Comparison& out) {
  const ProfileSection bp = *profile_fields::typed_section(base);
  const ProfileSection cp = *profile_fields::typed_section(cand);
  const ProfilePair p{base,
                      cand,
                      bp,
                      cp,
                      t,
                      cp.program.empty() ? bp.program.str() : cp.program.str(),
                      profile_fields::runs(bp),
                      profile_fields::runs(cp),
                      bp.processes.size() > 1 || cp.processes.size() > 1,
                      health_rules(t)};
  RunRows x{p, out, {}, {}};
  for (const ProfileAppRun* r : p.bruns) x.bf.push_back(profile_fields::run_totals(*r));
  for (const ProfileAppRun* r : p.cruns) x.cf.push_back(profile_fields::run_totals(*r));

  const std::size_t step_row = add_step_time_rows(x);
  add_coverage_rows(x);
  add_run_count_rows(x);
  // By call site: eager launches per step, graph memory, graphs made (profile_site_rows.cpp).
  compare_profile_sites(p.program, p.bruns, p.cruns, p.several_processes, t, out);
  name_sites_of_more_eager_launches(out);
  // Per graph (profile_graph_rows.cpp).
  compare_profile_graphs(p, step_row, out);
  add_failed_run_rows(p, out);
}

}  // namespace gp::compare_detail
