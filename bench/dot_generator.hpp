// Synthetic cudaGraphDebugDotPrint dumps for the benchmarks: the driver's exact text (clusters,
// record labels with escaped <<<...>>>, the missing space before label=, the blank line after
// each node, headlabel ports and topoIds in the verbose form), at any size.
#pragma once
#include <cstddef>
#include <string>

namespace gp::bench {

struct GeneratedDump {
  std::string text;
  std::size_t nodes = 0, edges = 0;
};

// Layers shaped like a transformer step: memset > norm > 4 parallel projections > attention >
// output projection > device-to-device copy > residual add, repeated to about `nodes` nodes.
GeneratedDump layered_dump(std::size_t nodes, bool verbose, int graph_id = 7);

// One chain of `nodes` identical small kernels.
GeneratedDump chain_dump(std::size_t nodes, bool verbose, int graph_id = 9);

// A fork-join whose branch nodes are also joined to many others: a fork node, `nodes - 2`
// branch kernels each depending on up to `links_per_node` earlier branches (a fixed
// pseudo-random choice among the previous 4 * links_per_node), and a join node after all of
// them. 10 000 nodes with 50 links each is the dense dump of docs/graphs.md (about 500 000 edges).
GeneratedDump dense_dump(std::size_t nodes, std::size_t links_per_node, bool verbose, int graph_id = 11);

}  // namespace gp::bench
