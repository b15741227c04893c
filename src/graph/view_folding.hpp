// Folding a graph into boxes for a picture (graph_view.cpp decides what is shown; view_folding.cpp
// does the folding rounds described there). Private to src/graph.
#pragma once
#include <cstddef>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "graphprof/graph/graph_view.hpp"

namespace gp::view_detail {

// The name a node shows: kernel short name, "memcpy HtoD", "host", ... (graph_view.cpp).
std::string display_name(const GraphNode& n);
// A kernel name without its trailing counters and hash-like parts: "triton_poi_fused_add_3" ->
// "triton_poi_fused_add" (runs of per-layer kernels fold on it).
std::string name_stem(const std::string& name);

// Working state of one box while folding.
struct Work {
  std::vector<std::size_t> members;
  NodeKind kind = NodeKind::kOther;
  GraphId graph_id = -1;
  std::string key;      // equal keys = similar content
  std::string pattern;  // what a mixed box contains, for its label
  bool mixed = false;
  bool periodic = false;
  std::size_t in_a_row = 1, side_by_side = 1;
  bool alive = true;
  std::set<std::size_t> in, out;
};

struct Folder {
  const GraphModel& m;
  std::vector<Work> w;

  std::size_t alive_count() const;

  // The full signature of a box, used to find repeating patterns and identical branches.
  std::string signature(const Work& b) const;

  // How a box reads inside a folded pattern: "k_proj x4 side by side", "tiny_k x8".
  static std::string part_text(const Work& b);
  static std::string compact(const std::string& key);
  void init();

  // b absorbs c, which follows it (b -> c is b's only exit and c's only entry).
  void absorb_next(std::size_t b, std::size_t c);

  // b absorbs c, which has the same entries and exits.
  void absorb_sibling(std::size_t b, std::size_t c);
  bool links(std::size_t a, std::size_t b) const;

  // Maximal linear runs (length >= 2) in topological-ish order of their first box.
  std::vector<std::vector<std::size_t>> linear_runs(const std::function<bool(std::size_t, std::size_t)>& same) const;
  bool fold_similar_runs(std::size_t min_run);

  // Boxes with the same graph, entries and exits (and, unless `any`, the same content).
  bool fold_siblings(bool any);

  // In a linear run of any boxes, fold the repeating pattern that covers the most boxes (at
  // least two repeats; ties go to the shorter pattern), or the whole run when `whole` and
  // nothing repeats.
  bool fold_runs(std::size_t min_run, bool whole);

  // b absorbs c, wherever it is; links between them disappear. Only used for whole level bands,
  // so no cycle can form.
  void absorb_any(std::size_t b, std::size_t c);

  // Last resort for irregular graphs (nothing repeats, few linear runs): fold bands of
  // consecutive levels, per graph, into one box each, so the layout stays small and fast.
  void fold_level_bands(std::size_t target);

  // "tiny_k x20, add_k x20, memcpy DtoD x8, ..." for a set of nodes.
  std::string composition(const std::vector<std::size_t>& members) const;
  void fold(const ViewOptions& o);
};

}  // namespace gp::view_detail
