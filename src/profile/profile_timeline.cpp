// The timeline strip of a profiled process: its run cut into equal bins, with kernel time inside
// and outside graphs, launch calls of each kind and graphs instantiated per bin (profile.hpp).
#include "profile_timeline.hpp"

#include <algorithm>
#include <cmath>

namespace gp::profile_detail {

ProcessTimeline make_timeline(std::uint64_t begin_ns, double span_ns, const TraceData& data,
                              const std::vector<const ApiRecord*>& graph_launches,
                              const std::vector<const ApiRecord*>& eager_launches,
                              const std::vector<ProfiledExec>& execs, std::size_t bins) {
  ProcessTimeline t;
  if (bins == 0) return t;
  const double span = std::max(span_ns, 1.0);
  t.bin_ns = span / static_cast<double>(bins);
  t.graph_kernel_ns.assign(bins, 0.0);
  t.eager_kernel_ns.assign(bins, 0.0);
  t.graph_launches.assign(bins, 0);
  t.eager_launches.assign(bins, 0);
  t.graphs_made.assign(bins, 0);
  auto offset = [&](std::uint64_t ns) { return ns > begin_ns ? static_cast<double>(ns - begin_ns) : 0.0; };
  auto bin_of = [&](std::uint64_t ns) {
    const double b = std::floor(offset(ns) / t.bin_ns);
    return static_cast<std::size_t>(std::clamp(b, 0.0, static_cast<double>(bins - 1)));
  };
  for (const auto& k : data.kernels) {
    if (k.end_ns <= k.start_ns) continue;
    std::vector<double>& into = k.graph_id != 0 ? t.graph_kernel_ns : t.eager_kernel_ns;
    const double start = offset(k.start_ns), end = offset(k.end_ns);
    for (std::size_t b = bin_of(k.start_ns); b <= bin_of(k.end_ns) && b < bins; ++b) {
      const double lo = static_cast<double>(b) * t.bin_ns, hi = lo + t.bin_ns;
      const double part = std::min(end, b + 1 == bins ? end : hi) - std::max(start, b == 0 ? start : lo);
      if (part > 0) into[b] += part;
    }
  }
  for (const ApiRecord* a : graph_launches) ++t.graph_launches[bin_of(a->start_ns)];
  for (const ApiRecord* a : eager_launches) ++t.eager_launches[bin_of(a->start_ns)];
  for (const auto& e : execs) ++t.graphs_made[bin_of(e.created_ns)];
  return t;
}

}  // namespace gp::profile_detail
