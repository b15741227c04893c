// Which eager calls `graphprof profile` takes the call site of (`--site-sample`, docs/profile.md
// "Call sites"). Taking a stack costs about a microsecond or two a call (more under Python), so
// after the first K eager launches, copies, memsets and synchronising calls of each thread only
// 1 in M is taken, at random (a geometric gap of mean M after each taken call, so that no loop
// period lines up with it), and each taken one stands for M calls: per-site call counts and times
// are then estimates, whose expected value is the exact figure. Where a stack costs a thread more
// than 0.25 % of its time at 1 in M (a launch-dense Python loop), M grows for that thread
// (every_for). Captures, instantiations and allocations are always taken. Host-only: the
// injection library and the command line share it, and the CPU tests check it.
#pragma once
#include <cstdint>
#include <cstdlib>
#include <string>

namespace gp {

struct SiteSampling {
  bool all = false;
  std::uint32_t first = 256, every = 16;

  // "all" or "K,M" (K >= 0, M >= 1; M = 1 is every call). False for anything else.
  static bool parse(const std::string& text, SiteSampling& out) {
    if (text == "all") {
      out = SiteSampling{true, 0, 1};
      return true;
    }
    const std::size_t comma = text.find(',');
    if (comma == std::string::npos || comma == 0 || comma + 1 >= text.size()) return false;
    for (std::size_t i = 0; i < text.size(); ++i)
      if (i != comma && (text[i] < '0' || text[i] > '9')) return false;
    if (comma > 9 || text.size() - comma - 1 > 7) return false;
    const unsigned long k = std::strtoul(text.substr(0, comma).c_str(), nullptr, 10);
    const unsigned long m = std::strtoul(text.substr(comma + 1).c_str(), nullptr, 10);
    if (m == 0) return false;
    out = SiteSampling{m == 1, static_cast<std::uint32_t>(k), static_cast<std::uint32_t>(m)};
    return true;
  }

  std::string text() const { return all ? "all" : std::to_string(first) + "," + std::to_string(every); }

  // The share of a thread's time that taking stacks may cost, and the rarest sampling. The time
  // measured is the stack's own (inside the library); under Python a sampled stack costs the
  // program about as much again afterwards (the frame objects made for the read, caches: on the
  // H200 the PyTorch serving loop's own clock read +4.5 % with a 1 % budget, +1 % without call
  // sites), so the budget is a quarter of the 1 % aimed at (measured then: +2.1 % with call sites,
  // +1.3 % without; docs/profile.md "The light default's cost").
  static constexpr double kBudget = 0.0025;
  static constexpr std::uint32_t kMaxEvery = 1u << 16;

  // A thread's next M after a taken call that cost `took_ns`, when it made `calls` calls in the
  // `since_ns` since the previous taken one: the smallest power of two from `every` up with
  // took_ns / M <= kBudget * since_ns / calls (the stacks' cost per call within the budget of the
  // time per call); `every` itself when the rate is unknown.
  std::uint32_t every_for(double took_ns, std::uint64_t calls, std::uint64_t since_ns) const {
    std::uint32_t m = every < 1 ? 1 : every;
    if (calls == 0 || since_ns == 0) return m;
    const double need = took_ns * static_cast<double>(calls) / static_cast<double>(since_ns) / kBudget;
    while (m < kMaxEvery && static_cast<double>(m) < need) m *= 2;
    return m;
  }
};

}  // namespace gp
