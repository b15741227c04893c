// Measuring one (workload, mode): the passes, their order and what each records.
// See docs/methodology.md for why each figure is measured the way it is.
#pragma once
#include <chrono>
#include <optional>
#include <string>

#include "graphprof/cuda/measure_observer.hpp"
#include "graphprof/cuda/workload.hpp"
#include "graphprof/core/mode.hpp"
#include "graphprof/core/report.hpp"
#include "graphprof/core/stats.hpp"
#include "graphprof/trace/trace_options.hpp"

namespace gp {

struct MeasureOptions {
  StoppingRule rule;              // applied to each timing pass separately
  int warmup_iterations = 20;     // at least this many warm-up iterations ...
  double warmup_seconds = 0.05;   // ... and at least this long
  int verify_iterations = 3;      // iterations before the checksum
  int one_off_samples = 5;        // how often capture/build + instantiate + upload are repeated
  int repetitions = 1;            // independent repetitions (fresh workload, stream and graph)
  std::string dot_dir;            // where graph modes dump DOT files; empty = no dump
  TraceOptions trace;             // the CUPTI trace pass after the timing passes (docs/tracing.md)
  // Told when each pass starts, of each trace pass's records and of each finished result (progress
  // lines, trace files); not owned, may be null.
  MeasureObserver* observer = nullptr;
  // --time-limit: each pass of the mode gets its share of the time left (rule_within_time_left).
  std::optional<std::chrono::steady_clock::time_point> deadline;
};

// Runs every pass of one mode and returns its result. Expected failures (capture errors, an
// unsupported mode, a CUDA error inside the workload) are recorded in the result, not thrown;
// only environment problems (no driver) and bugs escape as exceptions.
ModeResult run_mode(const WorkloadEntry& workload, Mode mode, const Params& params, const MeasureOptions& opt);


}  // namespace gp
