// Coverage in the steady state (steady_coverage.hpp).
#include "steady_coverage.hpp"

#include <algorithm>

namespace gp::profile_detail {

std::optional<SteadyCoverage> steady_coverage(const SteadyInputs& in) {
  // The most-launched exec opens the window with its first launch; the last graph launch closes it.
  const std::vector<const ApiRecord*>* top = nullptr;
  for (const auto& [exec, calls] : *in.launches_of_exec)
    if (top == nullptr || calls.size() > top->size()) top = &calls;
  if (top == nullptr || top->size() < 2) return std::nullopt;
  const std::uint64_t from = top->front()->start_ns;
  std::uint64_t to = from;
  for (const ApiRecord* a : *in.graph_launches) to = std::max(to, a->end_ns);
  auto inside = [&](const ApiRecord* a) { return a->start_ns >= from && a->start_ns <= to; };

  SteadyCoverage s;
  s.from_ns = static_cast<double>(from - std::min(from, in.begin_ns));
  s.to_ns = static_cast<double>(to - std::min(to, in.begin_ns));
  std::unordered_map<std::uint32_t, std::size_t> nodes_of;  // exec -> nodes
  for (const auto& e : *in.execs) nodes_of[e.exec_id] = e.nodes;
  std::set<std::uint32_t> in_window;  // correlation ids of the launches inside
  for (const ApiRecord* a : *in.graph_launches) {
    if (!inside(a)) continue;
    ++s.graph_launches;
    in_window.insert(a->correlation_id);
    if (auto e = in.exec_of->find(a->correlation_id); e != in.exec_of->end())
      if (auto n = nodes_of.find(e->second); n != nodes_of.end()) s.graph_node_runs += static_cast<double>(n->second);
  }
  for (const ApiRecord* a : *in.eager_launches) {
    if (!inside(a)) continue;
    ++s.eager_launches;
    in_window.insert(a->correlation_id);
  }
  if (in.kernels != nullptr) {
    s.kernel_records = true;
    for (const auto& k : *in.kernels) {
      if (in_window.count(k.correlation_id) == 0) continue;
      const double t = k.end_ns >= k.start_ns ? static_cast<double>(k.end_ns - k.start_ns) : 0.0;
      if (k.graph_id != 0) {
        ++s.graph_kernels;
        s.graph_kernel_ns += t;
      } else {
        ++s.eager_kernels;
        s.eager_kernel_ns += t;
      }
    }
  }
  return s;
}

}  // namespace gp::profile_detail
