// Statistics for `graphprof compare` (see include/graphprof/compare/compare_stats.hpp).
#include "graphprof/compare/compare_stats.hpp"

#include <algorithm>
#include <cmath>

namespace gp {

namespace {
double normal_cdf(double z) { return 0.5 * std::erfc(-z / std::sqrt(2.0)); }
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

}  // namespace gp
