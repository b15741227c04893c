// How a run can end early (see run_outcome.hpp).
#include "graphprof/core/run_outcome.hpp"

#include "graphprof/core/params.hpp"
#include "graphprof/core/text_format.hpp"

namespace gp {

bool lost_cuda_context(const ModeResult& r) { return r.sections.cuda_context_lost; }

std::string lost_context_message(const Report& report) {
  for (std::size_t i = 0; i < report.results.size(); ++i) {
    const ModeResult& r = report.results[i];
    if (!lost_cuda_context(r)) continue;
    const std::string params = r.params.empty() ? "" : " [" + params_text(r.params, " ") + "]";
    std::string error = r.failure ? r.failure->api + " returned " + r.failure->error : r.reason;
    if (error.empty() && r.sections.trace) error = r.sections.trace->reason;
    return "workload " + r.workload + params + ", mode " + to_string(r.mode) + " broke the CUDA context (" + error +
           "); every later CUDA call would fail, so the run stopped there. The " + std::to_string(i) +
           " result(s) measured before it were kept";
  }
  return {};
}

ModeResult cut_by_time_limit(const std::string& workload, Mode mode, const std::map<std::string, std::string>& params) {
  ModeResult r;
  r.workload = workload;
  r.mode = mode;
  r.params = params;
  r.status = Status::kFailed;
  r.reason = "not measured: --time-limit was reached before it started";
  r.sections.cut_by_time_limit = true;
  return r;
}

bool was_cut_by_time_limit(const ModeResult& r) { return r.sections.cut_by_time_limit; }

std::string time_limit_message(const Report& report, double limit_seconds) {
  std::size_t cut = 0;
  for (const ModeResult& r : report.results) cut += was_cut_by_time_limit(r) ? 1 : 0;
  if (cut == 0) return {};
  return "--time-limit " + strf("%g", limit_seconds) + " s reached: " + std::to_string(report.results.size() - cut) +
         " of " + std::to_string(report.results.size()) + " results measured, " + std::to_string(cut) +
         " not (recorded as failed, 'not measured: --time-limit ...'); the outputs hold what was measured";
}

}  // namespace gp
