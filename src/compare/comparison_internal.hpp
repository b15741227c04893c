// Shared between the translation units of `graphprof compare` (one per job: matching and the
// output model in comparison.cpp, run_series.cpp, verdict_rules.cpp, environment_check.cpp,
// structure_drift.cpp, and the graph-health view of two profiles in profile_health.cpp,
// profile_site_rows.cpp and profile_graph_rows.cpp). Not a public header.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "graphprof/compare/comparison.hpp"
#include "graphprof/core/profile_section.hpp"
#include "graphprof/core/text_format.hpp"

namespace gp::compare_detail {

inline std::string pct(double fraction) { return strf("%g%%", 100.0 * fraction); }

using Key = std::tuple<std::string, std::string, std::string>;  // workload, params text, mode

// A result of one report after ignored parameters are dropped.
struct Indexed {
  std::map<std::string, std::string> params;
  const ModeResult* result = nullptr;
};

// Throws Error(kBadInput) naming `name` when the report lists one benchmark twice.
std::map<Key, Indexed> index_results(const Report& r, const std::vector<std::string>& ignore, const std::string& name);

// environment_check.cpp
EnvironmentCheck check_environment(const Report& base, const Report& cand, const Thresholds& t);
double sm_clock_khz(const Report& r, const ModeResult& res);

// Fills r.device_level / r.device_switches from the two results' probes.
void check_device_probes(const ModeResult& b, const ModeResult& c, MetricComparison& r);
// After judge/check_clock: a regression or improvement measured at different device levels is
// not credited to the code.
void apply_device_level(MetricComparison& r);

// structure_drift.cpp: graph node/edge/kind counts and output checksums.
void check_drift(const ModeResult& b, const ModeResult& c, const std::string& bench, std::vector<DriftItem>& out);

// run_series.cpp: one value per run from a metric's repetitions; nullopt with `why` when the
// data cannot give a ratio. `runs` is the number of processes behind the report.
std::optional<SideData> side_data(const Metric& m, int runs, int reps_per_run, double max_invalid,
                                  const std::string& side, std::string& why);

// profile_health.cpp: two reports of `graphprof profile` are compared by the graph-health view
// (rows appended to `out`, drift for graphs that changed shape), not result by result.
bool is_profile_report(const Report& r);
void compare_profiles(const Report& base, const Report& cand, const Thresholds& t, Comparison& out);

// The rule of one series of the graph-health view (docs/compare.md, "Two profiles").
enum class Kind { kFraction, kCount, kTime };
struct SeriesRule {
  Kind kind = Kind::kCount;
  double floor = 0;          // smallest change that matters, in the unit (fractions: points)
  bool categorical = false;  // any separation is a change, even with one run per side (capture failures)
  bool gating = true;
  double relative = -1;      // smallest relative change that matters; < 0: the --threshold
  // An exact count of a deterministic program (every call seen): one run a side that moved past the
  // threshold is a change, as two runs a side that each repeat one value are.
  bool exact = false;
};
// Judges one row from the per-run values of each side by `rule` (profile_health.cpp).
void decide(MetricComparison& r, const std::vector<double>& b, const std::vector<double>& c, const SeriesRule& rule,
            const Thresholds& t);
// A row of the view: workload `workload`, mode app, params {graph: `graph`} unless empty.
MetricComparison row(const std::string& workload, const std::string& graph, const std::string& metric, const std::string& unit,
                     Direction d);
// Judges `r` (decide) and appends it to out.rows, counted as compared where both sides have values.
void add_judged_row(Comparison& out, MetricComparison r, const std::vector<double>& b, const std::vector<double>& c,
                    const SeriesRule& rule, const Thresholds& t);
// The rules of the view's series (profile_health.cpp).
struct HealthRules {
  SeriesRule coverage, exact_coverage, per_step, count, failures, device_time, host_time;
};
HealthRules health_rules(const Thresholds& t);
// The two profiles compare_profiles compares, as its steps share them.
struct ProfilePair {
  const Report& base;
  const Report& cand;
  const ProfileSection& bp;
  const ProfileSection& cp;
  const Thresholds& t;
  std::string program;
  std::vector<const ProfileAppRun*> bruns, cruns;  // into bp and cp
  bool several_processes = false;
  HealthRules rules;
};
// profile_graph_rows.cpp: the rows per graph (nodes, launches, GPU time per launch, launch call
// cost, memory; drift for a graph that changed shape; a row per graph gone or new), and what the
// graphs say about the GPU time per step, out.rows[step_row].
void compare_profile_graphs(const ProfilePair& p, std::size_t step_row, Comparison& out);

// profile_site_rows.cpp: how sites are matched between the two sides — by what they are (file,
// function and the text of their line: both sides' profiles carry it), by their function (only one
// side's sites have source lines), or by `where` — and a graph's site as it is matched ("" when the
// report has none), with the name it is shown by.
enum class SiteMatch { kWhere, kFunction, kSource };
SiteMatch site_match(const std::vector<const ProfileAppRun*>& base_runs, const std::vector<const ProfileAppRun*>& cand_runs);
std::string graph_site_key(const ProfileGraph& graph, SiteMatch how);
std::string graph_site_label(const ProfileGraph& graph);
// profile_site_rows.cpp: the rows by call site (eager launches per step, graph memory, captures),
// from every run of each side.
void compare_profile_sites(const std::string& program, const std::vector<const ProfileAppRun*>& base_runs,
                           const std::vector<const ProfileAppRun*>& cand_runs, bool several_processes, const Thresholds& t,
                           Comparison& out);

// verdict_rules.cpp
// Pooled sd of two samples of sizes m and n with sds sd_x and sd_y (weighted by degrees of freedom).
double pooled_sd(double sd_x, std::size_t m, double sd_y, std::size_t n);
// Raises rule.threshold to expm1(noise_multiple x noise_sd) when that is above its floor
// (ThresholdBasis::kFloor rows only).
void apply_noise_term(AppliedRule& rule);
void estimate(MetricComparison& r, const Thresholds& t, std::size_t gating_series);
void judge(MetricComparison& r, const Thresholds& t);
void check_clock(MetricComparison& r, const Thresholds& t);
GateEffect effect_of(const MetricComparison& r, const Thresholds& t);
void decide_outcome(Comparison& c);

}  // namespace gp::compare_detail
