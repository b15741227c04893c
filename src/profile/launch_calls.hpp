// What launch calls cost the host, kept apart from the waits for a full launch queue (LaunchCalls
// in profile.hpp; docs/profile.md): the GPU extent of each launch, the queue it met, and the
// statistics of a set of launch calls. Internal to the profile layer (profile_analysis.cpp).
#pragma once
#include <algorithm>
#include <cstdint>
#include <iterator>
#include <limits>
#include <unordered_map>
#include <utility>
#include <vector>

#include "graphprof/profile/profile.hpp"

namespace gp::profile_detail {

// The GPU work of one launch: its first start and its last end.
struct Extent {
  std::uint64_t start = std::numeric_limits<std::uint64_t>::max(), end = 0;
  void add(std::uint64_t s, std::uint64_t e) {
    start = std::min(start, s);
    end = std::max(end, e);
  }
};

// When the GPU will have finished the work submitted before a given host time, and how many
// launches were in flight then: launch calls sorted by the time they returned, with the running
// maximum of their work's end; and the sorted call ends and work ends for counting.
class QueueView {
 public:
  QueueView(const std::vector<const ApiRecord*>& launches, const std::unordered_map<std::uint32_t, Extent>& extent) {
    for (const ApiRecord* a : launches) {
      auto it = extent.find(a->correlation_id);
      if (it == extent.end()) continue;
      subs_.emplace_back(a->end_ns, it->second.end);
      call_ends_.push_back(a->end_ns);
      work_ends_.push_back(std::max(a->end_ns, it->second.end));
    }
    std::sort(subs_.begin(), subs_.end());
    std::sort(call_ends_.begin(), call_ends_.end());
    std::sort(work_ends_.begin(), work_ends_.end());
    std::uint64_t m = 0;
    for (auto& s : subs_) s.second = m = std::max(m, s.second);
  }
  bool empty() const { return subs_.empty(); }
  // End of the GPU work of every launch call that returned at or before `t` (0 when none).
  std::uint64_t pending_end(std::uint64_t t) const {
    auto it = std::upper_bound(subs_.begin(), subs_.end(), std::make_pair(t, std::numeric_limits<std::uint64_t>::max()));
    return it == subs_.begin() ? 0 : std::prev(it)->second;
  }
  // Launches that had returned by `t` and whose GPU work had not finished by then.
  std::size_t in_flight(std::uint64_t t) const {
    const auto returned = std::upper_bound(call_ends_.begin(), call_ends_.end(), t) - call_ends_.begin();
    const auto finished = std::upper_bound(work_ends_.begin(), work_ends_.end(), t) - work_ends_.begin();
    return returned > finished ? static_cast<std::size_t>(returned - finished) : 0;
  }

 private:
  std::vector<std::pair<std::uint64_t, std::uint64_t>> subs_;
  std::vector<std::uint64_t> call_ends_, work_ends_;
};

// The statistics of `calls` (any order; sorted by start here), the calls blocked by a full queue
// told apart from the others.
LaunchCalls analyze_calls(std::vector<const ApiRecord*> calls, const QueueView& queue,
                          const std::unordered_map<std::uint32_t, Extent>& extent);

}  // namespace gp::profile_detail
