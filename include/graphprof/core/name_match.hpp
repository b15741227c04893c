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
// Byte offsets of the code points of `s`, and one past the end (s.size()).
inline std::vector<std::size_t> code_point_starts(const std::string& s) {
  std::vector<std::size_t> st;
  for (std::size_t i = 0; i < s.size(); ++i)
    if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80) st.push_back(i);
  st.push_back(s.size());
  return st;
}

inline std::string clip_middle(const std::string& s, std::size_t max, const std::string& mark = "…") {
  if (display_width(s) <= max) return s;
  const std::vector<std::size_t> starts = code_point_starts(s);
  const std::size_t points = starts.size() - 1;
  const std::size_t mark_width = display_width(mark);
  const std::size_t keep = max > mark_width ? max - mark_width : 0;
  const std::size_t tail = keep * 2 / 5, head = keep - tail;
  if (head + tail >= points) return s;
  return s.substr(0, starts[head]) + mark + (tail == 0 ? std::string() : s.substr(starts[points - tail]));
}

// Names for one table column, each at most `max` columns (max >= 8), and as far apart as the
// originals: the one shortener of kernel names in report tables. Each is cut in the middle
// (clip_middle); when different names still come out the same, each of them keeps its start and
// the part from where they first differ ("triton_per_fus…_mul_3", "nvjet_sm…_64x16_2x1_v_bz_…");
// when even that is the same, they are numbered ("…~1", "…~2"). Equal names stay equal.
inline std::vector<std::string> clip_names_apart(const std::vector<std::string>& names, std::size_t max) {
  const std::string mark = "…";
  std::vector<std::string> out;
  for (const std::string& n : names) out.push_back(clip_middle(n, max, mark));
  // Indices of the names whose cut form another, different name shares.
  auto collisions = [&]() {
    std::vector<std::vector<std::size_t>> groups;
    std::vector<bool> done(names.size(), false);
    for (std::size_t i = 0; i < names.size(); ++i) {
      if (done[i]) continue;
      std::vector<std::size_t> g{i};
      bool differ = false;
      for (std::size_t j = i + 1; j < names.size(); ++j)
        if (!done[j] && out[j] == out[i]) g.push_back(j), done[j] = true, differ = differ || names[j] != names[i];
      if (differ) groups.push_back(std::move(g));
    }
    return groups;
  };
  const std::size_t keep = max > 2 ? max - 2 : 0;  // room for two marks
  for (const auto& g : collisions()) {
    // The first code point at which the group's names differ.
    std::size_t first = std::string::npos;
    for (std::size_t j : g) {
      const std::string &a = names[g[0]], &b = names[j];
      std::size_t p = 0;
      while (p < a.size() && p < b.size() && a[p] == b[p]) ++p;
      if (p < a.size() || p < b.size()) first = std::min(first, p);
    }
    if (first == std::string::npos) continue;
    for (std::size_t j : g) {
      const std::string& n = names[j];
      const std::vector<std::size_t> st = code_point_starts(n);
      const std::size_t points = st.size() - 1;
      std::size_t at = 0;  // the code point holding byte `first`
      while (at + 1 < st.size() && st[at + 1] <= first) ++at;
      const std::size_t head = keep / 3, rest = keep - head;
      if (points <= max || at < head) continue;
      if (points - at <= rest + 1)  // the end, from before the first difference, fits
        out[j] = n.substr(0, st[head]) + mark + n.substr(st[points - (rest + 1)]);
      else
        out[j] = n.substr(0, st[head]) + mark + n.substr(st[at], st[at + rest] - st[at]) + mark;
    }
  }
  for (const auto& g : collisions()) {
    std::vector<std::string> seen;  // the group's different names, in order: name k is numbered k
    for (std::size_t j : g) {
      auto it = std::find(seen.begin(), seen.end(), names[j]);
      if (it == seen.end()) it = seen.insert(seen.end(), names[j]);
      const std::string number = "~" + std::to_string(it - seen.begin() + 1);
      out[j] = clip_middle(names[j], max > number.size() ? max - number.size() : 0, mark) + number;
    }
  }
  return out;
}

}  // namespace gp
