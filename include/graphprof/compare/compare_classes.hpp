// Gating classes of `graphprof compare`: which series may decide the exit code by default,
// and how much a series of each class moves between runs (processes) when nothing changed.
// docs/compare.md has the same table; the numbers come from real H200 runs
// (the fixtures in tests/data/gate).
#pragma once
#include <string>

namespace gp {

enum class SeriesClass {
  kDevice,  // device time with host submission out of the way: < 1 % between runs; gates
  kHost,    // host clock around CUDA calls, eager GPU time, one-off costs: 3-40 %; reported
  kInfo,    // counts, ratios, anything without a time meaning: reported only
};
const char* to_string(SeriesClass c);

// The class of `metric` measured in `mode`. `waits_for_host`: the result's iterations wait
// for the host (the latched pass could not queue one), so its device figures follow the host.
SeriesClass series_class(const std::string& metric, const std::string& mode, bool waits_for_host);

// Between-run sd (log scale) assumed for a class when a side has too few runs to show its own:
// about twice the upper end of what the class shows on the H200, as another machine may be
// noisier. Device: 2 % in capture/graph (H200: 0.01-0.7 %), 4 % for eager (latched eager
// varies 1.6-3.2 %); host: 30 % (launch cost is two-state per process, 3-28 %).
double class_between_run_sd(SeriesClass c, const std::string& mode);

}  // namespace gp
