// Node sampling with kernels=P%: the kernel records that CONCURRENT_KERNEL's switching may have
// spoiled (include/graphprof/profile/profile.hpp, launches_across_kernel_switches). On the H200 the
// kernels of a launch still in flight when the kind was switched off came back with wrong times.
#include <algorithm>

#include "graphprof/profile/profile.hpp"

namespace gp {

std::set<std::uint32_t> launches_across_kernel_switches(const std::vector<KernelRecord>& kernels,
                                                        const std::vector<KernelSwitch>& switches) {
  std::set<std::uint32_t> out;
  // The periods with the kind off: [off, next on), the last one open-ended.
  struct Off {
    std::uint64_t from, to;
  };
  std::vector<KernelSwitch> sorted = switches;
  std::stable_sort(sorted.begin(), sorted.end(), [](const KernelSwitch& a, const KernelSwitch& b) { return a.ts_ns < b.ts_ns; });
  std::vector<Off> off;
  bool on = true;
  for (const KernelSwitch& s : sorted) {
    if (s.on == on) continue;  // a repeated word changes nothing
    on = s.on;
    if (!on) off.push_back(Off{s.ts_ns, UINT64_MAX});
    else off.back().to = s.ts_ns;
  }
  if (off.empty()) return out;
  for (const KernelRecord& k : kernels) {
    if (k.correlation_id == 0) continue;
    // The last period that began before the record ended: the record ran into it (or across the
    // switch on that ended it) when it started before that period's end.
    auto it = std::lower_bound(off.begin(), off.end(), k.end_ns, [](const Off& o, std::uint64_t e) { return o.from < e; });
    if (it == off.begin()) continue;
    --it;
    if (k.start_ns < it->to) out.insert(k.correlation_id);
  }
  return out;
}

}  // namespace gp
