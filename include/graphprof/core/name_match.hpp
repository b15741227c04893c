// Names a person mistypes or a table cuts: "did you mean" suggestions (a command, a metric, a
// parameter) and names cut in the middle so that rows differing at their end stay apart.
#pragma once
#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

#include "graphprof/core/text_format.hpp"

namespace gp {

// Edits (insertions, deletions, substitutions, swaps of neighbours) that turn `a` into `b`.
inline std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i)
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::size_t v = std::min(d[i - 1][j] + 1, d[i][j - 1] + 1);
      v = std::min(v, d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) v = std::min(v, d[i - 2][j - 2] + 1);
      d[i][j] = v;
    }
  return d[a.size()][b.size()];
}

// The name in `names` closest to `word`, at most `max_edits` away ("" when none is).
inline std::string closest_name(const std::string& word, const std::vector<std::string>& names, std::size_t max_edits) {
  std::string best;
  std::size_t best_d = max_edits + 1;
  for (const auto& n : names) {
    const std::size_t d = edit_distance(word, n);
    if (d < best_d) {
      best_d = d;
      best = n;
    }
  }
  return best;
}

// `s` cut to at most `max` columns by dropping its middle ("triton_per_fused_rms…_3"): names that
// differ only at their end (per-layer suffixes, tile shapes) stay apart. Cuts between code points.
inline std::string clip_middle(const std::string& s, std::size_t max, const std::string& mark = "…") {
  if (display_width(s) <= max) return s;
  std::vector<std::size_t> starts;  // byte offset of each code point
  for (std::size_t i = 0; i < s.size(); ++i)
    if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80) starts.push_back(i);
  const std::size_t mark_width = display_width(mark);
  const std::size_t keep = max > mark_width ? max - mark_width : 0;
  const std::size_t tail = keep * 2 / 5, head = keep - tail;
  if (head + tail >= starts.size()) return s;
  return s.substr(0, starts[head]) + mark + (tail == 0 ? std::string() : s.substr(starts[starts.size() - tail]));
}

}  // namespace gp
