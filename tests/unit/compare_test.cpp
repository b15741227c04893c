// Verdicts and exit codes of `graphprof compare` on the synthetic reports in
// tests/data/reports (written by tests/data/reports/generate.py) and on small hand-made ones.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "graphprof/compare/comparison.hpp"
#include "graphprof/compare/compare_classes.hpp"
#include "graphprof/compare/report_merge.hpp"
#include "graphprof/core/error.hpp"
#include "graphprof/core/report.hpp"

#include "unit_test_helpers.hpp"
namespace gp {
namespace {

using test::compare_fixtures;
using test::report_fixture;

const MetricComparison* find(const Comparison& c, const std::string& workload, const std::string& mode,
                             const std::string& metric) {
  for (const auto& r : c.rows)
    if (r.workload == workload && r.mode == mode && r.metric == metric) return &r;
  return nullptr;
}

std::size_t gating(const Comparison& c, Verdict v) {
  return static_cast<std::size_t>(
      std::count_if(c.rows.begin(), c.rows.end(), [v](const auto& r) { return r.verdict == v && r.rule.gating; }));
}

// ---------------------------------------------------------------------------------------------
// Fixture scenarios

TEST(CompareFixtures, IdenticalFilesShowNoChange) {
  const Comparison c = compare_fixtures("base.json", "base.json");
  EXPECT_EQ(c.outcome, CompareOutcome::kPass);
  ASSERT_FALSE(c.rows.empty());
  for (const auto& r : c.rows) {
    EXPECT_EQ(r.ratio, 1.0);
    // Gating metrics are shown to be the same. A one-off cost with 5 samples per repetition
    // may stay "too noisy": identical numbers do not make its noise smaller.
    if (r.rule.gating) EXPECT_EQ(r.verdict, Verdict::kSame) << r.benchmark() << " " << r.metric << ": " << r.reason;
    else EXPECT_TRUE(r.verdict == Verdict::kSame || r.verdict == Verdict::kInconclusive) << r.reason;
  }
  EXPECT_TRUE(c.environment.differences.empty());
  EXPECT_TRUE(c.banners.empty());
}

TEST(CompareFixtures, RerunOfTheSameCodePasses) {
  const Comparison c = compare_fixtures("base.json", "aa_noise.json");
  EXPECT_EQ(c.outcome, CompareOutcome::kPass) << c.outcome_reason;
  EXPECT_EQ(gating(c, Verdict::kRegression), 0u);
  EXPECT_GE(gating(c, Verdict::kSame), 4u);  // the device-class series are shown to be the same
}

TEST(CompareFixtures, SmallRealChangeIsMinorBelowTheThreshold) {
  Thresholds t;
  t.threshold = 0.05;  // --threshold 5
  const Comparison c = compare_fixtures("base.json", "small_change.json", t);
  EXPECT_EQ(c.outcome, CompareOutcome::kPass);
  const auto* r = find(c, "chain", "graph", "gpu_time_per_iter");
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->verdict, Verdict::kMinor) << r->reason;
  EXPECT_NEAR(r->ratio, 1.03, 0.01);
  EXPECT_GT(r->ci_gate.low, 1.01);  // real: the 99% CI clears the noise floor
  // At the default 3 % floor the same +3.1 % of a stable device series (runs within 0.5 %) fails.
  const Comparison d = compare_fixtures("base.json", "small_change.json");
  const auto* row = find(d, "chain", "graph", "gpu_time_per_iter");
  ASSERT_NE(row, nullptr);
  EXPECT_EQ(row->verdict, Verdict::kRegression) << row->reason;
  EXPECT_EQ(row->rule.threshold, 0.03);
  EXPECT_EQ(row->rule.threshold_basis, ThresholdBasis::kFloor);
  EXPECT_NE(row->reason.find("is beyond the 3% threshold"), std::string::npos) << row->reason;
  EXPECT_EQ(d.outcome, CompareOutcome::kRegression);
}

TEST(CompareFixtures, RealRegressionsFailWithExitOne) {
  const Comparison c = compare_fixtures("base.json", "regression.json");
  EXPECT_EQ(c.outcome, CompareOutcome::kRegression);
  const auto* gpu = find(c, "chain", "graph", "gpu_time_per_iter");
  const auto* cpu = find(c, "fork_join", "capture", "launch_cpu_per_call");
  ASSERT_TRUE(gpu && cpu);
  EXPECT_EQ(gpu->verdict, Verdict::kRegression) << gpu->reason;
  EXPECT_EQ(gpu->effect, GateEffect::kFail);
  EXPECT_NEAR(gpu->ratio, 1.10, 0.015);
  EXPECT_LT(gpu->ci_gate.low, 1.10);
  EXPECT_GT(gpu->ci_gate.high, 1.10);
  EXPECT_EQ(gpu->method, "welch-t");
  // Host launch cost is host-class: reported, gating only when asked for.
  EXPECT_EQ(cpu->verdict, Verdict::kRegression) << cpu->reason;
  EXPECT_FALSE(cpu->rule.gating);
  EXPECT_EQ(gating(c, Verdict::kRegression), 1u);
  EXPECT_NE(c.outcome_reason.find("1 regression"), std::string::npos) << c.outcome_reason;
  Thresholds t;
  t.gate_patterns = {"launch_cpu_per_call"};
  const Comparison asked = compare_fixtures("base.json", "regression.json", t);
  EXPECT_EQ(gating(asked, Verdict::kRegression), 2u);
  EXPECT_NE(asked.outcome_reason.find("2 regressions"), std::string::npos) << asked.outcome_reason;
}

TEST(CompareFixtures, ImprovementsNeverFail) {
  const Comparison c = compare_fixtures("base.json", "improvements.json");
  EXPECT_EQ(c.outcome, CompareOutcome::kPass) << c.outcome_reason;
  EXPECT_GE(gating(c, Verdict::kImprovement), 4u);
  EXPECT_EQ(c.count_effect(GateEffect::kFail), 0u);
  const auto* r = find(c, "chain", "graph", "gpu_time_per_iter");
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->verdict, Verdict::kImprovement);
  EXPECT_NEAR(r->ratio, 0.85, 0.015);
}

TEST(CompareFixtures, LargeNoiseIsNeverARegression) {
  // With fixed thresholds (--noise-multiple 0) the noisy device series are undecided at 3 %.
  Thresholds fixed;
  fixed.noise_multiple = 0;
  const Comparison c = compare_fixtures("noisy_base.json", "noisy_cand.json", fixed);
  EXPECT_EQ(c.outcome, CompareOutcome::kPass) << c.outcome_reason;
  EXPECT_EQ(gating(c, Verdict::kRegression), 0u);
  EXPECT_GE(gating(c, Verdict::kInconclusive), 1u);
  // An undecided row says how many runs would decide it.
  for (const auto& r : c.rows) {
    if (r.verdict != Verdict::kInconclusive || !r.rule.gating) continue;
    EXPECT_GT(r.runs_needed, 7u);
    EXPECT_NE(r.reason.find("runs per side would detect 3%"), std::string::npos) << r.reason;
  }
  // By default each noisy device series' threshold is three times its runs' pooled spread, and
  // its row says so; sameness is still judged within the 3 % floor, so they stay undecided.
  const Comparison d = compare_fixtures("noisy_base.json", "noisy_cand.json");
  EXPECT_EQ(d.outcome, CompareOutcome::kPass) << d.outcome_reason;
  EXPECT_EQ(gating(d, Verdict::kRegression), 0u);
  std::size_t widened = 0;
  for (const auto& r : d.rows) {
    if (!r.rule.gating || !r.has_estimate) continue;
    ASSERT_EQ(r.rule.threshold_basis, ThresholdBasis::kNoise) << r.benchmark() << " " << r.metric;
    ++widened;
    const double m = static_cast<double>(r.base->reps.size()) - 1, n = static_cast<double>(r.cand->reps.size()) - 1;
    const double pooled = std::sqrt((m * r.base->spread * r.base->spread + n * r.cand->spread * r.cand->spread) / (m + n));
    EXPECT_NEAR(r.rule.noise_sd, pooled, 1e-12);
    EXPECT_NEAR(r.rule.threshold, std::expm1(3 * pooled), 1e-12);
    EXPECT_GT(r.rule.threshold, 0.03);
    EXPECT_EQ(r.rule.threshold_floor, 0.03);
    EXPECT_EQ(r.verdict, Verdict::kInconclusive) << r.reason;
    EXPECT_NE(r.reason.find("runs per side would detect 3%"), std::string::npos) << r.reason;
  }
  EXPECT_GE(widened, 4u);
}

TEST(CompareFixtures, OneOutlierRunIsNotARegression) {
  const Comparison c = compare_fixtures("base.json", "outlier_rep.json");
  EXPECT_EQ(c.outcome, CompareOutcome::kPass);
  const auto* r = find(c, "chain", "eager", "gpu_time_per_iter");
  ASSERT_NE(r, nullptr);
  EXPECT_NE(r->verdict, Verdict::kRegression) << r->reason;
  EXPECT_GT(r->cand->spread, r->base->spread);  // the odd run widens the interval
}

TEST(CompareFixtures, MissingBenchmarksAreNotTrustedUnlessAllowed) {
  const Comparison c = compare_fixtures("base.json", "missing_added.json");
  EXPECT_EQ(c.outcome, CompareOutcome::kNotTrustworthy) << c.outcome_reason;
  const auto* gone = find(c, "fork_join", "graph", "*");
  const auto* metric = find(c, "chain", "graph", "wall_time_per_iter");
  const auto* added = find(c, "memcpy", "eager", "*");
  ASSERT_TRUE(gone && metric && added);
  EXPECT_EQ(gone->verdict, Verdict::kMissing);
  EXPECT_EQ(gone->effect, GateEffect::kUntrusted);
  EXPECT_EQ(metric->verdict, Verdict::kMissing);
  EXPECT_EQ(added->verdict, Verdict::kAdded);
  EXPECT_EQ(added->effect, GateEffect::kPass);

  Thresholds t;
  t.allow_missing = true;
  const Comparison allowed = compare_fixtures("base.json", "missing_added.json", t);
  EXPECT_EQ(allowed.outcome, CompareOutcome::kPass) << allowed.outcome_reason;
  EXPECT_EQ(allowed.count(Verdict::kMissing), 2u);  // still reported
}

TEST(CompareFixtures, DifferentGpuIsNotComparableUnlessAllowed) {
  const Comparison c = compare_fixtures("base.json", "other_gpu.json");
  EXPECT_EQ(c.outcome, CompareOutcome::kNotTrustworthy);
  EXPECT_FALSE(c.environment.comparable);
  ASSERT_FALSE(c.environment.differences.empty());
  EXPECT_EQ(c.environment.differences.front().key, "gpu.name");
  EXPECT_TRUE(c.environment.differences.front().hard);
  for (const auto& r : c.rows) EXPECT_EQ(r.verdict, Verdict::kNotComparable);
  EXPECT_NE(c.outcome_reason.find("gpu.compute_capability"), std::string::npos);

  Thresholds t;
  t.allow_env_mismatch = true;
  const Comparison allowed = compare_fixtures("base.json", "other_gpu.json", t);
  EXPECT_TRUE(allowed.environment.comparable);
  EXPECT_FALSE(allowed.environment.warnings.empty());
  EXPECT_EQ(allowed.outcome, CompareOutcome::kPass) << allowed.outcome_reason;
}

TEST(CompareFixtures, NanAndEmptySamplesAreInvalid) {
  Thresholds t;
  t.gate_patterns = {"*"};  // the broken series are host-class: gate them to make them count
  const Comparison c = compare_fixtures("base.json", "nan_samples.json", t);
  EXPECT_EQ(c.outcome, CompareOutcome::kNotTrustworthy);
  EXPECT_EQ(compare_fixtures("base.json", "nan_samples.json").outcome, CompareOutcome::kPass);
  const auto* nan = find(c, "chain", "eager", "gpu_time_per_iter");
  const auto* empty = find(c, "chain", "capture", "wall_time_per_iter");
  ASSERT_TRUE(nan && empty);
  EXPECT_EQ(nan->verdict, Verdict::kInvalid);
  EXPECT_NE(nan->reason.find("14 of 105 samples are not finite"), std::string::npos) << nan->reason;
  EXPECT_EQ(empty->verdict, Verdict::kInvalid);
  EXPECT_NE(empty->reason.find("no samples"), std::string::npos) << empty->reason;
}

TEST(CompareFixtures, NewlyFailingModeFails) {
  const Comparison c = compare_fixtures("base.json", "failed_mode.json");
  EXPECT_EQ(c.outcome, CompareOutcome::kRegression);
  const auto* r = find(c, "chain", "capture", "*");
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->verdict, Verdict::kFailed);
  EXPECT_NE(r->reason.find("cudaErrorStreamCaptureInvalidated"), std::string::npos);
  EXPECT_NE(r->reason.find("remove the synchronize"), std::string::npos);  // the hint travels along
  // The reverse direction (it works again) is not a failure.
  EXPECT_EQ(compare_fixtures("failed_mode.json", "base.json").outcome, CompareOutcome::kPass);
}

TEST(CompareFixtures, ClockChangeExplainsTheTimeChange) {
  const Comparison c = compare_fixtures("base.json", "clock_change.json");
  EXPECT_EQ(c.outcome, CompareOutcome::kNotTrustworthy) << c.outcome_reason;
  const auto* r = find(c, "chain", "graph", "gpu_time_per_iter");
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->verdict, Verdict::kNotComparable);
  EXPECT_EQ(r->reason.rfind("clock change", 0), 0u) << r->reason;
  ASSERT_TRUE(r->cycle_ratio.has_value());
  EXPECT_NEAR(*r->cycle_ratio, 1.0, 0.02);
  EXPECT_NEAR(r->ratio, 1980.0 / 1755.0, 0.02);
  bool warned = false;
  for (const auto& d : c.environment.differences) warned = warned || (d.key == "gpu.clock_mhz" && !d.hard);
  EXPECT_TRUE(warned);
  // Host-timed metrics do not scale with the SM clock and are judged as usual.
  EXPECT_NE(find(c, "chain", "graph", "launch_cpu_per_call")->verdict, Verdict::kNotComparable);
}

TEST(CompareFixtures, StructureDriftWarnsAndCanFail) {
  const Comparison c = compare_fixtures("base.json", "drift.json");
  EXPECT_EQ(c.outcome, CompareOutcome::kPass);
  ASSERT_EQ(c.drift.size(), 2u);
  EXPECT_EQ(c.drift[0].what, "graph edges 99 -> 119");
  EXPECT_EQ(c.drift[1].what, "graph nodes 100 -> 120");
  Thresholds t;
  t.fail_on_drift = true;
  const Comparison strict = compare_fixtures("base.json", "drift.json", t);
  EXPECT_EQ(strict.outcome, CompareOutcome::kRegression);
  EXPECT_NE(strict.outcome_reason.find("structure"), std::string::npos);
}

TEST(CompareFixtures, SingleRunsUseTheClassNoise) {
  // One run per side cannot show that device time stayed within 5 % (2 % class noise), and
  // host series (30 %) are never decided: exit 5, "not enough runs", never a regression.
  const Comparison same = compare_fixtures("r1_base.json", "r1_same.json");
  EXPECT_EQ(same.outcome, CompareOutcome::kNotTrustworthy) << same.outcome_reason;
  EXPECT_NE(same.outcome_reason.find("not enough runs"), std::string::npos) << same.outcome_reason;
  for (const auto& r : same.rows) {
    if (!r.has_estimate) continue;
    EXPECT_EQ(r.method, "class-noise");
    EXPECT_EQ(r.df, 0.0);
    EXPECT_NE(r.verdict, Verdict::kRegression);
    if (r.verdict == Verdict::kInconclusive) {
      EXPECT_EQ(r.verdict, Verdict::kInconclusive) << r.benchmark() << " " << r.metric;
      EXPECT_TRUE(r.not_enough_runs);
      EXPECT_NE(r.reason.find("not enough runs (1 vs 1 runs)"), std::string::npos) << r.reason;
    }
  }
  const Comparison slow = compare_fixtures("r1_base.json", "r1_slow.json");
  EXPECT_EQ(slow.outcome, CompareOutcome::kRegression);
  const auto* r = find(slow, "chain", "graph", "gpu_time_per_iter");
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->verdict, Verdict::kRegression);  // +30 % is far beyond 1 % device-class noise
  EXPECT_NE(r->reason.find("1 vs 1 runs"), std::string::npos) << r->reason;
}

// A single run whose device time moved by a few percent cannot be called the same or a
// regression: exit 5, "not enough runs".
TEST(CompareRules, AnUndecidedGatingSeriesWithOneRunIsNotTrusted) {
  Metric b;
  b.unit = "ns";
  b.repetitions = {{100e3, 100e3, 100e3}};
  b.resummarize();
  Metric c = b;
  c.repetitions = {{104e3, 104e3, 104e3}};
  c.resummarize();
  Report rb, rc;
  ModeResult res;
  res.workload = "w";
  res.mode = Mode::kGraph;
  res.metrics["gpu_time_per_iter"] = b;
  rb.results.push_back(res);
  res.metrics["gpu_time_per_iter"] = c;
  rc.results.push_back(res);
  const Comparison cmp = compare(rb, rc, {});
  ASSERT_EQ(cmp.rows.size(), 1u);
  EXPECT_TRUE(cmp.rows[0].not_enough_runs);
  EXPECT_EQ(cmp.rows[0].effect, GateEffect::kUntrusted);
  EXPECT_EQ(cmp.outcome, CompareOutcome::kNotTrustworthy);
  EXPECT_NE(cmp.outcome_reason.find("not enough runs"), std::string::npos) << cmp.outcome_reason;
}

TEST(CompareFixtures, HundredsOfRegressionsGiveExitOneNotACount) {
  const Comparison c = compare_fixtures("many_base.json", "many_cand.json");
  // +20 % in 300 benchmarks, 5 runs each; the false-alarm budget is split 300 ways.
  EXPECT_GE(c.count(Verdict::kRegression), 295u);
  EXPECT_EQ(c.outcome, CompareOutcome::kRegression);
  EXPECT_EQ(c.outcome, CompareOutcome::kRegression);
  EXPECT_NE(c.outcome_reason.find(std::to_string(c.count(Verdict::kRegression)) + " regressions"), std::string::npos);
}

// One process with five repetitions that agree closely, while the next process lands elsewhere
// (as on the H200 VM): it is one run, so the class's between-run noise stands in for the
// spread the repetitions cannot show, and the scatter of reruns gives no false alarm.
TEST(CompareFixtures, RepetitionsOfOneProcessAreOneRun) {
  const Comparison c = compare_fixtures("suite_a.json", "suite_b.json");
  EXPECT_EQ(c.outcome, CompareOutcome::kNotTrustworthy) << c.outcome_reason;  // "not enough runs"
  EXPECT_EQ(c.count(Verdict::kRegression), 0u);
  for (const auto& r : c.rows) {
    if (!r.has_estimate) continue;
    EXPECT_EQ(r.base->reps.size(), 1u);
    EXPECT_EQ(r.method, "class-noise");
  }
  // A gross change in device time still stands out of the class's noise.
  const Comparison slow = compare_fixtures("suite_a.json", "suite_slow.json");
  EXPECT_EQ(slow.outcome, CompareOutcome::kRegression) << slow.outcome_reason;
  for (const auto& r : slow.rows)
    if (r.verdict == Verdict::kRegression) EXPECT_TRUE(r.workload == "w3" || r.workload == "w7") << r.benchmark();
}

TEST(CompareFixtures, UnreadableReportsSayFileLineColumn) {
  auto message = [](const std::string& name) {
    try {
      read_report(report_fixture(name));
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ExitCode::kBadInput) << name;
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message("malformed.json").find("malformed.json:4:29: invalid JSON"), std::string::npos)
      << message("malformed.json");
  const std::string truncated = message("truncated.json");
  EXPECT_NE(truncated.find("truncated.json:"), std::string::npos);
  EXPECT_NE(truncated.find("invalid JSON"), std::string::npos) << truncated;
  EXPECT_NE(message("empty.json").find("empty.json:1:1: file is empty"), std::string::npos);
  EXPECT_NE(message("not_a_report.json").find("expected a JSON object"), std::string::npos);
}

// ---------------------------------------------------------------------------------------------
// Hand-made reports for single rules

Metric metric_of(const std::vector<double>& rep_centres, double spread = 0.001, Direction d = Direction::kLowerIsBetter,
                 const std::string& unit = "ns") {
  Metric m;
  m.unit = unit;
  m.direction = d;
  for (double c : rep_centres) m.repetitions.push_back({c * (1 - spread), c, c * (1 + spread)});
  m.resummarize();
  return m;
}

// One report of merged runs: each repetition of `m` is one process.
Report report_of(const std::string& metric, const Metric& m, std::map<std::string, std::string> params = {{"n", "1"}}) {
  Report r;
  r.settings.processes = static_cast<int>(m.repetitions.size());
  r.settings.repetitions = 1;
  ModeResult res;
  res.workload = "w";
  res.mode = Mode::kGraph;
  res.params = std::move(params);
  res.metrics[metric] = m;
  r.results.push_back(res);
  return r;
}

const std::vector<double> kSeven{100, 101, 99, 100.5, 99.5, 100.2, 99.8};

std::vector<double> scaled(const std::vector<double>& v, double f) {
  std::vector<double> out;
  for (double x : v) out.push_back(x * f);
  return out;
}

TEST(CompareRules, AbsoluteFloorTurnsATinyRegressionIntoMinor) {
  // +10% of ~100 ns is 10 ns, below the 20 ns default floor of host-timed metrics.
  const Comparison c = compare(report_of("launch_cpu_per_call", metric_of(kSeven)),
                               report_of("launch_cpu_per_call", metric_of(scaled(kSeven, 1.10))), {});
  ASSERT_EQ(c.rows.size(), 1u);
  EXPECT_EQ(c.rows[0].verdict, Verdict::kMinor);
  EXPECT_NE(c.rows[0].reason.find("below the absolute floor of 20 ns"), std::string::npos) << c.rows[0].reason;
  EXPECT_EQ(c.outcome, CompareOutcome::kPass);
  Thresholds t;
  t.abs_floors.push_back({"launch_*", 5});
  const Comparison lower = compare(report_of("launch_cpu_per_call", metric_of(kSeven)),
                                   report_of("launch_cpu_per_call", metric_of(scaled(kSeven, 1.10))), t);
  EXPECT_EQ(lower.rows[0].verdict, Verdict::kRegression);
}

TEST(CompareRules, HigherIsBetterFlipsTheSign) {
  const auto big = scaled(kSeven, 1000);
  const Comparison c = compare(report_of("bandwidth", metric_of(big, 0.001, Direction::kHigherIsBetter, "GB/s")),
                               report_of("bandwidth", metric_of(scaled(big, 0.8), 0.001, Direction::kHigherIsBetter, "GB/s")),
                               Thresholds{});
  ASSERT_EQ(c.rows.size(), 1u);
  EXPECT_EQ(c.rows[0].verdict, Verdict::kRegression);  // 20% less bandwidth is worse
  EXPECT_FALSE(c.rows[0].rule.gating);                 // not a default gating metric
  EXPECT_EQ(c.outcome, CompareOutcome::kPass);
  Thresholds t;
  t.gate_patterns = {"bandwidth"};
  EXPECT_EQ(compare(report_of("bandwidth", metric_of(big, 0.001, Direction::kHigherIsBetter, "GB/s")),
                    report_of("bandwidth", metric_of(scaled(big, 0.8), 0.001, Direction::kHigherIsBetter, "GB/s")), t)
                .outcome,
            CompareOutcome::kRegression);
}

TEST(CompareRules, MetricThresholdOverridesByPattern) {
  const auto base = scaled(kSeven, 1000);
  Thresholds t;
  t.metric_thresholds.push_back({"gpu_*", 10});  // 1000% - absurd, then overridden below
  t.metric_thresholds.push_back({"w/graph/gpu_time_per_iter", 0.15});  // the last match wins
  const Comparison c = compare(report_of("gpu_time_per_iter", metric_of(base)),
                               report_of("gpu_time_per_iter", metric_of(scaled(base, 1.10))), t);
  EXPECT_EQ(c.rows[0].rule.threshold, 0.15);
  EXPECT_EQ(c.rows[0].verdict, Verdict::kMinor);  // 10% is real but below 15%
}

// The threshold of a row: max(floor, expm1(3 x pooled between-run sd)) for device series.
// Run values with a log sd of about 2.2 %: 3 sd is about 6.7 %.
const std::vector<double> kTwoPercent{100, 102, 98, 101, 99, 103, 97};

TEST(CompareRules, ANoisyDeviceSeriesGetsThreeTimesItsSpread) {
  const auto base = scaled(kTwoPercent, 1000);
  const Comparison c = compare(report_of("gpu_time_per_iter", metric_of(base)),
                               report_of("gpu_time_per_iter", metric_of(scaled(base, 1.05))), {});
  ASSERT_EQ(c.rows.size(), 1u);
  const MetricComparison& r = c.rows[0];
  EXPECT_EQ(r.rule.series_class, SeriesClass::kDevice);
  EXPECT_EQ(r.rule.threshold_basis, ThresholdBasis::kNoise);
  EXPECT_NEAR(r.rule.noise_sd, r.base->spread, 1e-12);  // both sides vary alike
  EXPECT_NEAR(r.rule.threshold, std::expm1(3 * r.base->spread), 1e-12);
  EXPECT_GT(r.rule.threshold, 0.06);
  EXPECT_LT(r.rule.threshold, 0.075);
  // +5 % is resolved (the interval clears +1 %) but is below its 6.7 % threshold: minor.
  EXPECT_GT(r.ci_gate.low, 1.01);
  EXPECT_EQ(r.verdict, Verdict::kMinor) << r.reason;
  EXPECT_NE(r.reason.find("below the 6.7% threshold (3 x the runs' 2.2% spread)"), std::string::npos) << r.reason;
  EXPECT_EQ(c.outcome, CompareOutcome::kPass);
  // The same data with fixed thresholds (--noise-multiple 0): a regression at the 3 % floor.
  Thresholds fixed;
  fixed.noise_multiple = 0;
  const Comparison f = compare(report_of("gpu_time_per_iter", metric_of(base)),
                               report_of("gpu_time_per_iter", metric_of(scaled(base, 1.05))), fixed);
  EXPECT_EQ(f.rows[0].rule.threshold_basis, ThresholdBasis::kFloor);
  EXPECT_EQ(f.rows[0].rule.threshold, 0.03);
  EXPECT_EQ(f.rows[0].verdict, Verdict::kRegression) << f.rows[0].reason;
  // --noise-multiple 2: 2 x 2.2 % = 4.4 %, so +5 % fails again.
  Thresholds two;
  two.noise_multiple = 2;
  const Comparison t2 = compare(report_of("gpu_time_per_iter", metric_of(base)),
                                report_of("gpu_time_per_iter", metric_of(scaled(base, 1.05))), two);
  EXPECT_NEAR(t2.rows[0].rule.threshold, std::expm1(2 * t2.rows[0].rule.noise_sd), 1e-12);
  EXPECT_EQ(t2.rows[0].verdict, Verdict::kRegression) << t2.rows[0].reason;
}

TEST(CompareRules, AStableDeviceSeriesGatesAtTheFloor) {
  const auto base = scaled(kSeven, 1000);  // runs within 0.6 %: 3 sd is below 3 %
  const Comparison c = compare(report_of("gpu_time_per_iter", metric_of(base)),
                               report_of("gpu_time_per_iter", metric_of(scaled(base, 1.04))), {});
  EXPECT_EQ(c.rows[0].rule.threshold_basis, ThresholdBasis::kFloor);
  EXPECT_EQ(c.rows[0].rule.threshold, 0.03);
  EXPECT_GT(c.rows[0].rule.noise_sd, 0.0);  // known, but below the floor
  EXPECT_EQ(c.rows[0].verdict, Verdict::kRegression) << c.rows[0].reason;
}

TEST(CompareRules, HostSeriesCountsAndSetThresholdsGetNoNoiseTerm) {
  const auto base = scaled(kTwoPercent, 1000);
  // A host series (gated with --gate): its noise is what runs average out, not a threshold.
  Thresholds gate;
  gate.gate_patterns = {"launch_cpu_per_call"};
  const Comparison host = compare(report_of("launch_cpu_per_call", metric_of(base)),
                                  report_of("launch_cpu_per_call", metric_of(scaled(base, 1.05))), gate);
  EXPECT_EQ(host.rows[0].rule.series_class, SeriesClass::kHost);
  EXPECT_EQ(host.rows[0].rule.threshold_basis, ThresholdBasis::kFloor);
  EXPECT_EQ(host.rows[0].rule.threshold, 0.03);
  EXPECT_EQ(host.rows[0].verdict, Verdict::kRegression) << host.rows[0].reason;
  // A count is the same in every run of one build: never a noise threshold, even when gated.
  Thresholds count_gate;
  count_gate.gate_patterns = {"graph_launches"};
  const Comparison count = compare(report_of("graph_launches", metric_of(base, 0.001, Direction::kLowerIsBetter, "count")),
                                   report_of("graph_launches", metric_of(scaled(base, 1.05), 0.001, Direction::kLowerIsBetter, "count")),
                                   count_gate);
  EXPECT_EQ(count.rows[0].rule.threshold_basis, ThresholdBasis::kDeterministic);
  EXPECT_EQ(count.rows[0].rule.threshold, 0.03);
  // --metric-threshold fixes a series' threshold: no noise term on top.
  Thresholds set;
  set.metric_thresholds.push_back({"gpu_time_per_iter", 0.04});
  const Comparison fixed = compare(report_of("gpu_time_per_iter", metric_of(base)),
                                   report_of("gpu_time_per_iter", metric_of(scaled(base, 1.05))), set);
  EXPECT_EQ(fixed.rows[0].rule.threshold_basis, ThresholdBasis::kFixed);
  EXPECT_EQ(fixed.rows[0].rule.threshold, 0.04);
  EXPECT_EQ(fixed.rows[0].verdict, Verdict::kRegression) << fixed.rows[0].reason;
  EXPECT_NE(fixed.rows[0].reason.find("the 4% threshold (--metric-threshold)"), std::string::npos) << fixed.rows[0].reason;
}

TEST(CompareRules, TooFewRunsKeepTheFloor) {
  // One run per side: the spread is unknown (class noise stands in), so no noise term.
  const Comparison c = compare(report_of("gpu_time_per_iter", metric_of({100000})),
                               report_of("gpu_time_per_iter", metric_of({150000})), {});
  EXPECT_EQ(c.rows[0].method, "class-noise");
  EXPECT_EQ(c.rows[0].rule.threshold_basis, ThresholdBasis::kFloor);
  EXPECT_EQ(c.rows[0].rule.noise_sd, 0.0);
  EXPECT_EQ(c.rows[0].rule.threshold, 0.03);
}

TEST(CompareRules, StrictFailsOnALikelyRegression) {
  // Very noisy repetitions around a +12% shift: the point estimate is beyond the threshold,
  // the 99% interval is not beyond the floor.
  const std::vector<double> noisy_b{1000, 1300, 800, 1100, 900, 1200, 950};
  const std::vector<double> noisy_c = scaled(std::vector<double>{1000, 1290, 820, 1150, 880, 1210, 960}, 1.12);
  // Fixed thresholds: with its own noise term (3 x ~17 %) +12 % would be far below the threshold.
  Thresholds fixed;
  fixed.noise_multiple = 0;
  const Comparison c = compare(report_of("gpu_time_per_iter", metric_of(noisy_b)),
                               report_of("gpu_time_per_iter", metric_of(noisy_c)), fixed);
  ASSERT_EQ(c.rows[0].verdict, Verdict::kInconclusive) << c.rows[0].reason;
  EXPECT_TRUE(c.rows[0].likely_regression);
  EXPECT_EQ(c.outcome, CompareOutcome::kPass);
  const Comparison noisy = compare(report_of("gpu_time_per_iter", metric_of(noisy_b)),
                                   report_of("gpu_time_per_iter", metric_of(noisy_c)), {});
  EXPECT_FALSE(noisy.rows[0].likely_regression) << noisy.rows[0].reason;
  EXPECT_GT(noisy.rows[0].rule.threshold, 0.5);
  Thresholds t = fixed;
  t.strict = true;
  EXPECT_EQ(compare(report_of("gpu_time_per_iter", metric_of(noisy_b)), report_of("gpu_time_per_iter", metric_of(noisy_c)), t)
                .outcome,
            CompareOutcome::kRegression);
}

TEST(CompareRules, UnitChangeIsNotComparable) {
  const Comparison c = compare(report_of("gpu_time_per_iter", metric_of(kSeven, 0.001, Direction::kLowerIsBetter, "ns")),
                               report_of("gpu_time_per_iter", metric_of(kSeven, 0.001, Direction::kLowerIsBetter, "us")), {});
  EXPECT_EQ(c.rows[0].verdict, Verdict::kNotComparable);
  EXPECT_EQ(c.rows[0].reason, "unit changed: ns -> us");
  EXPECT_EQ(c.outcome, CompareOutcome::kNotTrustworthy);
}

TEST(CompareRules, IgnoredParameterLetsDifferentRunsMatch) {
  const auto base = scaled(kSeven, 1000);
  const Report b = report_of("gpu_time_per_iter", metric_of(base), {{"n", "1"}, {"elements", "4096"}});
  const Report c = report_of("gpu_time_per_iter", metric_of(scaled(base, 1.3)), {{"n", "1"}, {"elements", "8192"}});
  const Comparison unmatched = compare(b, c, {});
  EXPECT_EQ(unmatched.outcome, CompareOutcome::kNotTrustworthy);  // one missing, one added
  Thresholds t;
  t.ignore_params = {"elements"};
  const Comparison matched = compare(b, c, t);
  ASSERT_EQ(matched.rows.size(), 1u);
  EXPECT_EQ(matched.rows[0].verdict, Verdict::kRegression);
  EXPECT_EQ(matched.outcome, CompareOutcome::kRegression);
}

TEST(CompareRules, DuplicateResultsAreBadInput) {
  Report b = report_of("gpu_time_per_iter", metric_of(kSeven));
  b.results.push_back(b.results[0]);
  try {
    compare(b, b, {}, InputNames{"old.json", "new.json"});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kBadInput);
    EXPECT_EQ(std::string(e.what()).rfind("old.json: results[0] and results[1] are both w[n=1]/graph", 0), 0u) << e.what();
  }
}

TEST(CompareRules, EmptyReportsCompareNothing) {
  const Comparison c = compare(Report{}, Report{}, {});
  EXPECT_EQ(c.outcome, CompareOutcome::kNotTrustworthy);
  EXPECT_NE(c.outcome_reason.find("nothing was compared"), std::string::npos);
}

TEST(ComparePooling, ReportsOfSeparateRunsPoolTheirRepetitions) {
  const Report a = read_report(report_fixture("r1_base.json"));
  Report b = read_report(report_fixture("r1_same.json"));
  b.git_revision = a.git_revision;  // runs of one build
  const Report pooled = merge_reports({a, b, a}, {"a.json", "b.json", "c.json"});
  ASSERT_EQ(pooled.results.size(), a.results.size());
  const Metric& m = pooled.results[0].metrics.at("gpu_time_per_iter");
  ASSERT_EQ(m.repetitions.size(), 3u);
  EXPECT_EQ(m.repetitions[0], a.results[0].metrics.at("gpu_time_per_iter").repetitions[0]);
  EXPECT_EQ(m.repetitions[1], b.results[0].metrics.at("gpu_time_per_iter").repetitions[0]);
  EXPECT_EQ(pooled.settings.processes.value_or(-1), 3);
  const Comparison c = compare(pooled, pooled, {});
  EXPECT_EQ(c.baseline.runs, 3);
  EXPECT_EQ(c.baseline.repetitions, 3);
}

TEST(ComparePooling, AModeThatFailedInAnyRunFails) {
  const Report ok = read_report(report_fixture("base.json"));
  Report broken = read_report(report_fixture("failed_mode.json"));
  broken.git_revision = ok.git_revision;
  const Report pooled = merge_reports({ok, broken}, {"ok.json", "broken.json"});
  const ModeResult* cap = pooled.find("chain", Mode::kCapture, ok.results[1].params);
  ASSERT_NE(cap, nullptr);
  EXPECT_EQ(cap->status, Status::kFailed);
  EXPECT_NE(cap->reason.find("(in broken.json)"), std::string::npos) << cap->reason;
  EXPECT_EQ(compare(ok, pooled, {}).outcome, CompareOutcome::kRegression);
}

TEST(ComparePooling, OnlyRunsOfOneBuildPool) {
  try {
    merge_reports({read_report(report_fixture("r1_base.json")), read_report(report_fixture("r1_slow.json"))}, {"a.json", "b.json"});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kUntrusted);
    EXPECT_EQ(std::string(e.what()).rfind("b.json was made by revision r1-slow, a.json by r1-base", 0), 0u) << e.what();
  }
}

TEST(ComparePooling, OnlyOneGpuModelPerSide) {
  try {
    merge_reports({read_report(report_fixture("base.json")), read_report(report_fixture("other_gpu.json"))}, {"h200.json", "a100.json"});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kUntrusted);  // as compare says of the same pair
    EXPECT_EQ(std::string(e.what()).rfind("a100.json was measured on NVIDIA A100-SXM4-80GB (sm_80, 108 SMs)", 0), 0u)
        << e.what();
  }
}

TEST(CompareRules, GlobAndRuleSelection) {
  EXPECT_TRUE(glob_match("*", ""));
  EXPECT_TRUE(glob_match("gpu_*", "gpu_time_per_iter"));
  EXPECT_TRUE(glob_match("*_per_*", "launch_cpu_per_call"));
  EXPECT_TRUE(glob_match("a?c", "abc"));
  EXPECT_FALSE(glob_match("a?c", "ac"));
  EXPECT_FALSE(glob_match("gpu_*", "wall_time_per_iter"));
  EXPECT_TRUE(glob_match("chain/*/gpu*", "chain/graph/gpu_time_per_iter"));

  const Thresholds t;
  const AppliedRule gpu = rule_for(t, "chain", "graph", "gpu_time_per_iter", "ns");
  EXPECT_TRUE(gpu.gating);
  EXPECT_TRUE(gpu.clock_sensitive);
  EXPECT_EQ(gpu.abs_floor, 100.0);
  EXPECT_EQ(gpu.series_class, SeriesClass::kDevice);
  const AppliedRule latched = rule_for(t, "chain", "graph", "gpu_time_per_iter_latched", "ns");
  EXPECT_TRUE(latched.gating);
  EXPECT_TRUE(latched.clock_sensitive);
  EXPECT_EQ(latched.abs_floor, 100.0);
  const AppliedRule oneoff = rule_for(t, "chain", "graph", "instantiate_time", "ns");
  EXPECT_FALSE(oneoff.gating);
  EXPECT_EQ(oneoff.abs_floor, 20.0);
  EXPECT_EQ(rule_for(t, "chain", "graph", "ratio", "x").abs_floor, 0.0);  // floors are for ns only
}

// ---------------------------------------------------------------------------------------------
// Real H200 runs (tests/data/gate): 7 interleaved processes per side of the default suite.

Report gate_side(const std::string& set) {
  std::vector<std::string> files;
  for (int i = 1; i <= 7; ++i)
    files.push_back(std::string(GRAPHPROF_TEST_DATA) + "/gate/" + set + "/run" + std::to_string(i) + ".json");
  return merge_reports(read_distinct_reports(files), files);
}

Comparison gate_compare(const std::string& cand) {
  Thresholds t;
  t.ignore_params = {"spin_cycles"};
  return compare(gate_side("A"), gate_side(cand), t, InputNames{"A", cand});
}

TEST(CompareH200, SameBuildGivesNoGatingRegression) {
  const Comparison c = gate_compare("B");
  EXPECT_EQ(c.outcome, CompareOutcome::kPass) << c.outcome_reason;
  EXPECT_EQ(c.count_effect(GateEffect::kFail), 0u);
  // Every capture/graph device series is shown to be within 3 %; the eager latched ones (runs
  // varying by up to 3.5 %) get thresholds of 4.7-8.7 % from their noise and stay undecided at 3 %.
  EXPECT_EQ(gating(c, Verdict::kSame), 28u);
  for (const auto& r : c.rows) {
    if (!r.rule.gating || !r.has_estimate) continue;
    if (r.mode == "eager") {
      EXPECT_EQ(r.rule.threshold_basis, ThresholdBasis::kNoise) << r.benchmark();
      EXPECT_GT(r.rule.threshold, 0.045) << r.benchmark();
      EXPECT_LT(r.rule.threshold, 0.09) << r.benchmark();
    } else {
      EXPECT_EQ(r.rule.threshold, 0.03) << r.benchmark() << " " << r.metric;
      EXPECT_EQ(r.verdict, Verdict::kSame) << r.benchmark() << " " << r.metric << ": " << r.reason;
    }
  }
}

TEST(CompareH200, SlowedChainKernelsAreFlaggedInEveryModeBeyondFivePercentAndNothingElse) {
  for (const char* set : {"S5", "S10"}) {
    const Comparison c = gate_compare(set);
    EXPECT_EQ(c.outcome, CompareOutcome::kRegression) << set;
    std::vector<std::string> flagged;
    for (const auto& r : c.rows)
      if (r.verdict == Verdict::kRegression && r.rule.gating) flagged.push_back(r.workload + "/" + r.mode + "/" + r.metric);
    std::sort(flagged.begin(), flagged.end());
    const std::vector<std::string> want{"chain/capture/gpu_time_per_iter", "chain/capture/gpu_time_per_iter_latched",
                                        "chain/graph/gpu_time_per_iter", "chain/graph/gpu_time_per_iter_latched"};
    EXPECT_EQ(flagged, want) << set;
    // chain eager is launch-bound: its latched device time moved by less than 5 %, within its
    // own threshold (3 x its runs' ~3 % spread): not a regression, and not "same" either.
    const auto* eager = find(c, "chain", "eager", "gpu_time_per_iter_latched");
    ASSERT_NE(eager, nullptr);
    EXPECT_LT(eager->ratio, 1.05) << set;
    EXPECT_GT(eager->rule.threshold, 0.05) << set;
    EXPECT_NE(eager->verdict, Verdict::kSame) << set << ": " << eager->reason;
  }
}

TEST(CompareH200, WorkloadsThatWaitForTheHostAreHostClassInEveryMode) {
  const Comparison c = gate_compare("B");
  const auto cls = [&](const char* w, const char* m, const char* metric) {
    const auto* r = find(c, w, m, metric);
    return r ? r->rule.series_class : SeriesClass::kInfo;
  };
  EXPECT_EQ(cls("host", "eager", "gpu_time_per_iter_latched"), SeriesClass::kHost);  // its graphs wait for the host
  EXPECT_EQ(cls("host", "graph", "gpu_time_per_iter"), SeriesClass::kHost);
  EXPECT_EQ(cls("memcpy", "eager", "gpu_time_per_iter_latched"), SeriesClass::kHost);
  EXPECT_EQ(cls("while", "graph", "gpu_time_per_iter_latched"), SeriesClass::kDevice);  // only eager waits
  EXPECT_EQ(cls("while", "eager", "gpu_time_per_iter"), SeriesClass::kHost);
  EXPECT_EQ(cls("chain", "graph", "gpu_time_per_iter"), SeriesClass::kDevice);
  EXPECT_EQ(cls("chain", "eager", "gpu_time_per_iter"), SeriesClass::kHost);  // launch-bound
  EXPECT_EQ(cls("chain", "graph", "launch_cpu_per_call"), SeriesClass::kHost);
}

// The classes come from the metric catalogue's gating classes; this is the table docs/compare.md shows.
TEST(CompareClasses, EveryCatalogueMetricHasItsClassInEveryMode) {
  for (const char* mode : {"eager", "capture", "graph", "app"}) {
    const bool eager = std::string(mode) == "eager";
    EXPECT_EQ(series_class("gpu_time_per_iter", mode, false), eager ? SeriesClass::kHost : SeriesClass::kDevice) << mode;
    EXPECT_EQ(series_class("gpu_time_per_iter_latched", mode, false), SeriesClass::kDevice) << mode;
    EXPECT_EQ(series_class("gpu_time_per_iter_latched", mode, true), SeriesClass::kHost) << mode;
    for (const char* host : {"host_time_per_iter_batched", "wall_time_per_iter", "launch_cpu_per_call",
                             "launch_cpu_isolated", "launch_cpu_per_iter", "capture_time", "build_time",
                             "instantiate_time", "upload_time", "first_launch_time", "upload_call_time",
                             "instantiate_time_first", "upload_time_first", "upload_call_time_first"})
      EXPECT_EQ(series_class(host, mode, false), SeriesClass::kHost) << host << " " << mode;
    EXPECT_EQ(series_class("kernels_per_iter", mode, false), SeriesClass::kInfo) << mode;  // not in the catalogue
  }
}

// ---------------------------------------------------------------------------------------------
// Device level (sections.device_probe; docs/compare.md "Device level")

Report with_probe(Report r, double before, double after) {
  for (auto& res : r.results)
    res.sections.device_probe = DeviceProbeSection{256, before, after, "", nlohmann::json::object(), {}};
  return r;
}

// A gpu_time_per_iter report of kSeven x 1000 microseconds, times `factor`, whose results ran at
// the device level `before` -> `after` (ns per kernel of the probe).
Report at_level(double factor, double before, double after) {
  return with_probe(report_of("gpu_time_per_iter", metric_of(scaled(scaled(kSeven, 1000), factor))), before, after);
}

TEST(CompareDeviceLevel, EqualProbesLeaveTheVerdictAlone) {
  const auto base = scaled(kSeven, 1000);
  const Report b = report_of("gpu_time_per_iter", metric_of(base));
  const Report c = report_of("gpu_time_per_iter", metric_of(scaled(base, 1.35)));
  const Comparison plain = compare(b, c, {});
  const Comparison probed = compare(with_probe(b, 508, 510), with_probe(c, 512, 509), {});
  ASSERT_EQ(probed.rows.size(), 1u);
  EXPECT_EQ(plain.rows[0].verdict, Verdict::kRegression);
  EXPECT_EQ(probed.rows[0].verdict, Verdict::kRegression) << probed.rows[0].reason;
  EXPECT_EQ(probed.rows[0].reason, plain.rows[0].reason);
  EXPECT_TRUE(probed.rows[0].notes.empty());
  EXPECT_EQ(probed.outcome, CompareOutcome::kRegression);
}

TEST(CompareDeviceLevel, ARegressionAtAnotherDeviceLevelIsNotTrusted) {
  const Report b = at_level(1, 508, 506);
  const Report c = at_level(1.35, 685, 687);
  const Comparison cmp = compare(b, c, {});
  ASSERT_EQ(cmp.rows.size(), 1u);
  const MetricComparison& r = cmp.rows[0];
  EXPECT_EQ(r.verdict, Verdict::kNotComparable) << r.reason;
  EXPECT_EQ(r.effect, GateEffect::kUntrusted);
  EXPECT_NE(r.reason.find("device level differs: base 508 ns/kernel, candidate 685 ns/kernel; docs/findings.md"),
            std::string::npos)
      << r.reason;
  EXPECT_NE(r.reason.find("would read: regression +35"), std::string::npos) << r.reason;
  EXPECT_EQ(cmp.outcome, CompareOutcome::kNotTrustworthy);
  EXPECT_NE(cmp.outcome_reason.find("1 regression measured at different device levels"), std::string::npos)
      << cmp.outcome_reason;
  // A real regression elsewhere still gives exit 1 (1 wins over 5).
  Report c2 = c;
  ModeResult other = c2.results[0];
  other.workload = "w2";
  c2.results.push_back(other);
  Report b2 = b;
  other = b2.results[0];
  other.workload = "w2";
  other.sections.device_probe.reset();
  b2.results.push_back(other);
  EXPECT_EQ(compare(b2, c2, {}).outcome, CompareOutcome::kRegression);
}

TEST(CompareDeviceLevel, AnImprovementAtAnotherLevelIsUndecidedAndPasses) {
  const Report b = at_level(1, 685, 685);
  const Report c = at_level(0.74, 508, 508);
  const Comparison cmp = compare(b, c, {});
  ASSERT_EQ(cmp.rows.size(), 1u);
  EXPECT_EQ(cmp.rows[0].verdict, Verdict::kInconclusive) << cmp.rows[0].reason;
  EXPECT_NE(cmp.rows[0].reason.find("device level differs: base 685"), std::string::npos) << cmp.rows[0].reason;
  EXPECT_EQ(cmp.rows[0].effect, GateEffect::kPass);
  EXPECT_EQ(cmp.outcome, CompareOutcome::kPass) << cmp.outcome_reason;
}

TEST(CompareDeviceLevel, ASameVerdictAtAnotherLevelKeepsItAndNotesIt) {
  const Comparison cmp = compare(at_level(1, 508, 508),
                                 at_level(1, 685, 508), {});
  ASSERT_EQ(cmp.rows.size(), 1u);
  EXPECT_EQ(cmp.rows[0].verdict, Verdict::kSame);
  EXPECT_EQ(cmp.outcome, CompareOutcome::kPass);
  const auto& n = cmp.rows[0].notes;
  ASSERT_EQ(n.size(), 2u);
  EXPECT_NE(n[0].find("device level differs"), std::string::npos) << n[0];
  EXPECT_NE(n[1].find("switched levels during the candidate result (685 -> 508 ns/kernel)"), std::string::npos) << n[1];
}

// The H200 case of 2026-11-30 (docs/compare.md): both sides start at the fast level, the candidate's
// process switches during the result (504 -> 681), and its time reads +34 %.
TEST(CompareDeviceLevel, ARegressionWhileTheDeviceSwitchedIsNotTrusted) {
  const Report b = at_level(1, 504, 505);
  const Report c = at_level(1.34, 504, 681);
  const Comparison cmp = compare(b, c, {});
  ASSERT_EQ(cmp.rows.size(), 1u);
  const MetricComparison& r = cmp.rows[0];
  EXPECT_EQ(r.verdict, Verdict::kNotComparable) << r.reason;
  EXPECT_NE(r.reason.find("the device switched levels during the candidate result (504 -> 681 ns/kernel)"),
            std::string::npos)
      << r.reason;
  EXPECT_NE(r.reason.find("would read: regression +34"), std::string::npos) << r.reason;
  EXPECT_EQ(cmp.outcome, CompareOutcome::kNotTrustworthy);
  EXPECT_NE(cmp.outcome_reason.find("while the device switched levels"), std::string::npos) << cmp.outcome_reason;
  // Without the switch the same change is a regression.
  EXPECT_EQ(compare(b, with_probe(c, 504, 506), {}).rows[0].verdict, Verdict::kRegression);
}

// A side merged from several processes (merge, --processes, a pooled folder) is judged by every
// process's probe, not only the first one's: here the candidate's second process ran at the slow
// level, so a third of its samples did, and its +35 % is no code change.
TEST(CompareDeviceLevel, AMergedSideIsJudgedByEveryProcess) {
  const Report b1 = at_level(1, 508, 508);
  const Report c_fast = at_level(1.35, 508, 509);
  const Report c_slow = at_level(1.35, 685, 686);
  const Report b = merge_reports({b1, b1, b1}, {"b1.json", "b2.json", "b3.json"});
  const Report c = merge_reports({c_fast, c_slow, c_fast}, {"c1.json", "c2.json", "c3.json"});
  for (const Report& cand : {c, report_from_json(to_json(c), "c.json")}) {  // also as read back from JSON
    const Comparison cmp = compare(b, cand, {});
    ASSERT_EQ(cmp.rows.size(), 1u);
    const MetricComparison& r = cmp.rows[0];
    EXPECT_EQ(r.verdict, Verdict::kNotComparable) << r.reason;
    EXPECT_NE(r.reason.find("the device switched levels among the candidate's 3 processes (508 .. 686 ns/kernel)"),
              std::string::npos)
        << r.reason;
    EXPECT_EQ(r.reason.find("baseline"), std::string::npos) << r.reason;  // all of its processes ran at 508
    EXPECT_EQ(cmp.outcome, CompareOutcome::kNotTrustworthy);
  }
  // Every process at one level on each side: the verdict stands.
  EXPECT_EQ(compare(b, merge_reports({c_fast, c_fast}, {"c1.json", "c3.json"}), {}).rows[0].verdict,
            Verdict::kRegression);
  // A merged report of an older graphprof has only the first process's probe: judged by it, as before.
  Report old = c;
  old.results[0].sections.device_probe->processes.clear();
  EXPECT_EQ(compare(b, old, {}).rows[0].verdict, Verdict::kRegression);
}

TEST(CompareDeviceLevel, ProbesOnOneSideOnlyOrFailedChangeNothing) {
  const auto base = scaled(kSeven, 1000);
  const Report b = report_of("gpu_time_per_iter", metric_of(base));
  const Report c = at_level(1.35, 685, 685);
  const Comparison one = compare(b, c, {});
  EXPECT_EQ(one.rows[0].verdict, Verdict::kRegression);
  EXPECT_TRUE(one.rows[0].notes.empty());
  Report failed = b;
  failed.results[0].sections.device_probe = DeviceProbeSection{256, kNoValue, kNoValue, "cudaGraphLaunch returned x", {}, {}};
  const Comparison f = compare(failed, c, {});
  EXPECT_EQ(f.rows[0].verdict, Verdict::kRegression);
  EXPECT_EQ(f.outcome, CompareOutcome::kRegression);
}

}  // namespace
}  // namespace gp
