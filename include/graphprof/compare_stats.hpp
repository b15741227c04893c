// Statistics behind `graphprof compare`: the shift between two small sets of independent
// repetitions (one value per repetition, on a log scale) with an exact, distribution-free
// confidence interval. Host-only and deterministic (no resampling), so identical inputs give
// identical verdicts; the CPU tests cover all of it.
//
// Why these methods: a repetition's median is one draw of the run-to-run noise, and there are
// few of them (5-10). Rank methods make no normality assumption, cannot be dragged by one
// outlier repetition, and give intervals whose coverage is exact for any continuous noise.
#pragma once
#include <cstddef>
#include <vector>

namespace gp {

// Null distribution of the Mann-Whitney U statistic (number of pairs with y > x) for m and n
// values without ties: P(U <= u) for u = 0..m*n. Exact counts up to m + n = kExactRankLimit,
// then the normal approximation with continuity correction.
inline constexpr std::size_t kExactRankLimit = 200;
std::vector<double> mann_whitney_cdf(std::size_t m, std::size_t n);

// A confidence interval of a shift, as order statistics of the m*n pairwise differences.
struct ShiftInterval {
  bool available = false;  // false when m and n are too small for the requested level
  double low = 0, high = 0;
  double level = 0;     // requested, e.g. 0.99
  double coverage = 0;  // achieved (>= level for exact intervals), 0 when unavailable
  std::size_t rank = 0; // k: the interval is [D(k), D(mn+1-k)] of the sorted differences
  bool exact = true;    // false when the normal approximation chose k
};

// The Hodges-Lehmann shift of y against x: the median of all differences y_j - x_i, with
// its distribution-free confidence interval (inverting the Mann-Whitney test).
struct ShiftEstimate {
  double estimate = 0;
  std::size_t m = 0, n = 0;
  ShiftInterval ci_gate;  // the wide interval that must clear the noise floor (default 99%)
  ShiftInterval ci_same;  // the narrower one for the equivalence test (default 90%)
};

// Sorted pairwise differences y_j - x_i (m*n values).
std::vector<double> pairwise_differences(const std::vector<double>& x, const std::vector<double>& y);

// Largest k >= 1 with P(U <= k-1) <= (1 - level) / 2, or 0 when even k = 1 is too wide a
// net (too few values for that level). `coverage` receives 1 - 2 P(U <= k-1).
std::size_t shift_ci_rank(std::size_t m, std::size_t n, double level, double* coverage = nullptr);

// Both inputs must be non-empty; values should be finite (callers drop the rest first).
ShiftEstimate hodges_lehmann(const std::vector<double>& x, const std::vector<double>& y, double gate_level,
                             double same_level);

// Quantile of the standard normal distribution (0 < p < 1).
double normal_quantile(double p);

// Quantile of Student's t distribution with `df` degrees of freedom (0 < p < 1, df > 0).
double student_t_quantile(double p, double df);

// A standard deviation that a minority of real changes cannot inflate: values more than three
// robust sds (1.4826 MAD) from the median are set aside, at most floor(n/5) of them, and the
// sample sd of the rest around the median is returned. `kept` receives how many were used.
// 0 for fewer than two values.
double screened_sd(const std::vector<double>& values, std::size_t* kept = nullptr);

// Welch's comparison of two means, y - x, for the log run values of two sides (each needs at
// least two values). `df` is the Welch-Satterthwaite degrees of freedom; 0 when both sides
// show no spread at all (the caller then uses the normal quantile).
struct WelchResult {
  double diff = 0;       // mean(y) - mean(x)
  double std_error = 0;  // sqrt(var_x / m + var_y / n)
  double df = 0;
  double sd_x = 0, sd_y = 0;
};
WelchResult welch(const std::vector<double>& x, const std::vector<double>& y);

// Runs per side for which a one-sided test with critical value `critical` would see a true
// change of `effect` (log scale) beyond `floor` (log scale) with the given power, when runs
// vary by `sd` (log scale): 2 ((critical + z_power) sd / (effect - floor))^2, at least 2.
// Returns 0 when effect <= floor.
std::size_t runs_to_detect(double sd, double effect, double floor, double critical, double power = 0.8);

// Spread of repetition values as a robust standard deviation: 1.4826 * MAD (0 for one value).
double robust_sd(const std::vector<double>& values);

}  // namespace gp
