// `profile --step-range NAME`: the NVTX ranges named NAME, each one step of the application. The
// injection library is then also the process's NVTX injection (graphprof sets
// NVTX_INJECTION64_PATH to this library, next to CUDA_INJECTION64_PATH): NVTX calls
// InitializeInjectionNvtx2 (nvtx_steps.cpp, the library's one nvtx3 translation unit) at the
// program's first NVTX call, which points the range functions (push/pop and start/end, the default
// domain and named ones) at this library. A range whose message is not NAME costs one string
// compare; one that is NAME keeps its start and end (CUPTI clock).
//
// Lines written (format at the top of src/profile/profile_records.cpp):
//   step_range {name}                              at start, when NAME was given
//   nvtx {r: [[start, end], ...]}                  the ranges named NAME, in batches and at exit
//   nvtx_end {inits, others, open}                 at exit: how often NVTX initialised the library (0: the
//                                                  program made no NVTX call), ranges of other names, NAME ranges
//                                                  never closed
#pragma once
#include <string>

namespace gp::inject {

// Reads GRAPHPROF_PROFILE_STEP_RANGE; writes the step_range line when it is set.
void init_step_ranges();

// The ranges not yet written and the nvtx_end line ("" when no NAME was given); `may_wait`: false
// in a signal handler (the lock is only tried).
std::string step_range_lines(bool may_wait);

}  // namespace gp::inject
