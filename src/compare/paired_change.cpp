// Paired log-ratio change with a Student's t interval (paired_change.hpp).
#include "graphprof/compare/paired_change.hpp"

#include <cmath>

#include "graphprof/compare/compare_stats.hpp"

namespace gp {

std::optional<PairedChange> paired_change(const std::vector<double>& plain, const std::vector<double>& profiled, double level) {
  std::vector<double> d;
  for (std::size_t i = 0; i < plain.size() && i < profiled.size(); ++i)
    if (plain[i] > 0 && profiled[i] > 0) d.push_back(std::log(profiled[i] / plain[i]));
  if (d.empty()) return std::nullopt;
  PairedChange c;
  c.pairs = d.size();
  c.level = level;
  double mean = 0;
  for (double v : d) mean += v;
  mean /= static_cast<double>(d.size());
  c.change = std::exp(mean) - 1.0;
  c.low = c.high = c.change;
  if (d.size() >= 2) {
    double ss = 0;
    for (double v : d) ss += (v - mean) * (v - mean);
    const double se = std::sqrt(ss / static_cast<double>(d.size() - 1) / static_cast<double>(d.size()));
    const double half = student_t_quantile(0.5 + level / 2.0, static_cast<double>(d.size() - 1)) * se;
    c.low = std::exp(mean - half) - 1.0;
    c.high = std::exp(mean + half) - 1.0;
    c.wider_than_effect = half > std::fabs(mean);
  } else {
    c.wider_than_effect = true;  // one pair: no interval at all
  }
  return c;
}

}  // namespace gp
