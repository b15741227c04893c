// The steps of a profiled process's loop (steps.hpp; docs/profile.md "Steps by kind").
//
// A step is cut where the loop itself marks it: an NVTX range (--step-range), or the synchronising
// call the loop makes once per step (a serving loop reads its result back each step: `.item()` is a
// cudaStreamSynchronize), found as the call that lies between nearly every two launches of the
// step's graphs, once in most of them. A step without a graph launch is an eager step; without
// such a call eager steps cannot be told apart from the work around graph steps, and are not.
#include <algorithm>
#include <map>
#include <numeric>

#include "steps.hpp"

namespace gp::profile_detail {

namespace {

// The synchronising call the loop makes once per step: of the API names (on the step's thread)
// found between two consecutive launches of the step's graphs in at least 90 % of the gaps, the
// one with the fewest calls, unless its counts in the gaps have a common divisor above 1 (a call
// made k times a step is found k, 2k, ... times in a gap). "" when none is.
std::string find_delimiter(const std::vector<Call>& step_launches, const std::vector<const ApiRecord*>& syncs) {
  if (step_launches.size() < 3) return {};
  std::map<std::string, std::vector<std::uint64_t>> starts;  // name -> sorted starts
  for (const ApiRecord* a : syncs) starts[a->name].push_back(a->start_ns);
  std::string best;
  std::size_t fewest = 0;
  for (auto& [name, s] : starts) {
    std::sort(s.begin(), s.end());
    std::size_t with = 0, divisor = 0, calls = 0;
    for (std::size_t i = 0; i + 1 < step_launches.size(); ++i) {
      const auto lo = std::lower_bound(s.begin(), s.end(), step_launches[i].end);
      const auto hi = std::lower_bound(s.begin(), s.end(), step_launches[i + 1].start);
      const auto n = static_cast<std::size_t>(hi - lo);
      with += n > 0;
      divisor = std::gcd(divisor, n);
      calls += n;
    }
    const std::size_t gaps = step_launches.size() - 1;
    if (with * 10 < gaps * 9 || divisor != 1) continue;
    if (best.empty() || calls < fewest) best = name, fewest = calls;
  }
  return best;
}

}  // namespace

std::vector<Step> cut_steps(const ProcessRecords& p, const ProcessProfile& out, const std::vector<Call>& launches,
                            const std::vector<Call>& step_launches, const std::vector<const ApiRecord*>& eager,
                            const std::vector<const ApiRecord*>& syncs, std::uint32_t thread, StepKinds& sk) {
  const StepDefinition& def = out.sites.step;
  std::vector<Step> steps;
  if (def.from == "nvtx range") {
    sk.from = "nvtx range";
    std::vector<std::pair<std::uint64_t, std::uint64_t>> ranges = p.sites.step_ranges.ranges;
    std::sort(ranges.begin(), ranges.end());
    for (const auto& [a, b] : ranges) steps.push_back(Step{a, b, {}, {}, 0});
  } else if (!step_launches.empty()) {
    sk.delimiter = find_delimiter(step_launches, syncs);
    if (!sk.delimiter.empty()) {
      sk.from = "sync";
      std::vector<const ApiRecord*> d;
      for (const ApiRecord* a : syncs)
        if (a->name == sk.delimiter) d.push_back(a);
      // Where the loop can begin: after the last graph made before its first step launch.
      std::uint64_t lo = p.begin_ns;
      for (const auto& g : out.graphs)
        if (g.exec.created_ns < step_launches.front().start) lo = std::max(lo, g.exec.created_ns);
      auto eager_on_thread = [&](std::uint64_t a, std::uint64_t b) {
        auto it = std::upper_bound(eager.begin(), eager.end(), a, [](std::uint64_t t, const ApiRecord* x) { return t < x->start_ns; });
        for (; it != eager.end() && (*it)->start_ns <= b; ++it)
          if ((*it)->thread_id == thread) return true;
        return false;
      };
      auto start_of = [&](std::size_t k) { return k == 0 ? lo : std::max(lo, d[k - 1]->end_ns); };
      // The steps of the graph launches: from the delimiter after the first launch to the one after the last.
      std::size_t first = d.size(), last = d.size();
      for (std::size_t k = 0; k < d.size(); ++k) {
        if (first == d.size() && d[k]->start_ns > step_launches.front().end) first = k;
        if (d[k]->start_ns > step_launches.back().end) {
          last = k;
          break;
        }
      }
      if (first < d.size() && last < d.size()) {
        // Eager steps before the first graph step and after the last: while each holds eager work.
        while (first > 0 && d[first - 1]->start_ns > lo && eager_on_thread(start_of(first - 1), d[first - 1]->start_ns)) --first;
        while (last + 1 < d.size() && eager_on_thread(d[last]->end_ns, d[last + 1]->start_ns)) ++last;
        for (std::size_t k = first; k <= last; ++k) steps.push_back(Step{start_of(k), d[k]->end_ns, {}, {}, 0});
        // The first step has no delimiter before it: it begins at its first launch call (graph or eager).
        if (!steps.empty() && (first == 0 || d[first - 1]->end_ns <= lo)) {
          std::uint64_t begin = steps.front().end;
          for (const Call& c : step_launches)
            if (c.start > steps.front().start) {
              begin = std::min(begin, c.start);
              break;
            }
          for (const ApiRecord* a : eager)
            if (a->start_ns > steps.front().start && a->thread_id == thread) {
              begin = std::min(begin, a->start_ns);
              break;
            }
          steps.front().start = begin - 1;
        }
      }
    }
    if (steps.empty()) {
      sk.from = "graph launch";
      sk.notes.push_back("no call marks every step (such as a synchronisation each step, or --step-range NAME): eager steps "
                         "cannot be told apart, and each step is one launch of the step's graphs");
      // One launch of the step's graphs each: what else ran between them is not a step's.
      for (std::size_t i = 0; i < step_launches.size(); ++i)
        steps.push_back(Step{i == 0 ? step_launches[i].start - 1 : step_launches[i - 1].end, step_launches[i].end,
                             {step_launches[i].graph}, {}, 0});
    }
  }

  // What each step launched.
  for (Step& s : steps) {
    auto lo = std::upper_bound(launches.begin(), launches.end(), s.start, [](std::uint64_t t, const Call& c) { return t < c.start; });
    for (auto it = lo; it != launches.end() && it->start <= s.end && sk.from != "graph launch"; ++it)
      if (it->graph != 0) s.graphs.insert(it->graph);
    auto e = std::upper_bound(eager.begin(), eager.end(), s.start, [](std::uint64_t t, const ApiRecord* x) { return t < x->start_ns; });
    for (; e != eager.end() && (*e)->start_ns <= s.end; ++e) s.eager.push_back((*e)->correlation_id);
    for (const auto& g : out.graphs) s.made_graph = s.made_graph || (g.exec.created_ns > s.start && g.exec.created_ns <= s.end);
  }
  for (std::size_t i = 0; i + 1 < steps.size(); ++i) steps[i].warms_up = steps[i + 1].made_graph;
  return steps;
}

}  // namespace gp::profile_detail
