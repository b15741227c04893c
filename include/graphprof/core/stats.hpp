// Robust statistics over raw timing samples: order statistics, MAD, a distribution-free
// confidence interval of the median, and the stopping rule that decides when to stop sampling.
// Host-only; the CPU tests cover all of it.
#pragma once
#include <cstddef>
#include <vector>

namespace gp {

// What a set of samples looks like. All values are in the unit of the samples.
struct Summary {
  std::size_t n = 0;
  double median = 0, mean = 0, min = 0, max = 0;
  double p10 = 0, p90 = 0, p99 = 0;
  double mad = 0;              // median absolute deviation (raw, not scaled to sigma)
  double ci_low = 0, ci_high = 0;  // confidence interval of the median (order statistics)
  double ci_level = 0.95;
  // Half-width of the median's CI relative to the median; infinity when undefined.
  double rel_ci_half_width() const;
};

// Linear-interpolated quantile (type 7, as numpy's default) of already sorted values.
double quantile_sorted(const std::vector<double>& sorted, double q);
double median(std::vector<double> values);
// The median, or `empty_value` when there are no values (median() has none to give then).
double median_or(std::vector<double> values, double empty_value);
double median_absolute_deviation(const std::vector<double>& values);

// Ranks (1-based, inclusive) of the order statistics that bracket the median with at least
// `level` coverage for n samples: the exact binomial(n, 0.5) interval. For small n the
// interval may be the full range; for n < 2 there is none (lo = hi = 0).
struct RankInterval { std::size_t lo = 0, hi = 0; double coverage = 0; };
RankInterval median_ci_ranks(std::size_t n, double level);

// Summarise; an empty input gives a Summary with n == 0.
Summary summarize(const std::vector<double>& samples, double ci_level = 0.95);

// Decides when a measurement has enough samples: at least min_samples and min_seconds, then
// stop when the median's relative CI half-width is below the target, or when the time budget or
// the sample cap runs out. `converged` tells the two apart so reports can flag noisy figures.
struct StoppingRule {
  std::size_t min_samples = 20;
  std::size_t max_samples = 10000;  // raw samples are kept in the report; cap their number
  double target_rel_ci = 0.01;
  double min_seconds = 0.1;         // sample at least this long: a pass of a few milliseconds sees one
                                    // CPU/GPU state and its median moves between runs
  double budget_seconds = 1.0;
};

struct StopDecision {
  bool stop = false;
  bool converged = false;  // the CI target was met
};

StopDecision should_stop(const StoppingRule& rule, const std::vector<double>& samples,
                         double elapsed_seconds);

}  // namespace gp
