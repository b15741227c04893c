// The working state of one graph analysis, shared by its two files: graph_analysis.cpp (counts,
// shapes, critical paths, histograms) and graph_findings.cpp (the findings and their evidence).
// Private to src/graph.
#pragma once
#include <cstddef>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "graphprof/graph/graph_analysis.hpp"

namespace gp::analysis {

inline bool is_gpu_work(NodeKind k) {
  return k == NodeKind::kKernel || k == NodeKind::kMemcpy || k == NodeKind::kMemset;
}

// Neighbour lists in one flat array (compressed rows): a vector per node costs more in
// allocation than the whole analysis of a 100 000-node graph.
class Adjacency {
 public:
  struct Span {
    const std::size_t *b, *e;
    const std::size_t* begin() const { return b; }
    const std::size_t* end() const { return e; }
    std::size_t size() const { return static_cast<std::size_t>(e - b); }
    bool empty() const { return b == e; }
    std::size_t operator[](std::size_t i) const { return b[i]; }
  };

  // pairs: (row, neighbour)
  void build(std::size_t rows, const std::vector<std::pair<std::size_t, std::size_t>>& pairs) {
    off_.assign(rows + 1, 0);
    for (const auto& p : pairs) ++off_[p.first + 1];
    for (std::size_t i = 0; i < rows; ++i) off_[i + 1] += off_[i];
    idx_.resize(pairs.size());
    std::vector<std::size_t> fill(off_.begin(), off_.end() - 1);
    for (const auto& p : pairs) idx_[fill[p.first]++] = p.second;
  }
  Span operator[](std::size_t i) const { return Span{idx_.data() + off_[i], idx_.data() + off_[i + 1]}; }

 private:
  std::vector<std::size_t> off_, idx_;
};

// Adjacency restricted to edges whose two ends are in the same cudaGraph_t: the driver never
// links graphs with edges (child graphs hang off their parent node), so this is all of them.
struct Topology {
  Adjacency out, in;
  std::vector<std::size_t> order;  // topological, ties by file order
  std::vector<std::size_t> level;  // as-soon-as-possible level within the node's graph
  std::unordered_map<GraphId, std::size_t> cluster_of_graph;
  std::vector<std::size_t> cluster_of_node;
};

Topology build_topology(const GraphModel& m);

struct Analyzer {
  Analyzer(const GraphModel& model, const NodeTimes* node_times) : m(model), times(node_times) {}

  const GraphModel& m;
  const NodeTimes* times;
  Topology t;
  GraphMetrics out;
  std::vector<bool> top;  // node is in a top-level graph

  const NodeTime* time_of(std::size_t i) const;

  void counts();
  void shapes();

  // Longest path in nodes over the top-level graph; ties go to the earliest node in the file.
  void critical_by_count();

  // Weighted longest path. A node weighs its measured median; a child-graph node weighs its
  // child's critical time and a conditional node its longest body (one iteration or branch).
  std::vector<double> dist_, serial_of_cluster_, crit_of_cluster_;
  std::vector<std::size_t> best_pred_;
  std::vector<int> cluster_state_;  // 0 new, 1 in progress, 2 done

  double own_weight(std::size_t i) const;

  void solve_cluster(std::size_t c, std::vector<std::vector<std::size_t>>& topo_nodes);
  void critical_by_time();
  void histograms();

  // ---- findings ---------------------------------------------------------------------------

  void add(Finding f) { out.findings.push_back(std::move(f)); }

  std::string kernel_size_text(const GraphNode& n) const;

  void chains();

  // Nodes reachable from `start` forwards (out) or backwards (in), within its graph.
  std::size_t reach(std::size_t start, bool forward) const;

  void host_nodes();
  void copies();
  void size();
  void fanout();
  void memsets();
  void empties();
  void straight_line();
  void timing();
  GraphMetrics run();
};

}  // namespace gp::analysis
