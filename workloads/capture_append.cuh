// Appending a hand-made node to a stream capture: for nodes stream capture cannot record by itself
// (a conditional node), added with cudaGraphAddNode into the graph being captured.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <vector>

#include "graphprof/cuda/cuda_check.hpp"

namespace gp {

// Adds one node to the graph that stream `s` is capturing, after the stream's current capture
// dependencies, and makes it the stream's only dependency. `add(graph, deps, edge_data, count)`
// adds the node and returns it; the dependencies are copies (the capture's own list may change
// with the next call).
template <typename AddNode>
cudaGraphNode_t append_to_capture(cudaStream_t s, AddNode&& add) {
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  cudaGraph_t captured = nullptr;
  const cudaGraphNode_t* deps = nullptr;
  const cudaGraphEdgeData* edge_data = nullptr;
  std::size_t ndeps = 0;
  GP_CUDA_CHECK(cudaStreamGetCaptureInfo(s, &status, nullptr, &captured, &deps, &edge_data, &ndeps));
  std::vector<cudaGraphNode_t> dep_nodes(deps, deps + ndeps);
  std::vector<cudaGraphEdgeData> dep_edges;
  if (edge_data != nullptr) dep_edges.assign(edge_data, edge_data + ndeps);
  cudaGraphNode_t node = add(captured, dep_nodes.empty() ? nullptr : dep_nodes.data(),
                             dep_edges.empty() ? nullptr : dep_edges.data(), ndeps);
  GP_CUDA_CHECK(cudaStreamUpdateCaptureDependencies(s, &node, nullptr, 1, cudaStreamSetCaptureDependencies));
  return node;
}

}  // namespace gp
