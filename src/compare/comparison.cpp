// `graphprof compare`: the output model (verdict names, counts, rules per metric), matching
// the results of two reports, suite summaries, and the order in which the jobs of the other
// compare units run (see include/graphprof/compare/comparison.hpp and docs/compare.md for the rules).
#include "graphprof/compare/comparison.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <tuple>

#include "comparison_internal.hpp"
#include "graphprof/compare/compare_format.hpp"
#include "graphprof/core/metric_catalog.hpp"
#include "graphprof/core/mode.hpp"
#include "graphprof/core/params.hpp"
#include "graphprof/core/stats.hpp"
#include "graphprof/core/name_match.hpp"
#include "graphprof/core/text_format.hpp"

namespace gp {

using namespace compare_detail;

const char* to_string(Verdict v) {
  switch (v) {
    case Verdict::kRegression: return "regression";
    case Verdict::kFailed: return "failed";
    case Verdict::kMissing: return "missing";
    case Verdict::kInvalid: return "invalid";
    case Verdict::kNotComparable: return "not_comparable";
    case Verdict::kInconclusive: return "inconclusive";
    case Verdict::kMinor: return "minor";
    case Verdict::kImprovement: return "improvement";
    case Verdict::kAdded: return "added";
    case Verdict::kSame: return "same";
  }
  return "inconclusive";
}

const char* to_string(GateEffect e) {
  switch (e) {
    case GateEffect::kPass: return "pass";
    case GateEffect::kFail: return "fail";
    case GateEffect::kUntrusted: return "untrusted";
  }
  return "pass";
}

const char* to_string(ThresholdBasis b) {
  switch (b) {
    case ThresholdBasis::kFloor: return "floor";
    case ThresholdBasis::kNoise: return "noise";
    case ThresholdBasis::kFixed: return "fixed";
    case ThresholdBasis::kDeterministic: return "count";
    case ThresholdBasis::kAbsolute: return "absolute";
  }
  return "floor";
}

int severity(Verdict v) { return static_cast<int>(v); }  // the enum is declared in reading order

std::string MetricComparison::benchmark() const {
  std::string s = workload;
  if (!params.empty()) s += "[" + params_text(params) + "]";
  return s + "/" + mode;
}

std::size_t Comparison::count(Verdict v) const {
  return static_cast<std::size_t>(std::count_if(rows.begin(), rows.end(), [v](const auto& r) { return r.verdict == v; }));
}

std::size_t Comparison::count_effect(GateEffect e) const {
  return static_cast<std::size_t>(std::count_if(rows.begin(), rows.end(), [e](const auto& r) { return r.effect == e; }));
}

bool glob_match(const std::string& pattern, const std::string& text) {
  // Iterative matcher with one backtrack point for the last '*': linear in practice.
  std::size_t p = 0, t = 0, star = std::string::npos, mark = 0;
  while (t < text.size()) {
    if (p < pattern.size() && (pattern[p] == '?' || pattern[p] == text[t])) {
      ++p;
      ++t;
    } else if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      mark = t;
    } else if (star != std::string::npos) {
      p = star + 1;
      t = ++mark;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

namespace {

bool pattern_matches(const std::string& pattern, const std::string& workload, const std::string& mode,
                     const std::string& metric) {
  if (pattern.find('/') != std::string::npos) return glob_match(pattern, workload + "/" + mode + "/" + metric);
  return glob_match(pattern, metric);
}

}  // namespace

std::vector<std::string> unmatched_options(const Report& base, const Report& cand, const Thresholds& t) {
  std::set<std::string> metrics, params;
  auto matches_any = [&](const std::string& pattern) {
    for (const Report* rep : {&base, &cand})
      for (const auto& r : rep->results)
        for (const auto& [key, m] : r.metrics)
          if (pattern_matches(pattern, r.workload, to_string(r.mode), key)) return true;
    return false;
  };
  for (const Report* rep : {&base, &cand})
    for (const auto& r : rep->results) {
      for (const auto& [key, m] : r.metrics) metrics.insert(key);
      for (const auto& [k, v] : r.params) params.insert(k);
    }
  auto some = [](const std::set<std::string>& names) {
    std::string s;
    std::size_t n = 0;
    for (const auto& x : names) {
      if (++n > 8) return s + ", ...";
      s += (s.empty() ? "" : ", ") + x;
    }
    return s.empty() ? std::string("none") : s;
  };
  std::vector<std::string> out;
  const std::vector<std::string> metric_list(metrics.begin(), metrics.end()), param_list(params.begin(), params.end());
  auto suggestion = [](const std::string& word, const std::vector<std::string>& names) {
    const std::string near = closest_name(word, names, 3);
    return near.empty() ? std::string() : "did you mean " + near + "? ";
  };
  auto check = [&](const char* option, const std::string& pattern, const std::string& shown) {
    if (matches_any(pattern)) return;
    const bool plain = pattern.find_first_of("*?/") == std::string::npos;
    out.push_back(std::string(option) + " " + shown + ": '" + pattern + "' matches no metric in either report (" +
                  (plain ? suggestion(pattern, metric_list) : "") +
                  (pattern.find('/') != std::string::npos ? "WORKLOAD/MODE/METRIC; " : "") + "metrics: " + some(metrics) + ")");
  };
  for (const auto& g : t.gate_patterns) check("--gate", g, g);
  for (const auto& pv : t.metric_thresholds) check("--metric-threshold", pv.pattern, pv.pattern + "=" + strf("%g", 100 * pv.value));
  for (const auto& pv : t.abs_floors) check("--abs-floor", pv.pattern, pv.pattern + "=" + strf("%g", pv.value));
  for (const auto& p : t.ignore_params)
    if (!params.count(p))
      out.push_back("--ignore-param " + p + ": no result in either report has a parameter '" + p + "' (" +
                    suggestion(p, param_list) + "parameters: " + some(params) + ")");
  return out;
}

AppliedRule rule_for(const Thresholds& t, const std::string& workload, const std::string& mode,
                     const std::string& metric, const std::string& unit, bool waits_for_host) {
  AppliedRule r;
  auto matches = [&](const std::string& p) { return pattern_matches(p, workload, mode, metric); };
  r.threshold = t.threshold;
  // A count is the same in every run unless the code changed: it never gets a noise term.
  r.threshold_basis = unit == "count" ? ThresholdBasis::kDeterministic : ThresholdBasis::kFloor;
  for (const auto& pv : t.metric_thresholds)
    if (matches(pv.pattern)) {
      r.threshold = pv.value;
      r.threshold_basis = ThresholdBasis::kFixed;
    }
  r.threshold_floor = r.threshold;
  r.noise_multiple = t.noise_multiple;
  r.noise_floor = t.noise_floor;
  if (unit == "ns") {
    r.abs_floor = t.default_abs_floor_ns;
    for (const auto& pv : t.default_abs_floors)
      if (matches(pv.pattern)) r.abs_floor = pv.value;
  }
  for (const auto& pv : t.abs_floors)
    if (matches(pv.pattern)) r.abs_floor = pv.value;
  r.series_class = series_class(metric, mode, waits_for_host);
  r.class_sd = class_between_run_sd(r.series_class, mode);
  r.gating = r.series_class == SeriesClass::kDevice || std::any_of(t.gate_patterns.begin(), t.gate_patterns.end(), matches);
  r.clock_sensitive = std::any_of(t.clock_patterns.begin(), t.clock_patterns.end(), matches);
  return r;
}

namespace {

// ---------------------------------------------------------------------------------------------
// Matching

int mode_rank(const std::string& mode) {
  const auto m = mode_from_string(mode);
  return m ? static_cast<int>(*m) : 100;
}

// The catalogue's display order: per-iteration figures first (the ones that gate by default),
// then one-off costs; a row about a whole result ("*") before them, unknown keys after.
int metric_rank(const std::string& key) { return key == "*" ? -1 : metric_order(key); }

}  // namespace

std::map<Key, Indexed> compare_detail::index_results(const Report& r, const std::vector<std::string>& ignore,
                                                     const std::string& name) {
  std::map<Key, Indexed> out;
  std::map<Key, std::size_t> where;
  for (std::size_t i = 0; i < r.results.size(); ++i) {
    const ModeResult& res = r.results[i];
    std::map<std::string, std::string> params = res.params;
    for (const auto& p : ignore) params.erase(p);
    const Key k{res.workload, params_text(params), to_string(res.mode)};
    auto [it, fresh] = where.emplace(k, i);
    if (!fresh) {
      throw input_error(name + ": results[" + std::to_string(it->second) + "] and results[" + std::to_string(i) +
                        "] are both " + res.workload + "[" + params_text(params) + "]/" + to_string(res.mode) +
                        (ignore.empty() ? "" : " (after --ignore-param)") + "; each benchmark may appear once");
    }
    out[k] = Indexed{std::move(params), &res};
  }
  return out;
}

namespace {

// Processes behind a report: `graphprof merge`, `run --processes` and pooled folders record
// them; a plain report is one process.
// Read reports hold at most 2^31 - 1 of either (run_settings.cpp); a merge in memory may sum more.
int runs_of(const Report& r) {
  return static_cast<int>(std::min<long long>(r.settings.processes_or_one(), std::numeric_limits<int>::max()));
}

int reps_per_run(const Report& r) {
  if (!r.settings.repetitions) return 0;
  return static_cast<int>(std::clamp<long long>(*r.settings.repetitions, 1, std::numeric_limits<int>::max()));
}

// The latched pass could not queue an iteration: it waits for the host (docs/compare.md).
bool waits_for_host(const ModeResult& r) {
  return !r.sections.latched.empty();
}

// (workload, params) whose graph replay waits for the host: its work itself has host steps, so
// every mode of it is host-class. A wait in eager alone (a host-driven loop, as `while` has)
// says nothing about the graph modes.
using HostBound = std::set<std::pair<std::string, std::string>>;
void add_host_bound(const std::map<Key, Indexed>& idx, HostBound& out) {
  for (const auto& [k, v] : idx)
    if (std::get<2>(k) != "eager" && waits_for_host(*v.result)) out.insert({std::get<0>(k), std::get<1>(k)});
}

// Words for a result that did not produce numbers.
std::string status_text(const ModeResult& r) {
  std::string s = to_string(r.status);
  if (!r.reason.empty()) s += ": " + r.reason;
  if (r.failure && !r.failure->hint.empty()) s += " (fix: " + r.failure->hint + ")";
  return s;
}

MetricComparison result_row(const Key& k, const std::map<std::string, std::string>& params, Verdict v,
                            std::string reason) {
  MetricComparison r;
  r.workload = std::get<0>(k);
  r.mode = std::get<2>(k);
  r.params = params;
  r.metric = "*";
  r.unit = "";
  r.rule.gating = true;
  r.verdict = v;
  r.reason = std::move(reason);
  return r;
}

void compare_metrics(const Indexed& bi, const Indexed& ci, const Report& base, const Report& cand,
                     const Thresholds& t, bool host_bound, Comparison& out) {
  const ModeResult& b = *bi.result;
  const ModeResult& c = *ci.result;
  std::set<std::string> names;
  for (const auto& [n, m] : b.metrics) names.insert(n);
  for (const auto& [n, m] : c.metrics) names.insert(n);
  const double bclock = sm_clock_khz(base, b), cclock = sm_clock_khz(cand, c);
  for (const auto& name : names) {
    MetricComparison r;
    r.workload = b.workload;
    r.mode = to_string(b.mode);
    r.params = bi.params;
    r.metric = name;
    const auto bm = b.metrics.find(name);
    const auto cm = c.metrics.find(name);
    const Metric& any = bm != b.metrics.end() ? bm->second : cm->second;
    r.unit = any.unit;
    r.direction = any.direction;
    r.rule = rule_for(t, r.workload, r.mode, name, r.unit, host_bound || waits_for_host(b) || waits_for_host(c));
    if (cm == c.metrics.end()) {
      r.verdict = Verdict::kMissing;
      r.reason = "no longer measured by the candidate";
    } else if (bm == b.metrics.end()) {
      r.verdict = Verdict::kAdded;
      r.reason = "new in the candidate";
    } else if (bm->second.unit != cm->second.unit) {
      r.verdict = Verdict::kNotComparable;
      r.reason = "unit changed: " + bm->second.unit + " -> " + cm->second.unit;
    } else if (bm->second.direction != cm->second.direction) {
      r.verdict = Verdict::kNotComparable;
      r.reason = std::string("direction changed: ") + to_string(bm->second.direction) + " -> " +
                 to_string(cm->second.direction);
    } else {
      std::string why;
      auto bs = side_data(bm->second, runs_of(base), reps_per_run(base), t.max_invalid_fraction, "baseline", why);
      auto cs = bs ? side_data(cm->second, runs_of(cand), reps_per_run(cand), t.max_invalid_fraction, "candidate", why)
                   : std::nullopt;
      if (!bs || !cs) {
        r.verdict = Verdict::kInvalid;
        r.reason = why;
      } else {
        bs->sm_clock_khz = bclock;
        cs->sm_clock_khz = cclock;
        r.base = std::move(bs);
        r.cand = std::move(cs);
        check_device_probes(b, c, r);
        for (const auto* side : {&*r.base, &*r.cand}) {
          const char* who = side == &*r.base ? "baseline" : "candidate";
          if (side->dropped_samples > 0)
            r.notes.push_back(std::string(who) + ": " + std::to_string(side->dropped_samples) +
                              " non-finite samples ignored");
          if (side->dropped_reps > 0)
            r.notes.push_back(std::string(who) + ": " + std::to_string(side->dropped_reps) +
                              " empty repetitions ignored");
        }
        ++out.compared;
      }
    }
    out.rows.push_back(std::move(r));
  }
}

void compare_result(const Key& k, const Indexed* bi, const Indexed* ci, const Report& base, const Report& cand,
                    const Thresholds& t, const HostBound& host_bound, Comparison& out) {
  const auto& params = bi ? bi->params : ci->params;
  if (bi && !ci) {
    const bool was_ok = bi->result->status == Status::kOk;
    out.rows.push_back(result_row(k, params, Verdict::kMissing,
                                  was_ok ? "not in the candidate report"
                                         : "not in the candidate report (baseline: " + status_text(*bi->result) + ")"));
    if (!was_ok) out.rows.back().rule.gating = false;
    return;
  }
  if (!bi && ci) {
    const bool ok = ci->result->status == Status::kOk;
    out.rows.push_back(result_row(k, params, Verdict::kAdded,
                                  ok ? "new in the candidate" : "new in the candidate: " + status_text(*ci->result)));
    return;
  }
  const ModeResult& b = *bi->result;
  const ModeResult& c = *ci->result;
  const bool bok = b.status == Status::kOk, cok = c.status == Status::kOk;
  if (bok && cok) {
    const std::size_t before = out.drift.size();
    check_drift(b, c, result_row(k, params, Verdict::kSame, "").benchmark(), out.drift);
    const std::size_t first_row = out.rows.size();
    compare_metrics(*bi, *ci, base, cand, t, host_bound.count({std::get<0>(k), std::get<1>(k)}) > 0, out);
    if (out.drift.size() > before)
      for (std::size_t i = first_row; i < out.rows.size(); ++i) out.rows[i].notes.push_back("structure drift, see above");
    return;
  }
  if (bok && c.status == Status::kFailed) {
    out.rows.push_back(result_row(k, params, Verdict::kFailed, "worked in the baseline, " + status_text(c)));
  } else if (bok) {
    out.rows.push_back(result_row(k, params, Verdict::kMissing, "worked in the baseline, now " + status_text(c)));
  } else if (cok) {
    out.rows.push_back(result_row(k, params, Verdict::kAdded, "works now; baseline " + status_text(b)));
  } else {
    auto row = result_row(k, params, Verdict::kNotComparable,
                          "no numbers on either side: baseline " + status_text(b) + "; candidate " + status_text(c));
    row.rule.gating = false;
    out.rows.push_back(std::move(row));
  }
}

InputInfo input_info(const Report& r, const std::string& label) {
  InputInfo i;
  i.label = label;
  i.tool_version = r.tool_version;
  i.git_revision = r.git_revision;
  i.created_utc = r.created_utc;
  i.gpu = r.environment.gpu;
  i.host_cpu = r.environment.host.cpu_model;
  for (const auto& res : r.results)
    for (const auto& [k, m] : res.metrics) i.repetitions = std::max(i.repetitions, static_cast<int>(m.repetitions.size()));
  i.runs = runs_of(r);
  return i;
}

void summarize_suite(Comparison& c) {
  // Geometric means over matched metrics with an estimate, per metric key. A row estimated from
  // sampled call stacks is left out: between two runs of one program its ratio moves by the
  // sampling alone (one site 0.11 to 3.4 launches per step in ten runs, the exact total 4.38 in each).
  std::map<std::string, std::pair<double, std::size_t>> per_metric;
  double gate_sum = 0;
  std::size_t gate_n = 0;
  std::vector<double> gate_bad;
  for (const auto& r : c.rows) {
    if (!r.has_estimate || r.sampled || r.verdict == Verdict::kNotComparable) continue;
    auto& acc = per_metric[r.metric];
    acc.first += std::log(r.ratio);
    ++acc.second;
    if (r.rule.gating && r.direction != Direction::kNone) {
      const double bad = (r.direction == Direction::kHigherIsBetter ? -1.0 : 1.0) * std::log(r.ratio);
      gate_sum += bad;
      ++gate_n;
      gate_bad.push_back(bad);
    }
  }
  std::vector<std::pair<std::string, std::pair<double, std::size_t>>> ordered(per_metric.begin(), per_metric.end());
  std::stable_sort(ordered.begin(), ordered.end(),
                   [](const auto& a, const auto& b) { return metric_rank(a.first) < metric_rank(b.first); });
  for (const auto& entry : ordered) {
    // Not a structured binding: clang before 16 cannot capture those in a lambda.
    const std::string& name = entry.first;
    const bool gates = std::any_of(c.rows.begin(), c.rows.end(),
                                   [&name](const MetricComparison& r) { return r.metric == name && r.rule.gating; });
    c.geomeans.push_back(
        {name, entry.second.second, std::exp(entry.second.first / static_cast<double>(entry.second.second)), gates});
  }
  if (gate_n > 0)
    c.geomeans.push_back({"all gating metrics", gate_n, std::exp(gate_sum / static_cast<double>(gate_n)), true});

  // Many benchmarks moving together is the signature of the machine (clocks, load, another
  // runner), not of one code change; say so, per metric key and over all gating metrics.
  const double F = std::log1p(c.thresholds.noise_floor);
  auto shift_banner = [&](const std::string& what, const std::vector<double>& bad) {
    if (bad.size() < 5) return;
    const double mid = median(bad);
    const auto moved = std::count_if(bad.begin(), bad.end(), [&](double v) { return mid > 0 ? v > F : v < -F; });
    // Shifts of a percent or two are ordinary between-run noise that the threshold absorbs;
    // the banner is for shifts that approach the threshold.
    const double big = std::max(F, 0.5 * std::log1p(c.thresholds.threshold));
    if (std::fabs(mid) < big || static_cast<double>(moved) < 0.8 * static_cast<double>(bad.size())) return;
    c.banners.push_back("suite-wide shift: " + what + " is " + (mid > 0 ? "worse" : "better") + " on " +
                        std::to_string(moved) + " of " + std::to_string(bad.size()) + " benchmarks (median " +
                        format_change(std::exp(mid)) +
                        "); a change this uniform often comes from the machine (clocks, load, another runner): "
                        "check the environment before crediting or blaming the code");
  };
  for (const auto& entry : ordered) {
    std::vector<double> bad;
    for (const auto& r : c.rows)
      if (r.metric == entry.first && r.rule.gating && r.has_estimate && r.verdict != Verdict::kNotComparable &&
          r.direction != Direction::kNone)
        bad.push_back((r.direction == Direction::kHigherIsBetter ? -1.0 : 1.0) * std::log(r.ratio));
    shift_banner(entry.first, bad);
  }
  if (c.banners.empty()) shift_banner("all gating metrics", gate_bad);
}

// Result by result: workload, parameters and mode name a benchmark on both sides.
void compare_results(const Report& base, const Report& cand, const Thresholds& t, const InputNames& names, Comparison& out) {
  const auto bidx = index_results(base, t.ignore_params, names.baseline);
  const auto cidx = index_results(cand, t.ignore_params, names.candidate);
  HostBound host_bound;
  add_host_bound(bidx, host_bound);
  add_host_bound(cidx, host_bound);
  std::set<Key> keys;
  for (const auto& [k, v] : bidx) keys.insert(k);
  for (const auto& [k, v] : cidx) keys.insert(k);
  std::vector<Key> ordered(keys.begin(), keys.end());
  std::stable_sort(ordered.begin(), ordered.end(), [](const Key& a, const Key& b) {
    return std::make_tuple(std::get<0>(a), std::get<1>(a), mode_rank(std::get<2>(a)), std::get<2>(a)) <
           std::make_tuple(std::get<0>(b), std::get<1>(b), mode_rank(std::get<2>(b)), std::get<2>(b));
  });
  for (const Key& k : ordered) {
    const auto bi = bidx.find(k);
    const auto ci = cidx.find(k);
    const std::size_t first = out.rows.size();
    compare_result(k, bi == bidx.end() ? nullptr : &bi->second, ci == cidx.end() ? nullptr : &ci->second, base, cand,
                   t, host_bound, out);
    std::stable_sort(out.rows.begin() + static_cast<std::ptrdiff_t>(first), out.rows.end(),
                     [](const MetricComparison& a, const MetricComparison& b) {
                       return std::make_tuple(metric_rank(a.metric), a.metric) < std::make_tuple(metric_rank(b.metric), b.metric);
                     });
  }

  // The suite-wide false-alarm budget is split over the gating series that have data.
  for (const auto& r : out.rows)
    if (r.base && r.cand && r.rule.gating) ++out.gating_series;
  for (auto& r : out.rows) {
    if (!(r.base && r.cand)) continue;
    estimate(r, t, out.gating_series);
    judge(r, t);
    if (r.direction == Direction::kNone && (r.verdict == Verdict::kRegression || r.verdict == Verdict::kImprovement)) {
      r.verdict = Verdict::kMinor;
      r.reason = "changed by " + format_change(r.ratio) + " (the metric has no better direction)";
    }
    check_clock(r, t);
    apply_device_level(r);
  }
}

}  // namespace

Comparison compare(const Report& base, const Report& cand, const Thresholds& t, const InputNames& names) {
  Comparison out;
  out.thresholds = t;
  out.baseline = input_info(base, names.baseline);
  out.candidate = input_info(cand, names.candidate);
  out.environment = check_environment(base, cand, t);

  if (is_profile_report(base) && is_profile_report(cand)) {
    // Two profiles of one program: the graph-health view decides every row itself.
    compare_profiles(base, cand, t, out);
    for (const auto& r : out.rows)
      if (r.base && r.cand && r.rule.gating) ++out.gating_series;
  } else {
    compare_results(base, cand, t, names, out);
  }

  // Different GPUs: the numbers are still shown, but no verdict about the code is drawn.
  if (!out.environment.comparable) {
    std::string what;
    for (const auto& d : out.environment.differences)
      if (d.hard) what += (what.empty() ? "" : ", ") + d.key;
    for (auto& r : out.rows) {
      if (r.has_estimate) {
        r.notes.push_back(std::string("on the same GPU this would read: ") + to_string(r.verdict) + ", " + r.reason);
        r.verdict = Verdict::kNotComparable;
        r.reason = "environment differs: " + what + " (see the warnings)";
      }
    }
  }
  for (auto& r : out.rows) {
    r.effect = effect_of(r, t);
    if (!out.environment.comparable && r.effect == GateEffect::kFail) r.effect = GateEffect::kUntrusted;
  }
  summarize_suite(out);
  decide_outcome(out);
  return out;
}

}  // namespace gp
