// How a run can end early. After a sticky CUDA error (cudaErrorIllegalAddress and the like) the
// CUDA context is unusable: every later call fails with the same error. The runner then marks
// that mode's result (sections.cuda_context_lost = true), the suite stops there, and the CLI
// writes everything measured before, then exits 4 with lost_context_message().
#pragma once
#include <map>
#include <string>

#include "graphprof/core/report.hpp"

namespace gp {

// Whether this result is the one that lost the CUDA context.
bool lost_cuda_context(const ModeResult& r);
// Empty when no result lost the context; otherwise one line naming the workload, mode and
// error that broke it and how many results were measured before it.
std::string lost_context_message(const Report& report);

// `--time-limit SECONDS` (run, sweep): a (workload, mode) that had not started when the limit was
// reached is recorded, not dropped: status failed, reason saying so, sections
// .cut_by_time_limit = true. The CLI writes what was measured, then exits 4 with
// time_limit_message().
ModeResult cut_by_time_limit(const std::string& workload, Mode mode, const std::map<std::string, std::string>& params);
bool was_cut_by_time_limit(const ModeResult& r);
// Empty when no result was cut; otherwise one line: the limit, how many results were measured
// and how many were not.
std::string time_limit_message(const Report& report, double limit_seconds);

}  // namespace gp
