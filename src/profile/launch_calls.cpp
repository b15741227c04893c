// Launch calls and the launch queue (launch_calls.hpp).
#include "launch_calls.hpp"

#include <algorithm>
#include <optional>

#include "graphprof/core/stats.hpp"

namespace gp::profile_detail {

namespace {

double duration(std::uint64_t start, std::uint64_t end) { return end >= start ? static_cast<double>(end - start) : 0.0; }

std::optional<DurationStats> stats_if_any(const std::vector<double>& v) {
  if (v.empty()) return std::nullopt;
  return duration_stats(v);
}

}  // namespace

LaunchCalls analyze_calls(std::vector<const ApiRecord*> calls, const QueueView& queue,
                          const std::unordered_map<std::uint32_t, Extent>& extent) {
  LaunchCalls out;
  if (calls.empty()) return out;
  std::sort(calls.begin(), calls.end(), [](const ApiRecord* a, const ApiRecord* b) { return a->start_ns < b->start_ns; });
  std::vector<double> all;
  for (const ApiRecord* a : calls) all.push_back(duration(a->start_ns, a->end_ns));
  out.all = duration_stats(all);
  out.first_call_ns = all.front();
  if (queue.empty()) {
    out.unblocked = out.all;
    return out;
  }
  std::vector<double> latency, idle_latency, queued_latency;
  std::vector<bool> busy_whole(calls.size());
  std::vector<std::size_t> flight(calls.size());
  for (std::size_t i = 0; i < calls.size(); ++i) {
    const std::uint64_t pending = queue.pending_end(calls[i]->start_ns);
    const bool idle = pending <= calls[i]->start_ns;
    if (idle) ++out.idle_calls;
    busy_whole[i] = pending >= calls[i]->end_ns;
    flight[i] = queue.in_flight(calls[i]->start_ns);
    out.max_in_flight = std::max(out.max_in_flight, flight[i]);
    auto e = extent.find(calls[i]->correlation_id);
    if (e == extent.end()) continue;
    const double l = e->second.start > calls[i]->end_ns ? static_cast<double>(e->second.start - calls[i]->end_ns) : 0.0;
    latency.push_back(l);
    (idle ? idle_latency : queued_latency).push_back(l);
  }
  // A queue at most half as full as it ever got cannot have been what a call waited for.
  std::vector<double> shallow;
  for (std::size_t i = 0; i < calls.size(); ++i)
    if (2 * flight[i] <= out.max_in_flight) shallow.push_back(all[i]);
  if (shallow.size() >= 5) {
    out.reference_ns = median(shallow);
    out.reference_from = "queue at most half full";
  } else {
    std::vector<double> sorted = all;
    std::sort(sorted.begin(), sorted.end());
    out.reference_ns = quantile_sorted(sorted, 0.10);
    out.reference_from = "10th percentile";
  }
  const double ref = *out.reference_ns;
  const double limit = std::max(2.0 * ref, ref + 5000.0);
  std::vector<double> unblocked, blocked_flight;
  for (std::size_t i = 0; i < calls.size(); ++i) {
    if (busy_whole[i] && all[i] > limit) {
      ++out.blocked;
      out.blocked_wait_ns += all[i] - ref;
      blocked_flight.push_back(static_cast<double>(flight[i]));
    } else {
      unblocked.push_back(all[i]);
    }
  }
  out.unblocked = duration_stats(unblocked);
  if (!blocked_flight.empty()) out.in_flight_when_blocked = median(blocked_flight);
  out.queue_latency = stats_if_any(latency);
  out.idle_latency = stats_if_any(idle_latency);
  out.queued_latency = stats_if_any(queued_latency);
  return out;
}

}  // namespace gp::profile_detail
