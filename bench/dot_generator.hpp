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

}  // namespace gp::bench
