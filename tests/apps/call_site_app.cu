// graphprof_call_site_app: an ordinary CUDA application whose call sites, graphs and memory are
// known exactly, for the call-site and ledger tests of `graphprof profile`
// (tests/gpu/call_site_app_test.cpp). It knows nothing about graphprof. Each place that matters is
// a function of its own (not inlined), so its name is the call site graphprof must report:
//   capture_bucket(stream, n): one capture site, called for 3 shapes (n = 256, 1024, 4096: three
//     graphs of 1 memset + 2 kernels, grid sizes differ);
//   capture_with_memory_node(stream): a graph with one memory node of kMemNodeBytes (cudaMallocAsync
//     inside the capture) and its free node;
//   broken_capture(stream): a capture broken by cudaStreamSynchronize (900, EndCapture 901);
//   late_capture(stream): a graph captured after the steady state began;
//   eager_scale(stream): 2 k_scale launches per step;  eager_copy(stream): 1 HtoD copy per step;
//   step_sync(stream): 1 cudaStreamSynchronize per step.
// A step launches the 1024-bucket graph once. Then cudaGraphExecUpdate twice (one success, one
// topology change that fails). --steps N (default 40). --bench N: instead, times N eager launches
// of an empty kernel back to back (host time per launch call, printed), for the per-launch cost.
// --nvtx-step NAME: each step of the loop is one NVTX range NAME (nvtxRangePushA/Pop, with a
// range of another name nested inside), for `profile --step-range NAME`.
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#define CHECK(expr)                                                                                          \
  do {                                                                                                       \
    const cudaError_t e_ = (expr);                                                                           \
    if (e_ != cudaSuccess) {                                                                                 \
      std::fprintf(stderr, "call_site_app: %s failed: %s (line %d)\n", #expr, cudaGetErrorName(e_), __LINE__); \
      std::exit(1);                                                                                          \
    }                                                                                                        \
  } while (0)

#define NOINLINE __attribute__((noinline))

constexpr size_t kMemNodeBytes = size_t{3} << 20;  // 3 MiB
constexpr int kMaxN = 4096;

__global__ void k_scale(float* x, int n, float a) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = x[i] * a + 1.0f;
}

__global__ void k_fill(float* x, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = 2.0f;
}

__global__ void k_empty() {}

float* g_x = nullptr;
float* g_host = nullptr;
volatile int g_sink = 0;  // keeps the compiler from turning calls into tail calls

NOINLINE cudaGraphExec_t capture_bucket(cudaStream_t s, int n) {
  cudaGraph_t g = nullptr;
  CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
  CHECK(cudaMemsetAsync(g_x, 0, n * sizeof(float), s));
  k_scale<<<(n + 255) / 256, 256, 0, s>>>(g_x, n, 1.5f);
  k_scale<<<(n + 255) / 256, 256, 0, s>>>(g_x, n, 0.5f);
  CHECK(cudaStreamEndCapture(s, &g));
  cudaGraphExec_t e = nullptr;
  CHECK(cudaGraphInstantiate(&e, g, 0));
  CHECK(cudaGraphDestroy(g));
  g_sink = g_sink + 1;
  return e;
}

NOINLINE cudaGraphExec_t capture_with_memory_node(cudaStream_t s) {
  cudaGraph_t g = nullptr;
  CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
  float* tmp = nullptr;
  CHECK(cudaMallocAsync(reinterpret_cast<void**>(&tmp), kMemNodeBytes, s));
  const int n = static_cast<int>(kMemNodeBytes / sizeof(float));
  k_fill<<<(n + 255) / 256, 256, 0, s>>>(tmp, n);
  CHECK(cudaFreeAsync(tmp, s));
  CHECK(cudaStreamEndCapture(s, &g));
  cudaGraphExec_t e = nullptr;
  CHECK(cudaGraphInstantiate(&e, g, 0));
  CHECK(cudaGraphDestroy(g));
  g_sink = g_sink + 1;
  return e;
}

NOINLINE void broken_capture(cudaStream_t s) {
  cudaGraph_t g = nullptr;
  CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
  k_scale<<<1, 256, 0, s>>>(g_x, 256, 2.0f);
  (void)cudaStreamSynchronize(s);  // not allowed while capturing: 900, and the capture is invalidated
  (void)cudaStreamEndCapture(s, &g);
  if (g != nullptr) (void)cudaGraphDestroy(g);
  (void)cudaGetLastError();
  g_sink = g_sink + 1;
}

NOINLINE cudaGraphExec_t late_capture(cudaStream_t s) {
  cudaGraph_t g = nullptr;
  CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
  k_fill<<<4, 256, 0, s>>>(g_x, 1024);
  CHECK(cudaStreamEndCapture(s, &g));
  cudaGraphExec_t e = nullptr;
  CHECK(cudaGraphInstantiate(&e, g, 0));
  CHECK(cudaGraphDestroy(g));
  g_sink = g_sink + 1;
  return e;
}

NOINLINE void eager_scale(cudaStream_t s) {
  k_scale<<<4, 256, 0, s>>>(g_x, 1024, 1.0f);
  k_scale<<<4, 256, 0, s>>>(g_x, 1024, 1.0f);
  g_sink = g_sink + 1;
}

NOINLINE void eager_copy(cudaStream_t s) {
  CHECK(cudaMemcpyAsync(g_x, g_host, 1024 * sizeof(float), cudaMemcpyHostToDevice, s));
  g_sink = g_sink + 1;
}

NOINLINE void step_sync(cudaStream_t s) {
  CHECK(cudaStreamSynchronize(s));
  g_sink = g_sink + 1;
}

// cudaGraphExecUpdate of the 1024-bucket exec: with a graph of the same shape (succeeds) and with
// one of another topology (fails with cudaErrorGraphExecUpdateFailure).
NOINLINE void update_exec(cudaStream_t s, cudaGraphExec_t exec) {
  for (int kernels : {2, 3}) {
    cudaGraph_t g = nullptr;
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
    CHECK(cudaMemsetAsync(g_x, 0, 1024 * sizeof(float), s));
    for (int k = 0; k < kernels; ++k) k_scale<<<4, 256, 0, s>>>(g_x, 1024, 1.25f);
    CHECK(cudaStreamEndCapture(s, &g));
    cudaGraphExecUpdateResultInfo info{};
    const cudaError_t r = cudaGraphExecUpdate(exec, g, &info);
    std::printf("call_site_app: cudaGraphExecUpdate with %d kernels: %s\n", kernels, cudaGetErrorName(r));
    (void)cudaGetLastError();
    CHECK(cudaGraphDestroy(g));
  }
  g_sink = g_sink + 1;
}

int bench(int n) {
  cudaStream_t s;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  k_empty<<<1, 1, 0, s>>>();
  CHECK(cudaStreamSynchronize(s));
  std::vector<double> us;
  for (int round = 0; round < 5; ++round) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < n; ++i) k_empty<<<1, 1, 0, s>>>();
    const auto t1 = std::chrono::steady_clock::now();
    CHECK(cudaStreamSynchronize(s));
    us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / n);
  }
  std::sort(us.begin(), us.end());
  std::printf("call_site_app: bench %d launches x 5 rounds: median %.3f us per launch call (min %.3f, max %.3f)\n", n, us[2],
              us[0], us[4]);
  return 0;
}

int main(int argc, char** argv) {
  int steps = 40, bench_n = 0;
  std::string nvtx_step;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if ((a == "--steps" || a == "--bench") && i + 1 < argc) (a == "--steps" ? steps : bench_n) = std::atoi(argv[++i]);
    else if (a == "--nvtx-step" && i + 1 < argc) nvtx_step = argv[++i];
    else {
      std::fprintf(stderr, "usage: call_site_app [--steps N] [--bench N] [--nvtx-step NAME]\n");
      return 2;
    }
  }
  if (bench_n > 0) return bench(bench_n);
  CHECK(cudaMalloc(reinterpret_cast<void**>(&g_x), kMaxN * sizeof(float)));
  CHECK(cudaMallocHost(reinterpret_cast<void**>(&g_host), kMaxN * sizeof(float)));
  cudaStream_t s;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  cudaGraphExec_t buckets[3];
  const int sizes[3] = {256, 1024, 4096};
  for (int b = 0; b < 3; ++b) buckets[b] = capture_bucket(s, sizes[b]);
  cudaGraphExec_t mem = capture_with_memory_node(s);
  broken_capture(s);
  CHECK(cudaGraphLaunch(mem, s));
  CHECK(cudaGraphLaunch(buckets[0], s));
  CHECK(cudaGraphLaunch(buckets[2], s));
  for (int i = 0; i < steps; ++i) {
    if (!nvtx_step.empty()) nvtxRangePushA(nvtx_step.c_str());
    CHECK(cudaGraphLaunch(buckets[1], s));
    if (!nvtx_step.empty()) nvtxRangePushA("eager part");
    eager_scale(s);
    eager_copy(s);
    if (!nvtx_step.empty()) nvtxRangePop();
    step_sync(s);
    if (!nvtx_step.empty()) nvtxRangePop();
  }
  cudaGraphExec_t late = late_capture(s);
  CHECK(cudaGraphLaunch(late, s));
  update_exec(s, buckets[1]);
  CHECK(cudaStreamSynchronize(s));
  std::printf("call_site_app: %d steps done\n", steps);
  for (cudaGraphExec_t e : {buckets[0], buckets[1], buckets[2], mem, late}) CHECK(cudaGraphExecDestroy(e));
  CHECK(cudaFree(g_x));
  CHECK(cudaFreeHost(g_host));
  return 0;
}
