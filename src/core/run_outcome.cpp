// How a run can end early (see run_outcome.hpp).
#include "graphprof/core/run_outcome.hpp"

#include "graphprof/core/params.hpp"

namespace gp {

bool lost_cuda_context(const ModeResult& r) {
  const nlohmann::json& o = r.sections.other;
  return o.contains(kContextLostSection) && o.at(kContextLostSection).is_boolean() &&
         o.at(kContextLostSection).get<bool>();
}

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

}  // namespace gp
