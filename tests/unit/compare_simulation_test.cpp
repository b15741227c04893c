// False-alarm and detection rates of the compare gate, measured on many seeded synthetic
// baseline/candidate pairs. The noise model has the three levels real runs have:
//   log(sample) = log(true) + shift + job + repetition + sample noise (+ a rare slow tail)
// where `job` is shared by every repetition of one report (between-run noise that one run
// cannot see), and occasionally one whole repetition is hit by a hiccup.
// The rates are printed so they can be quoted; the assertions hold the gate to its promise.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>

#include "graphprof/compare.hpp"

namespace gp {
namespace {

struct NoiseModel {
  double sample = 0.02;       // sigma of log, per sample
  double repetition = 0.015;  // per repetition
  double job = 0.01;          // per report (between runs)
  double tail_probability = 0.02;
  double hiccup_probability = 0.05;  // one repetition of a report 20% slower
  int repetitions = 7;
  int samples = 30;
};

const char* const kGating[] = {"gpu_time_per_iter", "wall_time_per_iter", "launch_cpu_per_call"};

Report synthetic(std::mt19937_64& rng, const NoiseModel& nm, double shift) {
  std::normal_distribution<double> z(0.0, 1.0);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  Report r;
  ModeResult res;
  res.workload = "sim";
  res.mode = Mode::kGraph;
  res.params = {{"n", "1"}};
  const double truth[] = {100e3, 104e3, 1.2e3};
  for (int k = 0; k < 3; ++k) {
    Metric m;
    m.unit = "ns";
    const double job = nm.job * z(rng);
    const int hiccup = u(rng) < nm.hiccup_probability ? static_cast<int>(u(rng) * nm.repetitions) : -1;
    for (int rep = 0; rep < nm.repetitions; ++rep) {
      const double rep_off = nm.repetition * z(rng) + (rep == hiccup ? std::log(1.2) : 0.0);
      std::vector<double> s;
      for (int i = 0; i < nm.samples; ++i) {
        double v = std::log(truth[k]) + shift + job + rep_off + nm.sample * z(rng);
        if (u(rng) < nm.tail_probability) v += std::fabs(0.3 * z(rng));
        s.push_back(std::exp(v));
      }
      m.repetitions.push_back(std::move(s));
    }
    m.resummarize();
    res.metrics[kGating[k]] = std::move(m);
  }
  r.results.push_back(std::move(res));
  return r;
}

struct Rates {
  double regression = 0;   // per metric
  double improvement = 0;
  double failing_run = 0;  // per comparison: exit 1
  int metrics = 0;
};

Rates simulate(std::uint64_t seed, const NoiseModel& nm, double shift, int pairs, const Thresholds& t = {}) {
  std::mt19937_64 rng(seed);
  Rates out;
  int reg = 0, imp = 0, fails = 0;
  for (int i = 0; i < pairs; ++i) {
    const Report base = synthetic(rng, nm, 0.0);
    const Report cand = synthetic(rng, nm, shift);
    const Comparison c = compare(base, cand, t);
    for (const auto& row : c.rows) {
      reg += row.verdict == Verdict::kRegression;
      imp += row.verdict == Verdict::kImprovement;
      ++out.metrics;
    }
    fails += c.exit_code == ExitCode::kRegression;
  }
  out.regression = static_cast<double>(reg) / out.metrics;
  out.improvement = static_cast<double>(imp) / out.metrics;
  out.failing_run = static_cast<double>(fails) / pairs;
  return out;
}

void print(const char* what, const Rates& r) {
  std::printf("[ rates    ] %-58s regression %.2f%%  improvement %.2f%%  failing runs %.2f%%  (%d metrics)\n", what,
              100 * r.regression, 100 * r.improvement, 100 * r.failing_run, r.metrics);
}

TEST(CompareSimulation, FalseAlarmsOnPureNoiseStayBelowOnePercent) {
  const NoiseModel nm;
  const Rates r = simulate(1, nm, 0.0, 2000);
  print("A/A, 7 reps, job 1% rep 1.5% sample 2%, hiccups", r);
  RecordProperty("aa_false_alarm_rate_percent", std::to_string(100 * r.regression));
  EXPECT_LE(r.regression, 0.01);
  EXPECT_LE(r.failing_run, 0.01);
  EXPECT_LE(r.improvement, 0.01);
}

TEST(CompareSimulation, FalseAlarmsWithFewAndSingleRepetitions) {
  NoiseModel five;
  five.repetitions = 5;
  const Rates r5 = simulate(2, five, 0.0, 1500);
  print("A/A, 5 reps", r5);
  EXPECT_LE(r5.regression, 0.01);
  NoiseModel one;
  one.repetitions = 1;
  one.hiccup_probability = 0;
  const Rates r1 = simulate(3, one, 0.0, 1500);
  print("A/A, 1 rep (gross rule)", r1);
  EXPECT_LE(r1.regression, 0.01);
}

TEST(CompareSimulation, SeparateRunsAsRepetitionsSeeTheBetweenRunNoise) {
  // Five single-repetition runs per side, pooled: each run lands 7% away from the others (as
  // the H200 VM's eager figures do), so the repetitions carry the between-run noise themselves.
  NoiseModel nm;
  nm.repetitions = 5;
  nm.repetition = 0.07;
  nm.job = 0.0;
  const Rates r = simulate(14, nm, 0.0, 1500);
  print("A/A, 5 separate runs per side, runs scatter by 7%", r);
  EXPECT_LE(r.regression, 0.01);
}

TEST(CompareSimulation, BetweenRunNoiseBeyondTheDesignPointIsReported) {
  // Twice the job-level noise the defaults are designed for: one run cannot see it, so only
  // the 5% practical threshold stands between it and a false alarm. Documented, not hidden.
  NoiseModel nm;
  nm.job = 0.02;
  const Rates r = simulate(4, nm, 0.0, 1500);
  print("A/A, 7 reps, job noise 2% (twice the design point)", r);
  EXPECT_LE(r.regression, 0.05);
  // The documented remedy: a threshold that matches the machine's between-run noise.
  Thresholds wide;
  wide.threshold = 0.10;
  const Rates fixed = simulate(4, nm, 0.0, 1500, wide);
  print("A/A, 7 reps, job noise 2%, --threshold 10", fixed);
  EXPECT_LE(fixed.regression, 0.01);
}

// A suite of ten benchmarks whose repetitions agree closely but which each land elsewhere in
// a rerun (the H200 VM's eager, launch-bound figures moved by 10-20% between two runs).
Report synthetic_suite(std::mt19937_64& rng, double run_sd, double shift, int shifted) {
  std::normal_distribution<double> z(0.0, 1.0);
  Report r;
  for (int b = 0; b < 10; ++b) {
    ModeResult res;
    res.workload = "w" + std::to_string(b);
    res.mode = Mode::kEager;
    Metric m;
    m.unit = "ns";
    const double run = run_sd * z(rng) + (b < shifted ? shift : 0.0);
    for (int rep = 0; rep < 5; ++rep) {
      const double rep_off = 0.004 * z(rng);
      std::vector<double> s;
      for (int i = 0; i < 20; ++i) s.push_back(std::exp(std::log(50e3 * (b + 1)) + run + rep_off + 0.01 * z(rng)));
      m.repetitions.push_back(std::move(s));
    }
    m.resummarize();
    res.metrics["gpu_time_per_iter"] = std::move(m);
    r.results.push_back(std::move(res));
  }
  return r;
}

TEST(CompareSimulation, SuiteNoiseKeepsFalseAlarmsLowWhenRerunsScatter) {
  std::mt19937_64 rng(11);
  int rows = 0, false_alarms = 0, naive_alarms = 0;
  Thresholds naive;
  naive.suite_noise = false;
  for (int i = 0; i < 300; ++i) {
    const Report a = synthetic_suite(rng, 0.07, 0, 0);
    const Report b = synthetic_suite(rng, 0.07, 0, 0);
    for (const auto& row : compare(a, b, {}).rows) false_alarms += row.verdict == Verdict::kRegression, ++rows;
    for (const auto& row : compare(a, b, naive).rows) naive_alarms += row.verdict == Verdict::kRegression;
  }
  const double rate = static_cast<double>(false_alarms) / rows;
  const double naive_rate = static_cast<double>(naive_alarms) / rows;
  std::printf("[ rates    ] %-58s regression %.2f%%  (without it: %.2f%%)  (%d metrics)\n",
              "A/A suite, 5 reps, reruns scatter by 7% per benchmark", 100 * rate, 100 * naive_rate, rows);
  EXPECT_LE(rate, 0.01);
  EXPECT_GE(naive_rate, 0.10);  // the failure mode this guards against is real
}

double suite_detection(std::uint64_t seed, double run_sd, double shift) {
  std::mt19937_64 rng(seed);
  int shifted_rows = 0, detected = 0;
  for (int i = 0; i < 300; ++i) {
    const Report a = synthetic_suite(rng, run_sd, 0, 0);
    const Report b = synthetic_suite(rng, run_sd, shift, 2);
    for (const auto& row : compare(a, b, {}).rows) {
      if (row.workload != "w0" && row.workload != "w1") continue;
      ++shifted_rows;
      detected += row.verdict == Verdict::kRegression;
    }
  }
  return static_cast<double>(detected) / shifted_rows;
}

TEST(CompareSimulation, SuiteNoiseStillLetsRealChangesThrough) {
  const double big = suite_detection(12, 0.01, std::log(1.25));
  std::printf("[ rates    ] %-58s regression %.2f%%\n", "+25% in 2 of 10 benchmarks, reruns scatter by 1%", 100 * big);
  EXPECT_GE(big, 0.90);
  const double ten = suite_detection(13, 0.01, std::log(1.10));
  std::printf("[ rates    ] %-58s regression %.2f%%\n", "+10% in 2 of 10 benchmarks, reruns scatter by 1%", 100 * ten);
  EXPECT_GE(ten, 0.50);
}

TEST(CompareSimulation, DetectsARealTenPercentSlowdown) {
  const NoiseModel nm;
  const Rates r = simulate(5, nm, std::log(1.10), 1000);
  print("+10% shift, 7 reps", r);
  RecordProperty("detection_rate_10pct_percent", std::to_string(100 * r.regression));
  EXPECT_GE(r.regression, 0.95);
  EXPECT_EQ(r.improvement, 0.0);
  NoiseModel five;
  five.repetitions = 5;
  const Rates r5 = simulate(6, five, std::log(1.10), 1000);
  print("+10% shift, 5 reps", r5);
  EXPECT_GE(r5.regression, 0.90);
}

TEST(CompareSimulation, SmallerShiftsAreCaughtLessOftenButNeverInverted) {
  const NoiseModel nm;
  const Rates r6 = simulate(7, nm, std::log(1.06), 1000);
  print("+6% shift, 7 reps", r6);
  EXPECT_GE(r6.regression, 0.30);
  EXPECT_EQ(r6.improvement, 0.0);
  // A real change below the threshold is mostly minor; between-run noise pushes some point
  // estimates past 5%, so the detection curve rises smoothly instead of jumping at 5%.
  const Rates r3 = simulate(8, nm, std::log(1.03), 1000);
  print("+3% shift, 7 reps (below the 5% threshold)", r3);
  EXPECT_LE(r3.regression, 0.20);
  EXPECT_LT(r3.regression, r6.regression);
  NoiseModel one;
  one.repetitions = 1;
  one.hiccup_probability = 0;
  const Rates r1 = simulate(9, one, std::log(1.25), 1000);
  print("+25% shift, 1 rep (gross rule)", r1);
  EXPECT_GE(r1.regression, 0.90);
}

}  // namespace
}  // namespace gp
