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

#include "graphprof/compare/compare_classes.hpp"
#include "graphprof/core/error.hpp"
#include "graphprof/core/report.hpp"

namespace gp {

// Semantic version of the JSON that `compare --json` writes.
inline constexpr const char* kCompareSchemaVersion = "2.3.0";

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

// Runs (processes) per side that graphprof advises everywhere: on the H200, 5 against 5 decided
// device-time changes of 7 % and more in every draw, and device time in capture/graph needs 5 for
// 80 % power at 5 % (docs/compare.md, "How many runs").
inline constexpr int kRunsPerSide = 5;

// Per-row thresholds follow the series' own noise (docs/compare.md, "The threshold of a row"):
// threshold = max(floor, expm1(noise_multiple x s)), s the pooled between-run sd of the log run
// values of both sides; the floor is --threshold, a --metric-threshold fixes a series' threshold.
struct Thresholds {
  double threshold = 0.03;    // the threshold floor: smaller changes never fail the gate
  double noise_multiple = 3.0;  // k of the noise term; 0 = every row at the floor (fixed thresholds)
  double noise_floor = 0.01;  // the one-sided bound must clear this before a change counts as real
  // Suite-wide false-alarm rate: the chance that an A/A comparison shows at least one gating
  // "regression". Split evenly (Bonferroni) over the gating series of the comparison.
  double family_alpha = 0.01;
  double same_level = 0.90;   // CI level for the equivalence (same) test, per series
  std::size_t min_runs = 3;   // fewer runs on a side: the class's between-run noise is assumed
  double max_invalid_fraction = 0.01;  // more non-finite samples than this -> invalid
  double clock_tolerance = 0.02;       // SM clock ratios closer to 1 than this are the same clock
  // Metrics that gate in addition to the device class (`--gate`): host-class metrics a user
  // chooses to gate on, judged by their own between-run noise like every other series.
  std::vector<std::string> gate_patterns;
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
};

// Where a row's threshold comes from.
enum class ThresholdBasis {
  kFloor,          // the floor (--threshold): the series is stable, or its noise is unknown (too few runs)
  kNoise,          // noise_multiple x the series' pooled between-run sd, above the floor
  kFixed,          // set by --metric-threshold: no noise term
  kDeterministic,  // a count (unit "count"): the floor, never a noise term
  kAbsolute,       // an absolute change (abs_floor, in the unit) that is above the relative threshold:
                   // the counts and fractions of compare's view of two profiles
};
const char* to_string(ThresholdBasis b);

// The rule applied to one metric, after pattern overrides.
struct AppliedRule {
  // `threshold` is the one this row is judged by (set by rule_for, raised by the noise term when
  // the statistics run); `threshold_floor` what the options give before the noise term.
  double threshold = 0, threshold_floor = 0, noise_floor = 0, abs_floor = 0;
  ThresholdBasis threshold_basis = ThresholdBasis::kFloor;
  double noise_sd = 0;  // pooled between-run sd (log scale) of both sides; 0 without own runs
  double noise_multiple = 0;  // the k the noise term used (Thresholds::noise_multiple)
  SeriesClass series_class = SeriesClass::kInfo;
  double class_sd = 0;  // log-scale between-run sd assumed for the class when runs are too few
  bool gating = false;  // device class, or named by --gate
  bool clock_sensitive = false;
};

// One side of one metric, reduced to what the statistics use.
struct SideData {
  std::vector<double> reps;      // one value per run (process): the median of its repetitions' medians
  std::size_t samples = 0;       // finite samples used
  std::size_t dropped_samples = 0;  // non-finite samples
  std::size_t dropped_reps = 0;     // repetitions without one finite sample
  double center = 0;             // median of `reps`
  double spread = 0;             // sd of log(reps) (between-run noise), 0 for one run
  std::size_t runs = 0;          // independent runs (processes): reps.size()
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

// The device-level check of one row (docs/compare.md, "Device level") as data: the device probe
// of each side (ns per kernel of a chain of empty kernels, measured before its result; a merged
// side: its first process with a probe) and what the check found. A side without a probe reads 0.
struct DeviceLevelCheck {
  double baseline_ns = 0, candidate_ns = 0;
  bool differs = false;  // both sides probed, levels more than kDeviceLevelTolerance apart
  bool baseline_switched = false, candidate_switched = false;  // a side's probes differ among themselves
  bool measured() const { return baseline_ns > 0 || candidate_ns > 0; }
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
  std::string method;  // "welch-t", "class-noise", "" when no statistics ran
  bool likely_regression = false;  // inconclusive, but the point estimate is beyond the threshold
  bool not_enough_runs = false;    // undecided because a side has fewer than min_runs runs
  bool sampled = false;  // figures estimated from sampled call stacks: left out of the geomeans
  std::optional<SideData> base, cand;
  bool has_estimate = false;
  double ratio = 1;  // candidate / baseline: exp of the difference of mean log run values
  double std_error = 0;  // log scale, of that difference (Welch, or from the class's noise)
  double df = 0;         // Welch-Satterthwaite degrees of freedom (0: normal, class noise)
  double critical = 0;   // one-sided quantile at family_alpha / gating series (Bonferroni)
  std::size_t runs_needed = 0;  // runs per side to detect a change of the threshold (0: n/a)
  RatioInterval ci_gate, ci_same;  // gate interval (Bonferroni level) and equivalence interval
  double abs_change = 0;  // base.center * (ratio - 1), in the unit
  std::optional<double> cycle_ratio;  // ratio in SM cycles when clocks are known on both sides
  std::vector<std::string> notes;     // drift, clocks, dropped data, device level
  // Set when both results carry sections.device_probe and their ns_per_kernel differ by more
  // than kDeviceLevelTolerance: "device level differs: base 508 ns/kernel, ...". A regression or
  // improvement of such a row is not credited to the code (docs/compare.md, "Device level").
  std::string device_level;
  std::vector<std::string> device_switches;  // a side whose probes before/after its result differ
  DeviceLevelCheck device;  // the same check as data (compare --json: "device_level")

  std::string benchmark() const;  // "chain[elements=4096,kernels=100]/graph"
};

// Relative difference of two device probes (ns per kernel) beyond which they are two different
// device levels (~508 vs ~685 ns on the H200; docs/findings.md "Parity").
inline constexpr double kDeviceLevelTolerance = 0.15;

struct EnvDifference {
  std::string key, baseline, candidate;
  bool hard = false;  // makes the runs not comparable unless allowed
};

struct EnvironmentCheck {
  bool comparable = true;                 // no hard difference (or allowed)
  std::vector<EnvDifference> differences;  // hard first, then soft, each in a fixed key order
  std::vector<std::string> warnings;       // human lines for banners
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
  int runs = 1;         // independent runs (processes) behind this side
};

// What the comparison concludes; the CLI turns it into its exit status (docs/compare.md: pass 0,
// regression 1, not trustworthy 5).
enum class CompareOutcome {
  kPass,            // no gating regression, and every gating series could be judged
  kRegression,      // a gating regression, a newly failing mode, or a --fail-on-drift change
  kNotTrustworthy,  // no regression shown, but the comparison cannot vouch for it (environment, data, runs)
};
// "PASS", "FAIL", "NOT TRUSTWORTHY": the word every output starts with.
const char* outcome_word(CompareOutcome o);

struct Comparison {
  InputInfo baseline, candidate;
  Thresholds thresholds;
  std::string command;  // the command line that produced it (for "reproduce locally")
  EnvironmentCheck environment;
  std::vector<MetricComparison> rows;  // sorted by workload, params, mode, metric
  std::vector<DriftItem> drift;
  std::vector<GeomeanItem> geomeans;  // per metric key, then the gating total
  std::vector<std::string> banners;   // suite-level observations, e.g. a suite-wide shift
  std::size_t gating_series = 0;      // series the family_alpha is split over
  std::size_t compared = 0;           // rows where both sides had data and statistics ran
  CompareOutcome outcome = CompareOutcome::kPass;
  std::string outcome_reason;         // one line: why that outcome

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

// Glob match with * and ?; used for metric patterns.
bool glob_match(const std::string& pattern, const std::string& text);

// The user's patterns and parameter names that match nothing in either report (--gate,
// --metric-threshold, --abs-floor patterns; --ignore-param names), each as "OPTION VALUE: why",
// so that a typo is an error (exit 2) instead of a gate that silently does without it.
std::vector<std::string> unmatched_options(const Report& base, const Report& cand, const Thresholds& t);

// The rule a metric gets from the thresholds.
// `waits_for_host`: the result's iteration waits for the host (its latched pass was skipped),
// which puts every metric of it in the host class.
AppliedRule rule_for(const Thresholds& t, const std::string& workload, const std::string& mode,
                     const std::string& metric, const std::string& unit, bool waits_for_host = false);

// Severity rank used to order rows in every human output (regressions first).
int severity(Verdict v);

}  // namespace gp
