// The timed loops of bench/inject_overhead.cu and tools/experiments/cupti-cost-split.cu: an empty kernel, a
// chain of them captured into a graph, and batches of calls timed with the program's own clock
// (steady_clock around the calls, a synchronisation between batches so the launch queue never
// fills: host cost, not queue wait). The includer defines kProgram (its name, for error lines).
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace launch_loops {

__global__ void empty_kernel(int* p) {
  if (p != nullptr) *p = 1;
}

inline void check(cudaError_t e, const char* what, const char* program) {
  if (e == cudaSuccess) return;
  std::fprintf(stderr, "%s: %s: %s\n", program, what, cudaGetErrorString(e));
  std::exit(4);
}

inline double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// Runs `batches` batches of `per_batch` calls of `body(i)`, synchronising `stream` between them;
// returns the per-call time of each batch in microseconds.
template <typename F>
std::vector<double> timed_batches(int batches, int per_batch, cudaStream_t stream, const char* program, F body) {
  std::vector<double> out;
  out.reserve(static_cast<std::size_t>(batches));
  int i = 0;
  for (int b = 0; b < batches; ++b) {
    check(cudaStreamSynchronize(stream), "cudaStreamSynchronize", program);
    const auto t0 = std::chrono::steady_clock::now();
    for (int k = 0; k < per_batch; ++k) body(i++);
    const auto t1 = std::chrono::steady_clock::now();
    out.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / per_batch);
  }
  check(cudaStreamSynchronize(stream), "cudaStreamSynchronize", program);
  return out;
}

// A chain of `nodes` empty kernels, captured and instantiated.
inline cudaGraphExec_t chain_graph(int nodes, cudaStream_t stream, const char* program) {
  cudaGraph_t graph = nullptr;
  check(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal), "cudaStreamBeginCapture", program);
  for (int n = 0; n < nodes; ++n) empty_kernel<<<1, 32, 0, stream>>>(nullptr);
  check(cudaStreamEndCapture(stream, &graph), "cudaStreamEndCapture", program);
  cudaGraphExec_t exec = nullptr;
  check(cudaGraphInstantiate(&exec, graph, 0), "cudaGraphInstantiate", program);
  check(cudaGraphDestroy(graph), "cudaGraphDestroy", program);
  return exec;
}

}  // namespace launch_loops
