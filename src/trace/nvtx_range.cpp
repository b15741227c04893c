// The one file that includes nvtx3: graphprof's NVTX domain and its ranges.
#include <nvtx3/nvtx3.hpp>

#include "graphprof/trace/nvtx_range.hpp"

namespace gp {

namespace {
struct graphprof_domain {
  static constexpr char const* name{"graphprof"};
};
}  // namespace

NvtxRange::NvtxRange(const char* name) noexcept {
  nvtxDomainRangePushEx(nvtx3::domain::get<graphprof_domain>(), nvtx3::event_attributes{name}.get());
}

NvtxRange::~NvtxRange() { nvtxDomainRangePop(nvtx3::domain::get<graphprof_domain>()); }

void nvtx_mark(const char* name) noexcept { nvtx3::mark_in<graphprof_domain>(name); }

}  // namespace gp
