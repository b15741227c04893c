// The trace pass: after the timing passes of one (workload, mode), the same iteration is replayed
// again with CUPTI recording, so the timing figures stay unperturbed and the perturbation itself
// can be reported (traced vs untraced GPU time per iteration). See docs/tracing.md.
#pragma once
#include "graphprof/cuda/runner.hpp"

namespace gp {

// Runs the trace pass and writes res.sections["trace"] (status ok | unavailable | failed, with a
// reason). CUPTI problems and CUDA errors inside the pass are recorded there, never thrown, so the
// timing results stand; environment errors (device lost, no driver) and errors thrown by
// the observer's trace_recorded propagate. Does nothing when opt.trace.level is kNone.
void run_trace_pass(const WorkloadEntry& entry, Mode mode, const Params& params, const MeasureOptions& opt,
                    ModeResult& res);

}  // namespace gp
