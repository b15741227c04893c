// The binned timeline of one profiled process (ProcessTimeline in profile.hpp), made while
// analyze_process classifies the launch calls. Private to src/profile.
#pragma once
#include <cstdint>
#include <vector>

#include "graphprof/profile/profile.hpp"

namespace gp::profile_detail {

// Bins of equal width from `begin_ns` over `span_ns` (at least 1 ns); events outside are clamped
// into the first or last bin. Kernel time is split over the bins a kernel overlaps.
ProcessTimeline make_timeline(std::uint64_t begin_ns, double span_ns, const TraceData& data,
                              const std::vector<const ApiRecord*>& graph_launches,
                              const std::vector<const ApiRecord*>& eager_launches,
                              const std::vector<ProfiledExec>& execs, std::size_t bins);

}  // namespace gp::profile_detail
