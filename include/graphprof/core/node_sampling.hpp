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
//
// The kernel activity (CONCURRENT_KERNEL, with which CUPTI times every kernel on the GPU, graph
// kernels of untraced launches included) either stays on for the whole run (`kernels=on`) or is
// switched (`kernels=P%`): on from the start and for each sample, off once the GPU finished the
// sample's last traced launch, and a new sample starts only while the time with the kind on stays
// within P % of the time since the first sample (docs/profile.md "Node sampling").
#pragma once
#include <cstdint>
#include <cstdlib>
#include <string>

namespace gp {

// The default of `kernels=`: 0 keeps the kernel activity on throughout.
constexpr unsigned kDefaultKernelDutyPct = 0;

struct NodeSampling {
  bool all = false;
  std::uint64_t warmup = 1, first = 20, every = 20;
  std::uint64_t window_ms = 10, period_ms = 200;
  unsigned kernel_duty_pct = kDefaultKernelDutyPct;  // 0: kernels=on; 1-100: kernels=P% (switched)

  bool switches_kernels() const { return !all && kernel_duty_pct > 0; }

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

  // "all", or "W,K,M,A/B" (warm-up, first, every, window ms / period ms), followed by
  // ",kernels=on" or ",kernels=P%" where that differs from the default; the text of
  // GRAPHPROF_PROFILE_SAMPLE, of the records' process line and of --node-sample.
  std::string text() const {
    if (all) return "all";
    std::string s = std::to_string(warmup) + "," + std::to_string(first) + "," + std::to_string(every) + "," +
                    std::to_string(window_ms) + "/" + std::to_string(period_ms);
    if (kernel_duty_pct != kDefaultKernelDutyPct)
      s += kernel_duty_pct == 0 ? ",kernels=on" : ",kernels=" + std::to_string(kernel_duty_pct) + "%";
    return s;
  }

  // Parses text() ("W,K,M" alone keeps the default windows, and no kernels= part the default
  // kernel activity); false (and `out` untouched) unless it is "all" or those numbers with
  // every >= 1 and window <= period, period >= 1, and P from 1 to 100.
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
    if (*p == ',' && p[1] >= '0' && p[1] <= '9') {
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
    if (*p == ',') {
      const std::string k = p + 1;
      if (k == "kernels=on") {
        r.kernel_duty_pct = 0;
      } else {
        const std::string prefix = "kernels=";
        if (k.size() < prefix.size() + 2 || k.compare(0, prefix.size(), prefix) != 0 || k.back() != '%') return false;
        const std::string digits = k.substr(prefix.size(), k.size() - prefix.size() - 1);
        if (digits.empty() || digits.size() > 3 || digits.find_first_not_of("0123456789") != std::string::npos) return false;
        const unsigned pct = static_cast<unsigned>(std::stoul(digits));
        if (pct < 1 || pct > 100) return false;
        r.kernel_duty_pct = pct;
      }
      p += 1 + k.size();
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
