// inject_overhead: what `graphprof profile`'s injection costs each CUDA call of an application.
// An ordinary CUDA program (it knows nothing of graphprof) that times its own loops with its own
// clock (steady_clock around the calls, synchronisation outside the timed part):
//   eager   kernel launches of an empty kernel (<<<>>>), per call
//   graph   cudaGraphLaunch of a chain of --nodes empty kernels, per call
//   api     cudaGetDevice, per call (a runtime call that launches nothing: what recording every API
//           call costs)
//   step    a serving-like step: one of 6 graphs (round robin) + 10 eager launches + one
//           cudaEventRecord, per step
// Each phase runs in batches (default 100 calls, 10 steps) with a synchronisation between them, so
// the launch queue never fills and the figures are host cost, not queue wait. It prints one line
// per phase: the median over batches of the per-call time, and the mean.
//   graphprof profile --trace none -- build/bench/inject_overhead
//   GRAPHPROF_INJECT_OFF=runtime,driver graphprof profile --trace none -- build/bench/inject_overhead
// tools/experiments/inject-overhead.sh runs the settings interleaved and tabulates them.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "launch_loops.cuh"

namespace {

using launch_loops::chain_graph;
using launch_loops::empty_kernel;
using Clock = std::chrono::steady_clock;
constexpr const char* kProgram = "inject_overhead";

#define CHECK(x) launch_loops::check((x), #x, kProgram)

struct Figures {
  double median_us = 0, mean_us = 0;
};

Figures summarise(const std::vector<double>& per_call_us) {
  Figures f;
  if (per_call_us.empty()) return f;
  double sum = 0;
  for (double v : per_call_us) sum += v;
  f.mean_us = sum / static_cast<double>(per_call_us.size());
  f.median_us = launch_loops::median(per_call_us);
  return f;
}

template <typename F>
std::vector<double> timed_batches(int batches, int per_batch, cudaStream_t stream, F body) {
  return launch_loops::timed_batches(batches, per_batch, stream, kProgram, body);
}

int arg_int(int argc, char** argv, const char* name, int fallback) {
  for (int i = 1; i + 1 < argc; ++i)
    if (std::strcmp(argv[i], name) == 0) return std::atoi(argv[i + 1]);
  return fallback;
}

}  // namespace

int main(int argc, char** argv) {
  const int batches = arg_int(argc, argv, "--batches", 200);
  const int per_batch = arg_int(argc, argv, "--per-batch", 100);
  const int nodes = arg_int(argc, argv, "--nodes", 20);
  const int rounds = arg_int(argc, argv, "--rounds", 2);  // the first is a warm-up, not printed
  cudaStream_t stream = nullptr;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  std::vector<cudaGraphExec_t> buckets;
  for (int b = 0; b < 6; ++b) buckets.push_back(chain_graph(nodes, stream, kProgram));
  cudaEvent_t event = nullptr;
  CHECK(cudaEventCreateWithFlags(&event, cudaEventDisableTiming));
  const auto begin = Clock::now();
  for (int round = 0; round < rounds; ++round) {
    const bool print = round + 1 == rounds;
    const Figures eager = summarise(timed_batches(batches, per_batch, stream, [&](int) {
      empty_kernel<<<1, 32, 0, stream>>>(nullptr);
    }));
    const Figures graph = summarise(timed_batches(batches, per_batch / 5 > 0 ? per_batch / 5 : 1, stream,
                                                  [&](int) { CHECK(cudaGraphLaunch(buckets[0], stream)); }));
    int device = 0;
    const Figures api = summarise(timed_batches(batches, per_batch, stream, [&](int) { CHECK(cudaGetDevice(&device)); }));
    const Figures step = summarise(timed_batches(batches, 10, stream, [&](int i) {
      CHECK(cudaGraphLaunch(buckets[static_cast<std::size_t>(i) % buckets.size()], stream));
      for (int k = 0; k < 10; ++k) empty_kernel<<<1, 32, 0, stream>>>(nullptr);
      CHECK(cudaEventRecord(event, stream));
    }));
    if (!print) continue;
    std::printf("inject_overhead phase=eager us_per_call=%.3f mean=%.3f\n", eager.median_us, eager.mean_us);
    std::printf("inject_overhead phase=graph us_per_call=%.3f mean=%.3f nodes=%d\n", graph.median_us, graph.mean_us, nodes);
    std::printf("inject_overhead phase=api us_per_call=%.3f mean=%.3f\n", api.median_us, api.mean_us);
    std::printf("inject_overhead phase=step us_per_call=%.3f mean=%.3f\n", step.median_us, step.mean_us);
  }
  std::printf("inject_overhead total_s=%.3f\n", std::chrono::duration<double>(Clock::now() - begin).count());
  CHECK(cudaEventDestroy(event));
  for (cudaGraphExec_t e : buckets) CHECK(cudaGraphExecDestroy(e));
  CHECK(cudaStreamDestroy(stream));
  return 0;
}
