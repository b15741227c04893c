// graphprof_graph_app: a small, ordinary CUDA application for `graphprof profile` to look at.
// It knows nothing about graphprof. It builds
//   graph A by stream capture: memset -> k_scale -> k_scale -> k_scale -> k_add (5 nodes, 4 edges),
//   graph B with the explicit API: k_scale -> {k_scale, k_add} -> k_add   (4 nodes, 4 edges),
// launches A --launches times and B 3 times, and does some eager work: --eager k_scale launches,
// one HtoD and one DtoH copy, and stream synchronisations. --bad-capture adds a capture broken by a
// cudaStreamSynchronize inside it; --exit N ends with status N (after all the work);
// --sleep-ms T sleeps before exiting (to test signals). It prints its own timing of graph A.
// The GPU test (tests/gpu/profile_app_test.cpp) checks graphprof's counts against these numbers.
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#define CHECK(expr)                                                                                   \
  do {                                                                                                \
    const cudaError_t e_ = (expr);                                                                    \
    if (e_ != cudaSuccess) {                                                                          \
      std::fprintf(stderr, "graph_app: %s failed: %s (%s:%d)\n", #expr, cudaGetErrorName(e_), __FILE__, \
                   __LINE__);                                                                         \
      std::exit(1);                                                                                   \
    }                                                                                                 \
  } while (0)

__global__ void k_scale(float* x, int n, float a) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = x[i] * a + 1.0f;
}

__global__ void k_add(float* x, const float* y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += y[i];
}

int main(int argc, char** argv) {
  int launches = 50, eager = 20, exit_status = 0, sleep_ms = 0;
  bool bad_capture = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&](int& out) {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "graph_app: %s needs a value\n", a.c_str());
        std::exit(2);
      }
      out = std::atoi(argv[++i]);
    };
    if (a == "--launches") value(launches);
    else if (a == "--eager") value(eager);
    else if (a == "--exit") value(exit_status);
    else if (a == "--sleep-ms") value(sleep_ms);
    else if (a == "--bad-capture") bad_capture = true;
    else {
      std::fprintf(stderr, "usage: graph_app [--launches N] [--eager K] [--bad-capture] [--exit S] [--sleep-ms T]\n");
      return 2;
    }
  }
  const int n = 1 << 16;
  const dim3 block(256), grid((n + 255) / 256);
  float *x = nullptr, *y = nullptr;
  CHECK(cudaMalloc(&x, n * sizeof(float)));
  CHECK(cudaMalloc(&y, n * sizeof(float)));
  std::vector<float> host(n, 1.0f);
  cudaStream_t s;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));

  // Eager work: a copy in, K kernels, a synchronisation.
  CHECK(cudaMemcpyAsync(y, host.data(), n * sizeof(float), cudaMemcpyHostToDevice, s));
  for (int k = 0; k < eager; ++k) k_scale<<<grid, block, 0, s>>>(y, n, 0.5f);
  CHECK(cudaGetLastError());
  CHECK(cudaStreamSynchronize(s));

  // Graph A by stream capture.
  cudaGraph_t ga;
  CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  CHECK(cudaMemsetAsync(x, 0, n * sizeof(float), s));
  for (int k = 0; k < 3; ++k) k_scale<<<grid, block, 0, s>>>(x, n, 1.001f);
  k_add<<<grid, block, 0, s>>>(x, y, n);
  CHECK(cudaStreamEndCapture(s, &ga));

  // Graph B with the explicit API: a fork and a join.
  cudaGraph_t gb;
  CHECK(cudaGraphCreate(&gb, 0));
  float a1 = 1.0f, a2 = 0.999f;
  int nn = n;
  void* scale1[] = {&x, &nn, &a1};
  void* scale2[] = {&x, &nn, &a2};
  void* add[] = {&x, &y, &nn};
  auto kernel_node = [&](void* fn, void** args, const cudaGraphNode_t* deps, size_t ndeps) {
    cudaKernelNodeParams p{};
    p.func = fn;
    p.gridDim = grid;
    p.blockDim = block;
    p.kernelParams = args;
    cudaGraphNode_t node;
    CHECK(cudaGraphAddKernelNode(&node, gb, deps, ndeps, &p));
    return node;
  };
  const cudaGraphNode_t root = kernel_node(reinterpret_cast<void*>(k_scale), scale1, nullptr, 0);
  const cudaGraphNode_t left = kernel_node(reinterpret_cast<void*>(k_scale), scale2, &root, 1);
  const cudaGraphNode_t right = kernel_node(reinterpret_cast<void*>(k_add), add, &root, 1);
  const cudaGraphNode_t both[] = {left, right};
  kernel_node(reinterpret_cast<void*>(k_add), add, both, 2);

  cudaGraphExec_t ea, eb;
  CHECK(cudaGraphInstantiate(&ea, ga, 0));
  CHECK(cudaGraphInstantiate(&eb, gb, 0));
  CHECK(cudaGraphUpload(ea, s));

  // Graph A launched many times back to back: the program's own timing.
  cudaEvent_t e0, e1;
  CHECK(cudaEventCreate(&e0));
  CHECK(cudaEventCreate(&e1));
  CHECK(cudaStreamSynchronize(s));
  CHECK(cudaEventRecord(e0, s));
  for (int k = 0; k < launches; ++k) CHECK(cudaGraphLaunch(ea, s));
  CHECK(cudaEventRecord(e1, s));
  for (int k = 0; k < 3; ++k) CHECK(cudaGraphLaunch(eb, s));
  CHECK(cudaStreamSynchronize(s));
  float ms = 0;
  CHECK(cudaEventElapsedTime(&ms, e0, e1));
  std::printf("graph_app: graph A: %d launches in %.3f ms (%.2f us per launch, GPU events)\n", launches, ms,
              launches > 0 ? 1000.0 * ms / launches : 0.0);

  if (bad_capture) {
    // A synchronisation inside a capture is not allowed: it fails and invalidates the capture.
    cudaGraph_t broken = nullptr;
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    k_scale<<<grid, block, 0, s>>>(x, n, 1.0f);
    const cudaError_t sync = cudaStreamSynchronize(s);
    const cudaError_t end = cudaStreamEndCapture(s, &broken);
    std::printf("graph_app: broken capture: cudaStreamSynchronize -> %s, cudaStreamEndCapture -> %s\n",
                cudaGetErrorName(sync), cudaGetErrorName(end));
    (void)cudaGetLastError();
    if (broken != nullptr) CHECK(cudaGraphDestroy(broken));
  }

  CHECK(cudaMemcpy(host.data(), x, n * sizeof(float), cudaMemcpyDeviceToHost));
  std::printf("graph_app: x[0] = %g\n", host[0]);
  CHECK(cudaGraphExecDestroy(ea));
  CHECK(cudaGraphExecDestroy(eb));
  CHECK(cudaGraphDestroy(ga));
  CHECK(cudaGraphDestroy(gb));
  CHECK(cudaEventDestroy(e0));
  CHECK(cudaEventDestroy(e1));
  CHECK(cudaStreamDestroy(s));
  CHECK(cudaFree(x));
  CHECK(cudaFree(y));
  if (sleep_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(sleep_ms));
  return exit_status;
}
