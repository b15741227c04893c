// The folding rounds of a graph view (see graph_view.cpp for what each round folds).
#include "view_folding.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <unordered_map>

#include "graphprof/core/name_match.hpp"
#include "graphprof/core/text_format.hpp"

namespace gp::view_detail {

namespace {

constexpr int kMaxRounds = 12;
constexpr std::size_t kMaxPeriod = 8;
constexpr std::size_t kMaxBands = 32;

bool all_chars(const std::string& s, int (*pred)(int)) {
  return std::all_of(s.begin(), s.end(), [pred](char c) { return pred(static_cast<unsigned char>(c)) != 0; });
}

}  // namespace

// Kernels of one layer of a compiled model differ only by a counter or a hash at the end
// (triton_poi_fused_add_3, _4, ...): trailing "_<digits>" and "_<hex of 8 or more with a digit>"
// parts are dropped, so a 90-node chain of per-layer kernels folds like a repeated pattern.
std::string name_stem(const std::string& name) {
  std::string t = name;
  for (;;) {
    const auto us = t.rfind('_');
    if (us == std::string::npos || us == 0 || us + 1 == t.size()) break;
    const std::string tail = t.substr(us + 1);
    const bool counter = all_chars(tail, isdigit);
    const bool hash = tail.size() >= 8 && all_chars(tail, isxdigit) && std::any_of(tail.begin(), tail.end(), [](char c) {
                        return std::isdigit(static_cast<unsigned char>(c)) != 0;
                      });
    if (!counter && !hash) break;
    t.erase(us);
  }
  return t;
}

std::size_t Folder::alive_count() const {
  std::size_t n = 0;
  for (const auto& b : w) n += b.alive ? 1 : 0;
  return n;
}

std::string Folder::signature(const Work& b) const {
  return b.key + strf("#%zux%zu", b.in_a_row, b.side_by_side);
}

std::string Folder::part_text(const Work& b) {
  std::string s = b.mixed && !b.periodic ? "[" + b.pattern + "]" : b.pattern;
  if (b.periodic) s = strf("%zu x (", b.in_a_row) + s + ")";
  else if (b.in_a_row > 1) s += strf(" x%zu", b.in_a_row);
  if (b.side_by_side > 1) s += strf(" (x%zu side by side)", b.side_by_side);
  return s;
}

std::string Folder::compact(const std::string& key) {
  // Keys of nested folds grow quickly; long ones are compared by hash.
  if (key.size() <= 160) return key;
  return strf("h%016zx", std::hash<std::string>{}(key));
}

void Folder::init() {
  w.resize(m.nodes.size());
  for (std::size_t i = 0; i < m.nodes.size(); ++i) {
    const GraphNode& n = m.nodes[i];
    Work& b = w[i];
    b.members = {i};
    b.kind = n.kind;
    b.graph_id = n.graph_id;
    const std::string stem = n.kind == NodeKind::kKernel && !n.short_name.empty() ? name_stem(n.short_name) : "";
    const bool stemmed = !stem.empty() && stem != n.short_name;
    b.key = std::string(to_string(n.kind)) + ":" + (stemmed ? stem + "_*" : display_name(n));
    b.pattern = stemmed ? clip_middle(stem + "_*", 38) : display_name(n);
  }
  for (const auto& e : m.edges) {
    if (m.nodes[e.from].graph_id != m.nodes[e.to].graph_id || e.from == e.to) continue;
    w[e.from].out.insert(e.to);
    w[e.to].in.insert(e.from);
  }
}

void Folder::absorb_next(std::size_t b, std::size_t c) {
  Work& x = w[b];
  Work& y = w[c];
  x.members.insert(x.members.end(), y.members.begin(), y.members.end());
  x.out = y.out;
  for (std::size_t s : y.out) {
    w[s].in.erase(c);
    w[s].in.insert(b);
  }
  y.alive = false;
  y.in.clear();
  y.out.clear();
}

void Folder::absorb_sibling(std::size_t b, std::size_t c) {
  Work& x = w[b];
  Work& y = w[c];
  x.members.insert(x.members.end(), y.members.begin(), y.members.end());
  for (std::size_t p : y.in) w[p].out.erase(c);
  for (std::size_t s : y.out) w[s].in.erase(c);
  y.alive = false;
  y.in.clear();
  y.out.clear();
}

bool Folder::links(std::size_t a, std::size_t b) const {
  return w[a].out.size() == 1 && *w[a].out.begin() == b && w[b].in.size() == 1 && w[a].graph_id == w[b].graph_id;
}

std::vector<std::vector<std::size_t>> Folder::linear_runs(const std::function<bool(std::size_t, std::size_t)>& same) const {
  std::vector<std::vector<std::size_t>> runs;
  for (std::size_t b = 0; b < w.size(); ++b) {
    if (!w[b].alive) continue;
    if (w[b].in.size() == 1) {
      const std::size_t p = *w[b].in.begin();
      if (links(p, b) && same(p, b)) continue;  // b is inside a run, not its start
    }
    std::vector<std::size_t> run{b};
    while (w[run.back()].out.size() == 1) {
      const std::size_t nx = *w[run.back()].out.begin();
      if (!links(run.back(), nx) || !same(run.back(), nx) || nx == b) break;
      run.push_back(nx);
    }
    if (run.size() >= 2) runs.push_back(std::move(run));
  }
  return runs;
}

bool Folder::fold_similar_runs(std::size_t min_run) {
  auto same = [&](std::size_t a, std::size_t b) {
    const Work& x = w[a];
    const Work& y = w[b];
    return !x.mixed && !y.mixed && x.key == y.key && x.side_by_side == y.side_by_side;
  };
  bool changed = false;
  for (const auto& run : linear_runs(same)) {
    std::size_t total = 0;
    for (std::size_t b : run) total += w[b].in_a_row;
    if (total < min_run) continue;
    for (std::size_t k = 1; k < run.size(); ++k) absorb_next(run[0], run[k]);
    w[run[0]].in_a_row = total;
    changed = true;
  }
  return changed;
}

bool Folder::fold_siblings(bool any) {
  std::map<std::string, std::vector<std::size_t>> groups;
  for (std::size_t b = 0; b < w.size(); ++b) {
    const Work& x = w[b];
    if (!x.alive || (!any && x.mixed)) continue;
    if (x.in.empty() && x.out.empty()) continue;  // isolated nodes stay visible
    std::string k = std::to_string(x.graph_id) + "|";
    if (!any) k += x.key + strf("#%zu|", x.in_a_row);
    for (std::size_t p : x.in) k += std::to_string(p) + ",";
    k += "|";
    for (std::size_t s : x.out) k += std::to_string(s) + ",";
    groups[k].push_back(b);
  }
  bool changed = false;
  for (auto& [k, g] : groups) {
    if (g.size() < 2) continue;
    const std::size_t head = g[0];
    if (!any) {
      std::size_t total = 0;
      for (std::size_t b : g) total += w[b].side_by_side;
      for (std::size_t i = 1; i < g.size(); ++i) absorb_sibling(head, g[i]);
      w[head].side_by_side = total;
    } else {
      std::map<std::string, std::size_t> parts;
      for (std::size_t b : g) ++parts[part_text(w[b])];
      std::string pattern, key = "{";
      for (const auto& [p, c] : parts) {
        pattern += (pattern.empty() ? "" : " | ") + p + (c > 1 ? strf(" (x%zu)", c) : std::string());
      }
      std::vector<std::string> sigs;
      for (std::size_t b : g) sigs.push_back(signature(w[b]));
      std::sort(sigs.begin(), sigs.end());
      for (const auto& s : sigs) key += s + "|";
      for (std::size_t i = 1; i < g.size(); ++i) absorb_sibling(head, g[i]);
      Work& x = w[head];
      x.mixed = true;
      x.periodic = false;
      x.key = compact(key + "}");
      x.pattern = pattern;
      x.in_a_row = 1;
      x.side_by_side = 1;
    }
    changed = true;
  }
  return changed;
}

bool Folder::fold_runs(std::size_t min_run, bool whole) {
  auto any = [](std::size_t, std::size_t) { return true; };
  bool changed = false;
  for (const auto& run : linear_runs(any)) {
    std::vector<std::string> sig;
    for (std::size_t b : run) sig.push_back(signature(w[b]));
    std::size_t best_p = 0, best_start = 0, best_reps = 0;
    for (std::size_t p = 1; p <= kMaxPeriod && 2 * p <= run.size(); ++p) {
      // Boxes i >= p with sig[i] == sig[i - p]; a stretch of L of them starting at s means
      // the boxes s - p .. s + L - 1 repeat with period p.
      for (std::size_t i = p; i < run.size();) {
        if (sig[i] != sig[i - p]) {
          ++i;
          continue;
        }
        std::size_t j = i;
        while (j < run.size() && sig[j] == sig[j - p]) ++j;
        const std::size_t reps = (j - i + p) / p;
        const bool enough = p == 1 ? reps >= min_run : reps >= 2;
        if (enough && reps * p > best_reps * best_p) {
          best_p = p;
          best_start = i - p;
          best_reps = reps;
        }
        i = j;
      }
    }
    bool folded = false;
    if (best_p > 0) {
      std::string pattern, key = "(";
      for (std::size_t k = 0; k < best_p; ++k) {
        const Work& x = w[run[best_start + k]];
        pattern += (k ? " > " : "") + part_text(x);
        key += sig[best_start + k] + ">";
      }
      const std::size_t head = run[best_start];
      for (std::size_t k = best_start + 1; k < best_start + best_reps * best_p; ++k) absorb_next(head, run[k]);
      Work& x = w[head];
      x.mixed = true;
      x.periodic = true;
      x.key = compact(key + ")");
      x.pattern = pattern;
      x.in_a_row = best_reps;
      x.side_by_side = 1;
      folded = true;
    }
    if (!folded && whole && run.size() >= min_run) {
      for (std::size_t k = 1; k < run.size(); ++k) absorb_next(run[0], run[k]);
      Work& x = w[run[0]];
      const std::string pattern = composition(x.members);
      x.mixed = true;
      x.periodic = false;
      x.key = compact("run:" + pattern + strf("#%zu", x.members.size()));
      x.pattern = pattern;
      x.in_a_row = 1;
      x.side_by_side = 1;
      folded = true;
    }
    changed = changed || folded;
  }
  return changed;
}

void Folder::absorb_any(std::size_t b, std::size_t c) {
  Work& x = w[b];
  Work& y = w[c];
  x.members.insert(x.members.end(), y.members.begin(), y.members.end());
  for (std::size_t p : y.in) {
    w[p].out.erase(c);
    if (p != b) {
      w[p].out.insert(b);
      x.in.insert(p);
    }
  }
  for (std::size_t s : y.out) {
    w[s].in.erase(c);
    if (s != b) {
      w[s].in.insert(b);
      x.out.insert(s);
    }
  }
  x.in.erase(b);
  x.out.erase(b);
  y.alive = false;
  y.in.clear();
  y.out.clear();
}

void Folder::fold_level_bands(std::size_t target) {
  std::vector<std::size_t> level(w.size(), 0), indeg(w.size(), 0), ready;
  std::size_t depth = 0;
  for (std::size_t b = 0; b < w.size(); ++b) {
    if (!w[b].alive) continue;
    indeg[b] = w[b].in.size();
    if (indeg[b] == 0) ready.push_back(b);
  }
  while (!ready.empty()) {
    const std::size_t b = ready.back();
    ready.pop_back();
    depth = std::max(depth, level[b] + 1);
    for (std::size_t s : w[b].out) {
      level[s] = std::max(level[s], level[b] + 1);
      if (--indeg[s] == 0) ready.push_back(s);
    }
  }
  const std::size_t band = std::max<std::size_t>(1, (depth + target - 1) / std::max<std::size_t>(1, target));
  std::map<std::pair<GraphId, std::size_t>, std::vector<std::size_t>> groups;
  for (std::size_t b = 0; b < w.size(); ++b)
    if (w[b].alive) groups[{w[b].graph_id, level[b] / band}].push_back(b);
  for (auto& [key, g] : groups) {
    if (g.size() < 2) continue;
    for (std::size_t i = 1; i < g.size(); ++i) absorb_any(g[0], g[i]);
    Work& x = w[g[0]];
    x.mixed = true;
    x.periodic = false;
    x.pattern = strf("depth band %zu of %zu: ", key.second + 1, (depth + band - 1) / band) + composition(x.members);
    x.key = compact("band:" + x.pattern);
    x.in_a_row = 1;
    x.side_by_side = 1;
  }
}

std::string Folder::composition(const std::vector<std::size_t>& members) const {
  std::map<std::string, std::size_t> parts;
  for (std::size_t i : members) ++parts[display_name(m.nodes[i])];
  std::vector<std::pair<std::size_t, std::string>> top;
  for (const auto& [name, c] : parts) top.emplace_back(c, name);
  std::sort(top.rbegin(), top.rend());
  std::string s;
  for (std::size_t k = 0; k < top.size() && k < 3; ++k) s += (k ? ", " : "") + top[k].second + strf(" x%zu", top[k].first);
  if (top.size() > 3) s += strf(", and %zu more names", top.size() - 3);
  return s;
}

void Folder::fold(const ViewOptions& o) {
  for (int round = 0; round < kMaxRounds; ++round) {
    bool changed = fold_similar_runs(o.min_run);
    changed = fold_siblings(false) || changed;
    if (!changed) changed = fold_runs(o.min_run, false);
    if (!changed) break;
  }
  for (int round = 0; round < kMaxRounds && alive_count() > o.max_boxes; ++round) {
    bool changed = fold_siblings(true);
    changed = fold_runs(o.min_run, false) || changed;
    if (!changed) changed = fold_runs(o.min_run, true);
    if (!changed) break;
  }
  // A picture of more than a few dozen bands is a tall strip nobody reads.
  if (alive_count() > o.max_boxes) fold_level_bands(std::min<std::size_t>(kMaxBands, o.max_boxes));
}

}  // namespace gp::view_detail
