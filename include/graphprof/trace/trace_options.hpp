// What the trace pass of `graphprof run` records and where its raw material goes. Host-only, so
// the CLI and MeasureOptions can carry it without CUPTI or CUDA headers.
#pragma once
#include <cstddef>

#include "graphprof/trace/trace_records.hpp"

namespace gp {

struct TraceOptions {
  TraceLevel level = TraceLevel::kNone;  // the CLI's default is kNode; library callers opt in
  int iterations = 200;                  // measured replays in the trace pass
  std::size_t buffer_bytes = std::size_t{8} << 20;  // first CUPTI buffer size; grows when buffers fill
  // true: cuptiFinalize after each trace pass, so the next mode's timing passes run without CUPTI.
  // false: CUPTI stays loaded but idle until the end of the run (the path PyTorch's profiler takes).
  bool detach_after_each_pass = true;
  // Each successful trace pass's records and node join go to MeasureOptions::observer
  // (graphprof/cuda/measure_observer.hpp).
};

}  // namespace gp
