// How a run can end early. After a sticky CUDA error (cudaErrorIllegalAddress and the like) the
// CUDA context is unusable: every later call fails with the same error. The runner then marks
// that mode's result (sections.cuda_context_lost = true), the suite stops there, and the CLI
// writes everything measured before, then exits 4 with lost_context_message().
#pragma once
#include <string>

#include "graphprof/core/report.hpp"

namespace gp {

inline constexpr const char* kContextLostSection = "cuda_context_lost";

// Whether this result is the one that lost the CUDA context.
bool lost_cuda_context(const ModeResult& r);
// Empty when no result lost the context; otherwise one line naming the workload, mode and
// error that broke it and how many results were measured before it.
std::string lost_context_message(const Report& report);

}  // namespace gp
