// Coverage in the steady state beside the whole process's (docs/profile.md, "Coverage"): the work
// from the first launch of the most-launched graph to the last graph launch, where warm-up,
// autotuning and the captures are over. Internal to the profile layer (profile_analysis.cpp).
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>
#include <vector>

#include "graphprof/profile/profile.hpp"

namespace gp::profile_detail {

struct SteadyInputs {
  std::uint64_t begin_ns = 0;                                          // the process's CUDA initialisation
  const std::map<std::uint32_t, std::vector<const ApiRecord*>>* launches_of_exec = nullptr;  // sorted by start
  const std::vector<const ApiRecord*>* graph_launches = nullptr;
  const std::vector<const ApiRecord*>* eager_launches = nullptr;
  const std::unordered_map<std::uint32_t, std::uint32_t>* exec_of = nullptr;  // correlation -> exec
  const std::vector<ProfiledExec>* execs = nullptr;
  const std::vector<KernelRecord>* kernels = nullptr;  // all traced (node level without sampling), else null
  const std::unordered_map<std::uint32_t, const ApiRecord*>* api_by_correlation = nullptr;
};

// Empty without a graph launched at least twice.
std::optional<SteadyCoverage> steady_coverage(const SteadyInputs& in);

}  // namespace gp::profile_detail
