// Synthetic trace sessions shaped like what CUPTI delivered on the H200 (docs/tracing.md):
// a chain graph replayed R times, and an eager run of the same kernels. Shared by the trace tests.
#pragma once
#include <cstdint>
#include <string>

#include "graphprof/trace/trace_records.hpp"

namespace gp::testdata {

inline constexpr const char* kChainKernel = "_ZN2gp12_GLOBAL__N_110chain_stepEPfii";
inline constexpr std::uint64_t kBase = 1'700'000'000'000'000'000ull;
inline constexpr std::uint32_t kPid = 4242, kTid = 4243;

// Kernel i of replay r starts 300 ns after kernel i-1 (so the gap is 300 - duration(i-1)) and
// runs 200 + 10*i ns. The exec (id `exec`) was instantiated from graph `graph`; node ids follow
// CUPTI's (graphId << 32) | index.
inline TraceData chain_graph_trace(int nodes, int replays, std::uint32_t graph = 5, std::uint32_t exec = 16) {
  TraceData d;
  d.level = TraceLevel::kNode;
  d.begin_ns = kBase;
  d.exec_mappings.push_back({exec, graph});
  for (int i = 0; i < nodes; ++i) {
    const auto idx = static_cast<std::uint64_t>(i);
    d.nodes_created.push_back({(std::uint64_t{graph} << 32) | idx});
    d.node_mappings.push_back({(std::uint64_t{exec} << 32) | idx, (std::uint64_t{graph} << 32) | idx});
  }
  for (int r = 0; r < replays; ++r) {
    const std::uint64_t t = kBase + 1000 + static_cast<std::uint64_t>(r) * 100000;
    const auto corr = static_cast<std::uint32_t>(100 + r);
    d.windows.push_back({t, t + 100});
    d.api.push_back(ApiRecord{"cudaGraphLaunch", 311, t + 10, t + 60, kPid, kTid, corr, 0});
    d.api.push_back(ApiRecord{"cudaEventRecord", 135, t + 200, t + 220, kPid, kTid, corr + 100000, 0});
    for (int i = 0; i < nodes; ++i) {
      KernelRecord k;
      k.name = kChainKernel;
      k.start_ns = t + 5000 + static_cast<std::uint64_t>(i) * 300;
      k.end_ns = k.start_ns + 200 + static_cast<std::uint64_t>(i) * 10;
      k.stream_id = 17;
      k.correlation_id = corr;
      k.graph_id = exec;
      k.graph_node_id = (std::uint64_t{exec} << 32) | static_cast<std::uint64_t>(i);
      k.grid = {{16, 1, 1}};
      k.block = {{256, 1, 1}};
      d.kernels.push_back(k);
    }
  }
  d.end_ns = kBase + 1000 + static_cast<std::uint64_t>(replays) * 100000 + 50000;
  return d;
}

// The same work launched kernel by kernel: one cudaLaunchKernel (own correlation id) per kernel.
inline TraceData chain_eager_trace(int kernels, int replays) {
  TraceData d;
  d.level = TraceLevel::kNode;
  d.begin_ns = kBase;
  std::uint32_t corr = 1;
  for (int r = 0; r < replays; ++r) {
    const std::uint64_t t = kBase + 1000 + static_cast<std::uint64_t>(r) * 100000;
    d.windows.push_back({t, t + 10000});
    for (int i = 0; i < kernels; ++i) {
      const std::uint64_t a = t + 10 + static_cast<std::uint64_t>(i) * 1000;
      d.api.push_back(ApiRecord{"cudaLaunchKernel", 211, a, a + 500, kPid, kTid, corr, 0});
      KernelRecord k;
      k.name = kChainKernel;
      k.start_ns = a + 2000;
      k.end_ns = k.start_ns + 250;
      k.stream_id = 13;
      k.correlation_id = corr;
      d.kernels.push_back(k);
      ++corr;
    }
  }
  d.end_ns = kBase + 1000 + static_cast<std::uint64_t>(replays) * 100000 + 50000;
  return d;
}

// A default-flags DOT dump of a chain of `nodes` kernels in graph `graph`, as CUDA writes it.
inline std::string chain_dot(int nodes, std::uint32_t graph, const std::string& kernel = kChainKernel) {
  const std::string g = std::to_string(graph);
  std::string s = "digraph dot {\nsubgraph cluster_" + g + " {\nlabel=\"graph_" + g + "\" graph[style=\"dashed\"];\n";
  for (int i = 0; i < nodes; ++i)
    s += "\"graph_" + g + "_node_" + std::to_string(i) + "\"[style=\"bold\" shape=\"octagon\" label=\"" +
         std::to_string(i) + "\n" + kernel + "\n\"];\n\n";
  for (int i = 1; i < nodes; ++i)
    s += "\"graph_" + g + "_node_" + std::to_string(i - 1) + "\" -> \"graph_" + g + "_node_" + std::to_string(i) + "\";\n";
  s += "}\n}\n";
  return s;
}

}  // namespace gp::testdata
