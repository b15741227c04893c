// `graphprof compare`: matches the results of a baseline and a candidate report, decides a
// verdict per metric from independent repetitions, checks that the two runs are comparable at
// all, and picks the exit code. Plain data in, plain data out: the reporters in
// src/report/compare_*.cpp render a Comparison and never recompute a number.
// docs/compare.md explains every rule and default.
#pragma once
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "graphprof/error.hpp"
#include "graphprof/report.hpp"

namespace gp {

// Semantic version of the JSON that `compare --json` writes.
inline constexpr const char* kCompareSchemaVersion = "1.0.0";

enum class Verdict {
  kRegression,     // worse by at least the threshold, and the 99% CI clears the noise floor
  kFailed,         // the mode worked in the baseline and fails now
  kMissing,        // in the baseline, not in the candidate
  kInvalid,        // NaN/empty/non-positive data: no ratio can be trusted
  kNotComparable,  // different GPU, unit or direction changed, a clock change explains the time
  kInconclusive,   // neither a change nor sameness could be shown; `reason` says why
  kMinor,          // a real change (CI clears the floor) smaller than the threshold or absolute floor
  kImprovement,    // better by at least the threshold, CI clears the floor
  kAdded,          // in the candidate only
  kSame,           // shown to be within +-threshold (90% CI inside the band)
};
const char* to_string(Verdict v);

// What a row does to the exit code.
enum class GateEffect {
  kPass,       // no effect
  kFail,       // exit 1
  kUntrusted,  // exit 5 unless something fails
};
const char* to_string(GateEffect e);

// A per-metric override; `pattern` is a glob (* and ?) matched against the metric key, or,
// when it contains '/', against "workload/mode/metric".
struct PatternValue {
  std::string pattern;
  double value = 0;
};

struct Thresholds {
  double threshold = 0.05;    // practical significance: smaller changes never fail the gate
  double noise_floor = 0.01;  // the 99% CI must clear this before a change counts as real
  std::optional<double> gross;  // gross rule for too few repetitions; default 2 * threshold
  double gate_level = 0.99;     // CI level for regression/improvement
  double same_level = 0.90;     // CI level for the equivalence (same) test
  double max_invalid_fraction = 0.01;  // more non-finite samples than this -> invalid
  double clock_tolerance = 0.02;       // SM clock ratios closer to 1 than this are the same clock
  // Metrics that decide the exit code; the others are reported as information.
  std::vector<std::string> gate_patterns{"gpu_time_per_iter", "wall_time_per_iter", "launch_cpu_per_call"};
  // Metrics whose time scales with the SM clock (checked in cycles when clocks differ).
  std::vector<std::string> clock_patterns{"gpu_time_per_iter*"};
  std::vector<PatternValue> metric_thresholds;  // last match wins
  // Absolute floors: a change smaller than this (in the metric's unit) never fails the gate.
  // Defaults apply to "ns" metrics only: about the cost of one host clock read for host-timed
  // figures, about three ticks of the CUDA event clock (32 ns on H200) for GPU time.
  double default_abs_floor_ns = 20.0;
  std::vector<PatternValue> default_abs_floors{{"gpu_time_per_iter*", 100.0}};
  std::vector<PatternValue> abs_floors;  // user overrides for any unit; last match wins
  std::vector<std::string> ignore_params;  // parameter names dropped before matching
  bool allow_env_mismatch = false;
  bool allow_missing = false;
  bool strict = false;          // an inconclusive "likely regression" fails too
  bool fail_on_drift = false;   // graph structure or output checksum changes fail too
  // Widen every interval by the between-run noise that the suite shows (see docs/compare.md).
  bool suite_noise = true;
};

// Fewest benchmarks of one (metric, mode) from which between-run noise is estimated.
inline constexpr std::size_t kMinSuiteNoiseGroup = 5;

// The rule applied to one metric, after pattern overrides.
struct AppliedRule {
  double threshold = 0, noise_floor = 0, gross = 0, abs_floor = 0;
  bool gating = false;
  bool clock_sensitive = false;
};

// One side of one metric, reduced to what the statistics use.
struct SideData {
  std::vector<double> reps;      // median of each usable repetition, in the metric's unit
  std::size_t samples = 0;       // finite samples used
  std::size_t dropped_samples = 0;  // non-finite samples
  std::size_t dropped_reps = 0;     // repetitions without one finite sample
  std::vector<double> outlier_reps; // repetition medians set aside as hiccups (see docs/compare.md)
  double center = 0;             // median of `reps`
  double spread = 0;             // relative: robust sd of log(reps), or the within-run CI half-width for one rep
  double rep_ci_low = 0, rep_ci_high = 0;  // lowest CI low / highest CI high over repetitions
  double sm_clock_khz = 0;       // 0 when unknown
};

// A ratio interval (candidate / baseline) from a log-scale shift interval.
struct RatioInterval {
  bool available = false;
  double low = 0, high = 0;
  double level = 0, coverage = 0;
  std::size_t rank = 0;
  bool exact = true;
};

struct MetricComparison {
  std::string workload, mode;
  std::map<std::string, std::string> params;  // as matched (ignored parameters removed)
  std::string metric;  // "*" for a row about a whole (workload, mode, params) result
  std::string unit;
  Direction direction = Direction::kLowerIsBetter;
  AppliedRule rule;
  Verdict verdict = Verdict::kInconclusive;
  GateEffect effect = GateEffect::kPass;
  std::string reason;  // one line, always set
  std::string method;  // "exact-rank", "normal-approx", "gross-rule", "" when no statistics ran
  bool likely_regression = false;  // inconclusive, but the point estimate is beyond the threshold
  std::optional<SideData> base, cand;
  bool has_estimate = false;
  double ratio = 1;  // candidate / baseline (Hodges-Lehmann, on log scale)
  RatioInterval ci_gate_reps, ci_same_reps;  // from the repetitions alone
  double between_run_sd = 0;                 // log-scale sd added from the suite (0: none)
  double between_run_df = 0;                 // its degrees of freedom
  double between_run_t_gate = 0, between_run_t_same = 0;  // t quantiles the sd is multiplied by
  RatioInterval ci_gate, ci_same;            // what the verdict used: the above, widened
  double abs_change = 0;  // base.center * (ratio - 1), in the unit
  std::optional<double> cycle_ratio;  // ratio in SM cycles when clocks are known on both sides
  std::vector<std::string> notes;     // drift, clocks, dropped data

  std::string benchmark() const;  // "chain[elements=4096,kernels=100]/graph"
};

struct EnvDifference {
  std::string key, baseline, candidate;
  bool hard = false;  // makes the runs not comparable unless allowed
};

struct EnvironmentCheck {
  bool comparable = true;                 // no hard difference (or allowed)
  std::vector<EnvDifference> differences;  // hard first, then soft, each in a fixed key order
  std::vector<std::string> warnings;       // human lines for banners
};

// Between-run noise of one (metric, mode) group, estimated from the suite.
struct SuiteNoise {
  std::string metric, mode;
  std::size_t n = 0;
  std::size_t kept = 0;   // benchmarks left after those far out (real changes) are set aside
  double total_sd = 0;    // sd of the kept benchmarks' log shifts around their median
  double within_sd = 0;   // median sd that the repetitions themselves explain
  double between_sd = 0;  // sqrt(total^2 - within^2): what widens the intervals
  double t_gate = 0;      // the t quantile it is multiplied by for the gate's interval
};

struct DriftItem {
  std::string benchmark;  // workload[params]/mode
  std::string what;       // "graph nodes 100 -> 120"
};

struct GeomeanItem {
  std::string metric;  // a metric key, or "all gating metrics"
  std::size_t n = 0;
  double ratio = 1;    // candidate / baseline; for the gating total, >1 always means worse
  bool gating = false; // the metric gates somewhere (human outputs show only these)
};

// Where each report came from, for the headers of every output.
struct InputInfo {
  std::string label;  // file path as given, or "baseline"/"candidate"
  std::string tool_version, git_revision, created_utc;
  std::optional<GpuInfo> gpu;
  std::string host_cpu;
  int repetitions = 0;  // most repetitions seen in any metric
  int reports = 1;      // how many reports were pooled into this side
};

struct Comparison {
  InputInfo baseline, candidate;
  Thresholds thresholds;
  std::string command;  // the command line that produced it (for "reproduce locally")
  EnvironmentCheck environment;
  std::vector<MetricComparison> rows;  // sorted by workload, params, mode, metric
  std::vector<DriftItem> drift;
  std::vector<GeomeanItem> geomeans;  // per metric key, then the gating total
  std::vector<std::string> banners;   // suite-level observations, e.g. a suite-wide shift
  std::vector<SuiteNoise> suite_noise;  // groups large enough to estimate between-run noise
  std::size_t compared = 0;           // rows where both sides had data and statistics ran
  ExitCode exit_code = ExitCode::kOk;
  std::string exit_reason;            // one line

  std::size_t count(Verdict v) const;
  std::size_t count_effect(GateEffect e) const;
};

// Labels for messages about the inputs (duplicate results and the like).
struct InputNames {
  std::string baseline = "baseline";
  std::string candidate = "candidate";
};

// Throws Error(kBadInput) naming the input when a report lists the same (workload, mode,
// params) twice, after `thresholds.ignore_params` is applied.
Comparison compare(const Report& base, const Report& cand, const Thresholds& thresholds,
                   const InputNames& names = {});

// Pools several reports of one side (for example one `graphprof run --repetitions 1` process
// each) into one: the repetitions of each (workload, mode, params, metric) are concatenated in
// the order given, so every process contributes independent repetitions. The header, the
// environment and the settings come from the first report. Throws Error(kBadInput) naming the
// source when one report lists a benchmark twice, and Error(kUntrusted) when the reports were
// measured on different GPU models.
Report pool_reports(const std::vector<Report>& reports, const std::vector<std::string>& sources);

// Glob match with * and ?; used for metric patterns.
bool glob_match(const std::string& pattern, const std::string& text);

// The rule a metric gets from the thresholds.
AppliedRule rule_for(const Thresholds& t, const std::string& workload, const std::string& mode,
                     const std::string& metric, const std::string& unit);

// Severity rank used to order rows in every human output (regressions first).
int severity(Verdict v);

}  // namespace gp
