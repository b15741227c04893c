// The change between paired runs of one program (plain and profiled, run alternately): what
// `graphprof profile --overhead N` reports. Each pair gives one ratio profiled / plain; on a log
// scale the mean of those is the change and Student's t over the pairs its interval, so drift
// that moves both runs of a pair cancels. Host-only and deterministic.
#pragma once
#include <cstddef>
#include <optional>
#include <vector>

namespace gp {

struct PairedChange {
  std::size_t pairs = 0;  // pairs with both values positive
  double change = 0;      // exp(mean log ratio) - 1: +0.05 is 5 % more (slower, for times)
  double low = 0, high = 0;  // the interval at `level`, same scale (low = high = change with one pair)
  double level = 0.95;
  // The interval is wider than the effect: it holds both no change and a change twice as large
  // (its half-width exceeds |change|), so the runs cannot tell this effect from noise.
  bool wider_than_effect = false;
};

// Pairs plain[i] with profiled[i] (the shorter list decides how many); values <= 0 are skipped.
// Empty when no pair is usable.
std::optional<PairedChange> paired_change(const std::vector<double>& plain, const std::vector<double>& profiled,
                                          double level = 0.95);

}  // namespace gp
