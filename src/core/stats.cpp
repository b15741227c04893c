// Robust statistics for timing samples (see include/graphprof/core/stats.hpp).
#include "graphprof/core/stats.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <utility>

namespace gp {

double Summary::rel_ci_half_width() const {
  if (n < 2 || !(median > 0)) return std::numeric_limits<double>::infinity();
  return 0.5 * (ci_high - ci_low) / median;
}

double quantile_sorted(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return std::numeric_limits<double>::quiet_NaN();
  if (q <= 0) return sorted.front();
  if (q >= 1) return sorted.back();
  const double pos = q * static_cast<double>(sorted.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
  const double frac = pos - static_cast<double>(lo);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * frac;
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return quantile_sorted(values, 0.5);
}

double median_or(std::vector<double> values, double empty_value) {
  return values.empty() ? empty_value : median(std::move(values));
}

double median_absolute_deviation(const std::vector<double>& values) {
  if (values.empty()) return std::numeric_limits<double>::quiet_NaN();
  const double m = median(values);
  std::vector<double> dev(values.size());
  std::transform(values.begin(), values.end(), dev.begin(), [m](double v) { return std::fabs(v - m); });
  return median(std::move(dev));
}

namespace {
// log of the binomial(n, 1/2) probability mass at k, through lgamma to stay finite for large n.
double log_binom_half(std::size_t n, std::size_t k) {
  const double dn = static_cast<double>(n), dk = static_cast<double>(k);
  return std::lgamma(dn + 1) - std::lgamma(dk + 1) - std::lgamma(dn - dk + 1) - dn * std::log(2.0);
}
}  // namespace

RankInterval median_ci_ranks(std::size_t n, double level) {
  RankInterval r;
  if (n < 2) return r;
  // The order-statistic interval [X(k+1), X(n-k)] covers the median with probability
  // 1 - 2 * P(Bin(n, 1/2) <= k). Pick the largest k that keeps the coverage >= level.
  if (n > 2000) {
    // Normal approximation; exact sums would cost O(n) lgamma calls per summary for no gain.
    const double z = level >= 0.99 ? 2.5758 : (level >= 0.95 ? 1.96 : 1.6449);
    const double half = z * std::sqrt(static_cast<double>(n)) / 2.0;
    const double center = static_cast<double>(n) / 2.0;
    r.lo = static_cast<std::size_t>(std::max(1.0, std::floor(center - half)));
    r.hi = static_cast<std::size_t>(std::min(static_cast<double>(n), std::ceil(center + half + 1)));
    r.coverage = level;
    return r;
  }
  // tail = P(Bin <= k); the interval [X(k+1), X(n-k)] then has coverage 1 - 2 * tail.
  double tail = 0;
  std::size_t best_k = 0;
  double best_cov = 0;
  bool found = false;
  for (std::size_t k = 0; k < n / 2; ++k) {
    tail += std::exp(log_binom_half(n, k));
    const double cov = 1.0 - 2.0 * tail;
    if (cov < level) break;
    best_k = k;
    best_cov = cov;
    found = true;
  }
  if (!found) {  // too few samples to reach the level: the whole range is the best we can say
    r.lo = 1;
    r.hi = n;
    r.coverage = 1.0 - 2.0 * std::exp(log_binom_half(n, 0));
    return r;
  }
  r.lo = best_k + 1;
  r.hi = n - best_k;
  r.coverage = best_cov;
  return r;
}

Summary summarize(const std::vector<double>& samples, double ci_level) {
  Summary s;
  s.ci_level = ci_level;
  std::vector<double> v;
  v.reserve(samples.size());
  for (double x : samples)
    if (std::isfinite(x)) v.push_back(x);
  s.n = v.size();
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  s.min = v.front();
  s.max = v.back();
  s.median = quantile_sorted(v, 0.5);
  s.p10 = quantile_sorted(v, 0.10);
  s.p90 = quantile_sorted(v, 0.90);
  s.p99 = quantile_sorted(v, 0.99);
  s.mean = std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
  s.mad = median_absolute_deviation(v);
  const RankInterval r = median_ci_ranks(v.size(), ci_level);
  if (r.lo >= 1 && r.hi >= r.lo) {
    s.ci_low = v[r.lo - 1];
    s.ci_high = v[r.hi - 1];
  } else {
    s.ci_low = s.ci_high = s.median;
  }
  return s;
}

StopDecision should_stop(const StoppingRule& rule, const std::vector<double>& samples,
                         double elapsed_seconds) {
  StopDecision d;
  if (samples.size() >= rule.max_samples) {
    d.stop = true;
  } else if (samples.size() >= rule.min_samples && elapsed_seconds >= rule.min_seconds) {
    const Summary s = summarize(samples);
    if (s.rel_ci_half_width() <= rule.target_rel_ci) {
      d.stop = true;
      d.converged = true;
      return d;
    }
  }
  if (elapsed_seconds >= rule.budget_seconds && samples.size() >= std::min<std::size_t>(rule.min_samples, 3))
    d.stop = true;
  if (d.stop && !d.converged && samples.size() >= rule.min_samples) {
    d.converged = summarize(samples).rel_ci_half_width() <= rule.target_rel_ci;
  }
  return d;
}

}  // namespace gp
