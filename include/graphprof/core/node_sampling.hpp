// Which graph launches `graphprof profile` traces node by node (docs/profile.md "Node sampling").
// Per-node GPU times do not need every replay: the injection library turns CONCURRENT_KERNEL on
// for a sample of each graph exec's launches and leaves GRAPH_TRACE (one span per launch) on for
// all of them. The rule, per exec, by the launch's ordinal i (0 = its first launch):
//   i < warmup                      not traced (the first launch pays one-off costs)
//   warmup <= i < warmup + first    traced
//   later                           traced when (i - warmup - first) % every == every - 1
// Besides, the node records are on for window_ms of every period_ms (the first window from the
// start): eager kernels and copies get their sample there (coverage), and graph launches in a
// window are traced too. `all` traces every launch and every kernel. Host-only: the injection
// library and the analysis share it, and the CPU tests check it.
#pragma once
#include <cstdint>
#include <cstdlib>
#include <string>

namespace gp {

struct NodeSampling {
  bool all = false;
  std::uint64_t warmup = 1, first = 20, every = 20;
  std::uint64_t window_ms = 10, period_ms = 200;

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

  // "all", or "W,K,M,A/B" (warm-up, first, every, window ms / period ms); the text of
  // GRAPHPROF_PROFILE_SAMPLE, of the records' process line and of --node-sample.
  std::string text() const {
    return all ? "all"
               : std::to_string(warmup) + "," + std::to_string(first) + "," + std::to_string(every) + "," +
                     std::to_string(window_ms) + "/" + std::to_string(period_ms);
  }

  // Parses text() ("W,K,M" alone keeps the default windows); false (and `out` untouched) unless it
  // is "all" or those numbers with every >= 1 and window <= period, period >= 1.
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
    NodeSampling r;
    if (*p == ',') {
      std::uint64_t w[2];
      for (int i = 0; i < 2; ++i) {
        ++p;
        if (*p < '0' || *p > '9') return false;
        char* end = nullptr;
        w[i] = std::strtoull(p, &end, 10);
        p = end;
        if (i == 0 && *p != '/') return false;
      }
      r.window_ms = w[0];
      r.period_ms = w[1];
    }
    if (*p != '\0' || v[2] == 0 || r.period_ms == 0 || r.window_ms > r.period_ms) return false;
    r.warmup = v[0];
    r.first = v[1];
    r.every = v[2];
    out = r;
    return true;
  }
};

}  // namespace gp
