// The steps of a profiled process's loop as the steps by kind see them (step_kinds.cpp;
// docs/profile.md "Steps by kind"): the loop cut into steps (step_cuts.cpp), and where in the
// application's code eager steps differ from graph steps, with the framework's reasons joined to
// the code they name (step_reasons.cpp). Internal to src/profile.
#pragma once
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "graphprof/profile/profile.hpp"
#include "site_analysis.hpp"

namespace gp::profile_detail {

// A step: (start, end] on the host clock, the graphs it launched and its eager launch calls.
struct Step {
  std::uint64_t start = 0, end = 0;
  std::set<std::uint32_t> graphs;
  std::vector<std::uint32_t> eager;  // correlation ids of its eager kernel launch calls
  std::size_t kind = 0;
  // A graph was instantiated in it, or it launched none and the next step instantiated one: the
  // warm-up run before a capture (CUDA-graph trees run a new size eagerly once, then record it).
  bool made_graph = false, warms_up = false;
  bool startup() const { return graphs.empty() && (made_graph || warms_up); }
};

// A graph launch call.
struct Call {
  std::uint64_t start = 0, end = 0;
  std::uint32_t thread = 0, co = 0, graph = 0;  // graph: the graph id a graph launch ran
};

// The steps, cut as step_cuts.cpp says at its top, with what each launched. `launches`: the graph
// launch calls, `step_launches` those of the step's graphs on the step's `thread`; `eager`: the
// eager kernel launch calls, `syncs` the step thread's synchronising calls; each sorted by start.
// Says in `sk` what cut them.
std::vector<Step> cut_steps(const ProcessRecords& p, const ProcessProfile& out, const std::vector<Call>& launches,
                            const std::vector<Call>& step_launches, const std::vector<const ApiRecord*>& eager,
                            const std::vector<const ApiRecord*>& syncs, std::uint32_t thread, StepKinds& sk);

// Where eager steps differ from graph steps in the application's code: the Python frames of the
// sampled calls of eager steps that no sampled call of a graph step has, the outermost of those
// at least half of them share; without one, the commonest site of their calls.
std::string eager_where_of(const SiteRecords& r, const std::vector<Step>& steps);

// The framework's reasons, joined to the sampled calls whose Python stack runs the code they name.
// `eager_gpu`: the GPU time of each eager launch call, by correlation id.
void join_reasons(const ProcessRecords& p, const SiteInputs& in, const std::vector<Step>& steps,
                  const std::unordered_map<std::uint32_t, double>& eager_gpu, StepKinds& sk);

}  // namespace gp::profile_detail
