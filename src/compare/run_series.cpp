// One side of one metric reduced to what the verdict uses: one value per run (process).
// Repetitions inside one process share that moment's machine state and agree far more
// closely than separate processes do (7-67x on the H200), so they are never counted as
// independent runs: a process's repetitions collapse to the median of their medians.
// No run is set aside as an outlier: host figures are two-state per process, and dropping the
// "odd" run on each side manufactures changes; an odd run widens the interval instead.
#include <algorithm>
#include <cmath>

#include "comparison_internal.hpp"
#include "graphprof/compare/compare_stats.hpp"
#include "graphprof/core/stats.hpp"

namespace gp::compare_detail {

std::optional<SideData> side_data(const Metric& m, int runs, int reps_per_run, double max_invalid,
                                  const std::string& side, std::string& why) {
  SideData s;
  std::size_t total = 0;
  // Per repetition: its median, or NaN when it has no finite sample (kept as a placeholder so
  // that runs stay aligned with their repetitions).
  std::vector<double> rep_medians;
  std::vector<Summary> kept;
  for (const auto& rep : m.repetitions) {
    std::vector<double> finite;
    for (double v : rep) {
      ++total;
      if (std::isfinite(v)) finite.push_back(v);
      else ++s.dropped_samples;
    }
    if (finite.empty()) {
      ++s.dropped_reps;
      rep_medians.push_back(std::nan(""));
      continue;
    }
    kept.push_back(summarize(finite));
    rep_medians.push_back(kept.back().median);
  }
  if (total == 0) {
    why = side + " has no samples";
    return std::nullopt;
  }
  if (kept.empty()) {
    why = side + ": none of its " + std::to_string(total) + " samples is a finite number";
    return std::nullopt;
  }
  if (static_cast<double>(s.dropped_samples) > max_invalid * static_cast<double>(total)) {
    why = side + ": " + std::to_string(s.dropped_samples) + " of " + std::to_string(total) +
          " samples are not finite numbers (more than " + pct(max_invalid) + ")";
    return std::nullopt;
  }
  for (const Summary& k : kept) {
    if (!(k.median > 0)) {
      why = side + ": a repetition's median is " + strf("%g", k.median) + "; a ratio needs positive values";
      return std::nullopt;
    }
  }
  for (std::size_t i = 0; i < kept.size(); ++i) {
    s.samples += kept[i].n;
    s.rep_ci_low = i == 0 ? kept[i].ci_low : std::min(s.rep_ci_low, kept[i].ci_low);
    s.rep_ci_high = i == 0 ? kept[i].ci_high : std::max(s.rep_ci_high, kept[i].ci_high);
  }
  // Runs: when the repetitions are exactly `runs` blocks of `reps_per_run` (graphprof merge and
  // pooled folders concatenate in process order), each block is one run; otherwise, when the
  // report says it is one process, all of it is one run; else each repetition counts as a run.
  std::vector<std::vector<double>> blocks;
  const std::size_t n = rep_medians.size();
  if (runs > 1 && reps_per_run >= 1 && n == static_cast<std::size_t>(runs) * static_cast<std::size_t>(reps_per_run)) {
    for (std::size_t b = 0; b < static_cast<std::size_t>(runs); ++b)
      blocks.emplace_back(rep_medians.begin() + static_cast<std::ptrdiff_t>(b * reps_per_run),
                          rep_medians.begin() + static_cast<std::ptrdiff_t>((b + 1) * reps_per_run));
  } else if (runs <= 1) {
    blocks.push_back(rep_medians);
  } else {
    for (double v : rep_medians) blocks.push_back({v});
  }
  std::vector<double> values;
  for (auto& b : blocks) {
    b.erase(std::remove_if(b.begin(), b.end(), [](double v) { return !std::isfinite(v); }), b.end());
    if (!b.empty()) values.push_back(median(b));
  }
  s.reps = values;
  s.runs = values.size();
  s.center = median(s.reps);
  if (s.reps.size() >= 2) {
    std::vector<double> logs;
    for (double v : s.reps) logs.push_back(std::log(v));
    double mean = 0;
    for (double v : logs) mean += v;
    mean /= static_cast<double>(logs.size());
    double ss = 0;
    for (double v : logs) ss += (v - mean) * (v - mean);
    s.spread = std::sqrt(ss / static_cast<double>(logs.size() - 1));
  }
  return s;
}

}  // namespace gp::compare_detail
