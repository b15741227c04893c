// Rank statistics for `graphprof compare` (see include/graphprof/compare_stats.hpp).
#include "graphprof/compare_stats.hpp"

#include <algorithm>
#include <cmath>

#include "graphprof/stats.hpp"

namespace gp {

namespace {

double normal_cdf(double z) { return 0.5 * std::erfc(-z / std::sqrt(2.0)); }

// Number of rank arrangements of m x-values and n y-values with U = u, for u = 0..m*n: the
// coefficients of the Gaussian binomial [m+n choose m]_q, built as prod_{i=1..m} (1-q^(n+i))/(1-q^i).
// After each full step the polynomial is [n+i choose i]_q, whose coefficients are non-negative
// counts, so doubles stay exact for the small-u tail that the intervals need.
std::vector<double> mann_whitney_counts(std::size_t m, std::size_t n) {
  std::vector<double> c(m * n + m + 1, 0.0);
  c[0] = 1.0;
  std::size_t deg = 0;
  for (std::size_t i = 1; i <= m; ++i) {
    const std::size_t a = n + i;
    for (std::size_t u = deg + a; u >= a; --u) c[u] -= c[u - a];  // times (1 - q^a), high to low
    deg += a;
    for (std::size_t u = i; u <= deg; ++u) c[u] += c[u - i];       // divided by (1 - q^i)
    deg -= i;
  }
  c.resize(m * n + 1);
  return c;
}

}  // namespace

// By bisection on the normal CDF: slow but exact to double precision and free of approximation
// constants; called a handful of times per comparison.
double normal_quantile(double p) {
  double lo = -40, hi = 40;
  for (int i = 0; i < 200; ++i) {
    const double mid = 0.5 * (lo + hi);
    if (normal_cdf(mid) < p) lo = mid;
    else hi = mid;
  }
  return 0.5 * (lo + hi);
}

std::vector<double> mann_whitney_cdf(std::size_t m, std::size_t n) {
  std::vector<double> cdf(m * n + 1, 1.0);
  if (m == 0 || n == 0) return cdf;
  if (m + n <= kExactRankLimit) {
    const std::size_t small = std::min(m, n), large = std::max(m, n);  // fewer outer steps
    const std::vector<double> counts = mann_whitney_counts(small, large);
    double total = 0;
    for (double v : counts) total += v;
    double run = 0;
    for (std::size_t u = 0; u < counts.size(); ++u) {
      run += counts[u];
      cdf[u] = std::min(1.0, run / total);
    }
    return cdf;
  }
  const double mu = 0.5 * static_cast<double>(m) * static_cast<double>(n);
  const double sigma = std::sqrt(static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(m + n + 1) / 12.0);
  for (std::size_t u = 0; u < cdf.size(); ++u) cdf[u] = normal_cdf((static_cast<double>(u) + 0.5 - mu) / sigma);
  return cdf;
}

std::size_t shift_ci_rank(std::size_t m, std::size_t n, double level, double* coverage) {
  if (coverage) *coverage = 0;
  if (m == 0 || n == 0 || !(level > 0) || !(level < 1)) return 0;
  const double tail = 0.5 * (1.0 - level);
  const std::size_t mn = m * n;
  std::size_t k = 0;
  double p_at_k = 0;
  if (m + n <= kExactRankLimit) {
    const std::vector<double> cdf = mann_whitney_cdf(m, n);
    // P(U <= k-1) must stay within the tail; the interval needs k <= mn+1-k.
    for (std::size_t cand = 1; 2 * cand <= mn + 1; ++cand) {
      if (cdf[cand - 1] > tail * (1 + 1e-12)) break;
      k = cand;
      p_at_k = cdf[cand - 1];
    }
  } else {
    const double mu = 0.5 * static_cast<double>(mn);
    const double sigma = std::sqrt(static_cast<double>(mn) * static_cast<double>(m + n + 1) / 12.0);
    const double bound = mu - 0.5 + sigma * normal_quantile(tail);  // largest k-1 inside the tail
    if (bound >= 0) {
      k = static_cast<std::size_t>(std::floor(bound)) + 1;
      k = std::min(k, (mn + 1) / 2);
      p_at_k = normal_cdf((static_cast<double>(k - 1) + 0.5 - mu) / sigma);
    }
  }
  if (k == 0) return 0;
  if (coverage) *coverage = 1.0 - 2.0 * p_at_k;
  return k;
}

std::vector<double> pairwise_differences(const std::vector<double>& x, const std::vector<double>& y) {
  std::vector<double> d;
  d.reserve(x.size() * y.size());
  for (double yj : y)
    for (double xi : x) d.push_back(yj - xi);
  std::sort(d.begin(), d.end());
  return d;
}

namespace {
ShiftInterval interval_from(const std::vector<double>& diffs, std::size_t m, std::size_t n, double level) {
  ShiftInterval ci;
  ci.level = level;
  double cov = 0;
  const std::size_t k = shift_ci_rank(m, n, level, &cov);
  if (k == 0) return ci;
  ci.available = true;
  ci.rank = k;
  ci.coverage = cov;
  ci.exact = m + n <= kExactRankLimit;
  ci.low = diffs[k - 1];
  ci.high = diffs[diffs.size() - k];
  return ci;
}
}  // namespace

ShiftEstimate hodges_lehmann(const std::vector<double>& x, const std::vector<double>& y, double gate_level,
                             double same_level) {
  ShiftEstimate e;
  e.m = x.size();
  e.n = y.size();
  if (x.empty() || y.empty()) return e;
  const std::vector<double> diffs = pairwise_differences(x, y);
  e.estimate = quantile_sorted(diffs, 0.5);
  e.ci_gate = interval_from(diffs, e.m, e.n, gate_level);
  e.ci_same = interval_from(diffs, e.m, e.n, same_level);
  return e;
}

namespace {
// Regularized incomplete beta I_x(a, b) by its continued fraction (modified Lentz), the usual
// route to Student's t tail: fast and accurate to ~1e-12 for the few quantiles compare needs.
double beta_fraction(double a, double b, double x) {
  const double tiny = 1e-300;
  double c = 1.0, d = 1.0 - (a + b) * x / (a + 1.0);
  if (std::fabs(d) < tiny) d = tiny;
  d = 1.0 / d;
  double h = d;
  for (int m = 1; m <= 300; ++m) {
    const double m2 = 2.0 * m;
    double aa = m * (b - m) * x / ((a + m2 - 1.0) * (a + m2));
    d = 1.0 + aa * d;
    if (std::fabs(d) < tiny) d = tiny;
    c = 1.0 + aa / c;
    if (std::fabs(c) < tiny) c = tiny;
    d = 1.0 / d;
    h *= d * c;
    aa = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1.0));
    d = 1.0 + aa * d;
    if (std::fabs(d) < tiny) d = tiny;
    c = 1.0 + aa / c;
    if (std::fabs(c) < tiny) c = tiny;
    d = 1.0 / d;
    const double step = d * c;
    h *= step;
    if (std::fabs(step - 1.0) < 1e-14) break;
  }
  return h;
}

double incomplete_beta(double a, double b, double x) {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const double front = std::exp(std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) +
                                b * std::log1p(-x));
  if (x < (a + 1.0) / (a + b + 2.0)) return front * beta_fraction(a, b, x) / a;
  return 1.0 - front * beta_fraction(b, a, 1.0 - x) / b;
}

double t_cdf(double x, double df) {
  const double tail = 0.5 * incomplete_beta(0.5 * df, 0.5, df / (df + x * x));  // P(T > |x|)
  return x >= 0 ? 1.0 - tail : tail;
}
}  // namespace

double student_t_quantile(double p, double df) {
  if (df > 200) return normal_quantile(p);  // indistinguishable at the levels used here
  if (p < 0.5) return -student_t_quantile(1.0 - p, df);
  double lo = 0, hi = 1;
  while (t_cdf(hi, df) < p && hi < 1e6) hi *= 2;
  for (int i = 0; i < 60; ++i) {
    const double mid = 0.5 * (lo + hi);
    if (t_cdf(mid, df) < p) lo = mid;
    else hi = mid;
  }
  return 0.5 * (lo + hi);
}

double screened_sd(const std::vector<double>& values, std::size_t* kept) {
  if (kept) *kept = values.size();
  if (values.size() < 2) return 0;
  const double mid = median(values);
  const double limit = 3.0 * robust_sd(values);
  std::vector<double> dev;
  for (double v : values) dev.push_back(std::fabs(v - mid));
  std::sort(dev.begin(), dev.end());
  // Screening, not trimming: with no real change nothing is set aside and the sd is the plain
  // one; a trimmed sd corrected for normal tails would overstate it whenever the values cut
  // were real changes rather than tails.
  std::size_t m = dev.size();
  while (m > dev.size() - dev.size() / 5 && dev[m - 1] > limit) --m;
  if (kept) *kept = m;
  double ss = 0;
  for (std::size_t i = 0; i < m; ++i) ss += dev[i] * dev[i];
  return std::sqrt(ss / static_cast<double>(m - 1));
}

WelchResult welch(const std::vector<double>& x, const std::vector<double>& y) {
  WelchResult w;
  auto mean_var = [](const std::vector<double>& v, double& mean, double& var) {
    mean = 0;
    for (double a : v) mean += a;
    mean /= static_cast<double>(v.size());
    double ss = 0;
    for (double a : v) ss += (a - mean) * (a - mean);
    var = v.size() > 1 ? ss / static_cast<double>(v.size() - 1) : 0;
  };
  double mx = 0, vx = 0, my = 0, vy = 0;
  mean_var(x, mx, vx);
  mean_var(y, my, vy);
  const double m = static_cast<double>(x.size()), n = static_cast<double>(y.size());
  const double ax = vx / m, ay = vy / n;
  w.diff = my - mx;
  w.std_error = std::sqrt(ax + ay);
  w.sd_x = std::sqrt(vx);
  w.sd_y = std::sqrt(vy);
  const double denom = (m > 1 ? ax * ax / (m - 1) : 0) + (n > 1 ? ay * ay / (n - 1) : 0);
  w.df = denom > 0 ? (ax + ay) * (ax + ay) / denom : 0;
  return w;
}

std::size_t runs_to_detect(double sd, double effect, double floor, double critical, double power) {
  if (!(effect > floor)) return 0;
  const double k = (critical + normal_quantile(power)) * sd / (effect - floor);
  const double n = std::ceil(2.0 * k * k);
  if (!(n < 1e9)) return 1000000000;
  return std::max<std::size_t>(2, static_cast<std::size_t>(n));
}

double robust_sd(const std::vector<double>& values) {
  if (values.size() < 2) return 0;
  return 1.4826 * median_absolute_deviation(values);
}

}  // namespace gp
