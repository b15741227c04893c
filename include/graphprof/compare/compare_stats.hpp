// Statistics behind `graphprof compare`: Welch's comparison of two small sets of log run values
// (one value per process), the quantiles it needs, and how many runs would decide a series.
// Host-only and deterministic (no resampling), so identical inputs give identical verdicts.
//
// Why these methods: a run's value is one draw of the between-run noise, and there are few of
// them (3-10). Welch's t keeps each side's own spread (no pooled variance), and on a log scale a
// ratio becomes a difference; the suite-wide false-alarm budget is applied by the caller.
#pragma once
#include <cstddef>
#include <vector>

namespace gp {

// Quantile of the standard normal distribution (0 < p < 1).
double normal_quantile(double p);

// Quantile of Student's t distribution with `df` degrees of freedom (0 < p < 1, df > 0).
double student_t_quantile(double p, double df);

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

}  // namespace gp
