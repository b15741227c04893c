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
// tools/inject-overhead.sh runs the settings interleaved and tabulates them.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

__global__ void empty_kernel(int* p) {
  if (p != nullptr) *p = 1;
}

#define CHECK(x)                                                                     \
  do {                                                                               \
    cudaError_t e_ = (x);                                                            \
    if (e_ != cudaSuccess) {                                                         \
      std::fprintf(stderr, "inject_overhead: %s: %s\n", #x, cudaGetErrorString(e_)); \
      std::exit(4);                                                                  \
    }                                                                                \
  } while (0)

using Clock = std::chrono::steady_clock;

struct Figures {
  double median_us = 0, mean_us = 0;
};

Figures summarise(std::vector<double> per_call_us) {
  Figures f;
  if (per_call_us.empty()) return f;
  double sum = 0;
  for (double v : per_call_us) sum += v;
  f.mean_us = sum / static_cast<double>(per_call_us.size());
  std::sort(per_call_us.begin(), per_call_us.end());
  const std::size_t n = per_call_us.size();
  f.median_us = n % 2 ? per_call_us[n / 2] : 0.5 * (per_call_us[n / 2 - 1] + per_call_us[n / 2]);
  return f;
}

// Runs `batches` batches of `per_batch` calls of `body(i)`, synchronising `stream` between them;
// returns the per-call time of each batch in microseconds.
template <typename F>
std::vector<double> timed_batches(int batches, int per_batch, cudaStream_t stream, F body) {
  std::vector<double> out;
  out.reserve(static_cast<std::size_t>(batches));
  int i = 0;
  for (int b = 0; b < batches; ++b) {
    CHECK(cudaStreamSynchronize(stream));
    const auto t0 = Clock::now();
    for (int k = 0; k < per_batch; ++k) body(i++);
    const auto t1 = Clock::now();
    out.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / per_batch);
  }
  CHECK(cudaStreamSynchronize(stream));
  return out;
}

cudaGraphExec_t chain_graph(int nodes, cudaStream_t stream) {
  cudaGraph_t graph = nullptr;
  CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  for (int n = 0; n < nodes; ++n) empty_kernel<<<1, 32, 0, stream>>>(nullptr);
  CHECK(cudaStreamEndCapture(stream, &graph));
  cudaGraphExec_t exec = nullptr;
  CHECK(cudaGraphInstantiate(&exec, graph, 0));
  CHECK(cudaGraphDestroy(graph));
  return exec;
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
  for (int b = 0; b < 6; ++b) buckets.push_back(chain_graph(nodes, stream));
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
