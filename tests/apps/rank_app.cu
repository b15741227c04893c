// graphprof_rank_app: an ordinary CUDA application that a launcher starts once per rank, for
// profiling several ranks on machines with one GPU. It knows nothing of graphprof or of ranks: the
// launcher gives each copy its arguments (and the rank variables, which only graphprof reads).
// It captures two graphs with stream capture and launches each --launches times:
//   step: --kernels k_work kernels in a chain, each doing --iters multiply-adds per element
//         over --elems floats (a rank given more --iters is slower: real skew);
//   tail: k_work -> k_finish; with --extra, k_extra is captured between them (so this rank's
//         tail graph differs from the others').
// It prints its own timing of each graph (CUDA events over all launches).
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#define CHECK(expr)                                                                                   \
  do {                                                                                                \
    const cudaError_t e_ = (expr);                                                                    \
    if (e_ != cudaSuccess) {                                                                          \
      std::fprintf(stderr, "rank_app: %s failed: %s (%s:%d)\n", #expr, cudaGetErrorName(e_), __FILE__, \
                   __LINE__);                                                                         \
      std::exit(1);                                                                                   \
    }                                                                                                 \
  } while (0)

__global__ void k_work(float* x, int n, int iters) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = x[i];
  for (int k = 0; k < iters; ++k) v = v * 0.999f + 0.001f;
  x[i] = v;
}

__global__ void k_extra(float* x, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += 1.0f;
}

__global__ void k_finish(float* x, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= 0.5f;
}

int main(int argc, char** argv) {
  int launches = 50, kernels = 4, elems = 1 << 20, iters = 64;
  bool extra = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&](int& out) {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "rank_app: %s needs a value\n", a.c_str());
        std::exit(2);
      }
      out = std::atoi(argv[++i]);
    };
    if (a == "--launches") value(launches);
    else if (a == "--kernels") value(kernels);
    else if (a == "--elems") value(elems);
    else if (a == "--iters") value(iters);
    else if (a == "--extra") extra = true;
    else {
      std::fprintf(stderr, "usage: rank_app [--launches N] [--kernels K] [--elems E] [--iters I] [--extra]\n");
      return 2;
    }
  }
  if (launches < 1 || kernels < 1 || elems < 1 || iters < 0) {
    std::fprintf(stderr, "rank_app: counts must be positive\n");
    return 2;
  }
  float* x = nullptr;
  CHECK(cudaMalloc(&x, sizeof(float) * static_cast<size_t>(elems)));
  CHECK(cudaMemset(x, 0, sizeof(float) * static_cast<size_t>(elems)));
  cudaStream_t s;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  const int block = 256, grid = (elems + block - 1) / block;

  cudaGraph_t step_graph, tail_graph;
  CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
  for (int k = 0; k < kernels; ++k) k_work<<<grid, block, 0, s>>>(x, elems, iters);
  CHECK(cudaStreamEndCapture(s, &step_graph));
  CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
  k_work<<<grid, block, 0, s>>>(x, elems, 1);
  if (extra) k_extra<<<grid, block, 0, s>>>(x, elems);
  k_finish<<<grid, block, 0, s>>>(x, elems);
  CHECK(cudaStreamEndCapture(s, &tail_graph));
  cudaGraphExec_t step, tail;
  CHECK(cudaGraphInstantiate(&step, step_graph, 0));
  CHECK(cudaGraphInstantiate(&tail, tail_graph, 0));

  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  for (cudaGraphExec_t exec : {step, tail}) {
    CHECK(cudaGraphLaunch(exec, s));  // first launch (upload) outside the timing
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaEventRecord(a, s));
    for (int i = 1; i < launches; ++i) CHECK(cudaGraphLaunch(exec, s));
    CHECK(cudaEventRecord(b, s));
    CHECK(cudaEventSynchronize(b));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, a, b));
    std::printf("rank_app: %s graph: %.2f us per launch (%d launches after the first)\n", exec == step ? "step" : "tail",
                1000.0 * ms / (launches - 1 > 0 ? launches - 1 : 1), launches - 1);
  }
  CHECK(cudaGraphExecDestroy(step));
  CHECK(cudaGraphExecDestroy(tail));
  CHECK(cudaGraphDestroy(step_graph));
  CHECK(cudaGraphDestroy(tail_graph));
  CHECK(cudaFree(x));
  return 0;
}
