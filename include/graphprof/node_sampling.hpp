// Which graph launches `graphprof profile` traces node by node (docs/profile.md "Node sampling").
// Per-node GPU times do not need every replay: the injection library turns CONCURRENT_KERNEL on
// for a sample of each graph exec's launches and leaves GRAPH_TRACE (one span per launch) on for
// all of them. The rule, per exec, by the launch's ordinal i (0 = its first launch):
//   i < warmup                      not traced (the first launch pays one-off costs)
//   warmup <= i < warmup + first    traced
//   later                           traced when (i - warmup - first) % every == every - 1
// `all` traces every launch. Host-only: the injection library and the analysis share it, and the
// CPU tests check it.
#pragma once
#include <cstdint>
#include <cstdlib>
#include <string>

namespace gp {

struct NodeSampling {
  bool all = false;
  std::uint64_t warmup = 1, first = 20, every = 20;

  bool traced(std::uint64_t ordinal) const {
    if (all) return true;
    if (ordinal < warmup) return false;
    if (ordinal < warmup + first) return true;
    return every > 0 && (ordinal - warmup - first) % every == every - 1;
  }

  // How many of the first n launches the rule traces.
  std::uint64_t traced_among(std::uint64_t n) const {
    if (all) return n;
    if (n <= warmup) return 0;
    const std::uint64_t after = n - warmup;
    if (after <= first) return after;
    return first + (every > 0 ? (after - first) / every : 0);
  }

  // "all", or "W,K,M" (warm-up, first, every); the text of GRAPHPROF_PROFILE_SAMPLE and of the
  // records' process line.
  std::string text() const {
    return all ? "all" : std::to_string(warmup) + "," + std::to_string(first) + "," + std::to_string(every);
  }

  // Parses text(); false (and `out` untouched) when it is neither "all" nor three numbers with every >= 1.
  static bool parse(const std::string& s, NodeSampling& out) {
    if (s == "all") {
      out = NodeSampling{};
      out.all = true;
      return true;
    }
    std::uint64_t v[3];
    const char* p = s.c_str();
    for (int i = 0; i < 3; ++i) {
      if (*p < '0' || *p > '9') return false;
      char* end = nullptr;
      v[i] = std::strtoull(p, &end, 10);
      p = end;
      if (i < 2) {
        if (*p != ',') return false;
        ++p;
      }
    }
    if (*p != '\0' || v[2] == 0) return false;
    out = NodeSampling{};
    out.warmup = v[0];
    out.first = v[1];
    out.every = v[2];
    return true;
  }
};

}  // namespace gp
