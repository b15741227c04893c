// Small text helpers shared by the graph units (analysis text, findings, render labels).
#pragma once
#include <cstdint>
#include <string>

#include "graphprof/text_format.hpp"

namespace gp::detail {

using ::gp::strf;  // text_format.hpp

// 4096 -> "4 KiB", 1536 -> "1.5 KiB", 100 -> "100 B".
inline std::string format_bytes(std::uint64_t b) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(b);
  int u = 0;
  while (v >= 1024.0 && u < 4) {
    v /= 1024.0;
    ++u;
  }
  if (u == 0) return strf("%llu B", static_cast<unsigned long long>(b));
  const bool whole = v == static_cast<double>(static_cast<std::uint64_t>(v));
  return whole ? strf("%.0f %s", v, units[u]) : strf(v < 10 ? "%.2f %s" : "%.1f %s", v, units[u]);
}

// 12345 -> "12,345": node counts of big graphs read better grouped.
inline std::string group_digits(std::uint64_t n) {
  std::string s = std::to_string(n);
  for (int i = static_cast<int>(s.size()) - 3; i > 0; i -= 3) s.insert(static_cast<std::size_t>(i), ",");
  return s;
}

}  // namespace gp::detail
