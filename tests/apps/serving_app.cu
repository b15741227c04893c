// graphprof_serving_app: a small model server of the kind `graphprof profile` and its gate are for.
// It knows nothing about graphprof. A "model" of four blocks (k_linear, k_norm, k_act per block,
// between k_embed and k_head) is captured once per batch-size bucket (1, 2, 4, 8: four graphs of
// 14 nodes), then --steps requests are served: each copies its input in (eager copy), replays the
// graph of its bucket, samples the output with one eager kernel (k_sample) and copies it out, then
// synchronises the stream. Buckets come in a fixed cycle (8, 1, 8, 2, 8, 4, 8, 8), so every run does
// the same work. Variants, for the gate's fixtures (tests/data/profile/gate/):
//   --variant as-is    the above;
//   --variant moved    the last block and k_head are left out of the captured region and run eagerly
//                      after every replay (graphs of 10 nodes, 4 more eager launches per request);
//   --variant slow     the bucket-8 graph's second k_linear does 16x the work per element (same
//                      kernel, same node count: only that graph's GPU time per launch changes);
//   --variant bad-capture  as-is, plus one capture broken by a cudaStreamSynchronize inside it.
// It prints its own timing (wall time of the request loop).
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#define CHECK(expr)                                                                                      \
  do {                                                                                                   \
    const cudaError_t e_ = (expr);                                                                       \
    if (e_ != cudaSuccess) {                                                                             \
      std::fprintf(stderr, "serving_app: %s failed: %s (%s:%d)\n", #expr, cudaGetErrorName(e_), __FILE__, \
                   __LINE__);                                                                            \
      std::exit(1);                                                                                      \
    }                                                                                                    \
  } while (0)

namespace {

constexpr int kHidden = 1024;  // elements per row
constexpr int kBlocks = 4;

__global__ void k_embed(float* x, const float* in, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = in[i] * 0.5f + 0.25f;
}

// A stand-in for a matrix multiply: `work` dependent multiply-adds per element.
__global__ void k_linear(float* x, int n, float w, int work) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = x[i];
  for (int k = 0; k < work; ++k) v = v * w + 0.001f;
  x[i] = v;
}

__global__ void k_norm(float* x, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = x[i] / (1.0f + fabsf(x[i]));
}

__global__ void k_act(float* x, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = x[i] > 0.0f ? x[i] : 0.01f * x[i];
}

__global__ void k_head(float* out, const float* x, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = x[i] * 2.0f;
}

__global__ void k_sample(int* token, const float* out, int rows, int hidden) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  int best = 0;
  for (int j = 1; j < hidden; j += 64)
    if (out[r * hidden + j] > out[r * hidden + best]) best = j;
  token[r] = best;
}

struct Buffers {
  float *in = nullptr, *x = nullptr, *out = nullptr;
  int* token = nullptr;
};

void block(const Buffers& b, int n, int index, int work, cudaStream_t s) {
  const dim3 threads(256), grid((n + 255) / 256);
  k_linear<<<grid, threads, 0, s>>>(b.x, n, 0.999f - 0.001f * index, work);
  k_norm<<<grid, threads, 0, s>>>(b.x, n);
  k_act<<<grid, threads, 0, s>>>(b.x, n);
}

}  // namespace

int main(int argc, char** argv) {
  int steps = 2000, work = 256;
  std::string variant = "as-is", chunk_log;  // --chunk-log FILE: START_NS END_NS STEPS per 16 requests (CLOCK_MONOTONIC)
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--steps" && i + 1 < argc) steps = std::atoi(argv[++i]);
    else if (a == "--work" && i + 1 < argc) work = std::atoi(argv[++i]);
    else if (a == "--variant" && i + 1 < argc) variant = argv[++i];
    else if (a == "--chunk-log" && i + 1 < argc) chunk_log = argv[++i];
    else {
      std::fprintf(stderr, "usage: serving_app [--steps N] [--work W] [--variant as-is|moved|slow|bad-capture] [--chunk-log FILE]\n");
      return 2;
    }
  }
  if (variant != "as-is" && variant != "moved" && variant != "slow" && variant != "bad-capture") {
    std::fprintf(stderr, "serving_app: unknown --variant %s\n", variant.c_str());
    return 2;
  }
  const bool moved = variant == "moved";
  const int buckets[] = {1, 2, 4, 8};
  const int cycle[] = {3, 0, 3, 1, 3, 2, 3, 3};  // bucket indices, one per request
  const int max_n = 8 * kHidden;

  cudaStream_t s;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  Buffers b;
  CHECK(cudaMalloc(&b.in, max_n * sizeof(float)));
  CHECK(cudaMalloc(&b.x, max_n * sizeof(float)));
  CHECK(cudaMalloc(&b.out, max_n * sizeof(float)));
  CHECK(cudaMalloc(&b.token, 8 * sizeof(int)));
  std::vector<float> request(max_n, 1.0f);
  std::vector<int> tokens(8, 0);

  // Warm-up: one eager pass per bucket (what a server does before it captures).
  for (int bucket : buckets) {
    const int n = bucket * kHidden;
    const dim3 threads(256), grid((n + 255) / 256);
    k_embed<<<grid, threads, 0, s>>>(b.x, b.in, n);
    for (int k = 0; k < kBlocks; ++k) block(b, n, k, work, s);
    k_head<<<grid, threads, 0, s>>>(b.out, b.x, n);
  }
  CHECK(cudaStreamSynchronize(s));

  // One graph per bucket, captured from the same function as a server's capture loop.
  std::vector<cudaGraphExec_t> execs;
  std::vector<cudaGraph_t> graphs;
  for (int bucket : buckets) {
    const int n = bucket * kHidden;
    const dim3 threads(256), grid((n + 255) / 256);
    cudaGraph_t g;
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
    k_embed<<<grid, threads, 0, s>>>(b.x, b.in, n);
    const int captured_blocks = moved ? kBlocks - 1 : kBlocks;
    for (int k = 0; k < captured_blocks; ++k) {
      const bool slower = variant == "slow" && bucket == 8 && k == 1;
      block(b, n, k, slower ? 16 * work : work, s);
    }
    if (!moved) k_head<<<grid, threads, 0, s>>>(b.out, b.x, n);
    CHECK(cudaStreamEndCapture(s, &g));
    cudaGraphExec_t e;
    CHECK(cudaGraphInstantiate(&e, g, 0));
    CHECK(cudaGraphUpload(e, s));
    graphs.push_back(g);
    execs.push_back(e);
  }

  if (variant == "bad-capture") {
    // A synchronisation inside a capture is not allowed: it fails and invalidates the capture.
    cudaGraph_t broken = nullptr;
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
    k_embed<<<dim3(4), dim3(256), 0, s>>>(b.x, b.in, kHidden);
    const cudaError_t sync = cudaStreamSynchronize(s);
    const cudaError_t end = cudaStreamEndCapture(s, &broken);
    std::printf("serving_app: broken capture: cudaStreamSynchronize -> %s, cudaStreamEndCapture -> %s\n",
                cudaGetErrorName(sync), cudaGetErrorName(end));
    (void)cudaGetLastError();
    if (broken != nullptr) CHECK(cudaGraphDestroy(broken));
  }

  constexpr int kChunk = 16;
  std::vector<long long> chunks;  // start, end of each chunk of kChunk requests
  auto mono_ns = [] {
    return static_cast<long long>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count());
  };
  long long chunk_start = mono_ns();
  const auto t0 = std::chrono::steady_clock::now();
  for (int step = 0; step < steps; ++step) {
    if (!chunk_log.empty() && step > 0 && step % kChunk == 0) {
      const long long now = mono_ns();
      chunks.push_back(chunk_start);
      chunks.push_back(now);
      chunk_start = now;
    }
    const int bi = cycle[step % 8];
    const int rows = buckets[bi], n = rows * kHidden;
    const dim3 threads(256), grid((n + 255) / 256);
    CHECK(cudaMemcpyAsync(b.in, request.data(), n * sizeof(float), cudaMemcpyHostToDevice, s));
    CHECK(cudaGraphLaunch(execs[bi], s));
    if (moved) {
      block(b, n, kBlocks - 1, work, s);
      k_head<<<grid, threads, 0, s>>>(b.out, b.x, n);
    }
    k_sample<<<1, 32, 0, s>>>(b.token, b.out, rows, kHidden);
    CHECK(cudaMemcpyAsync(tokens.data(), b.token, rows * sizeof(int), cudaMemcpyDeviceToHost, s));
    CHECK(cudaStreamSynchronize(s));
  }
  CHECK(cudaGetLastError());
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  if (!chunk_log.empty()) {
    if (FILE* f = std::fopen(chunk_log.c_str(), "w")) {
      for (std::size_t i = 0; i + 1 < chunks.size(); i += 2) std::fprintf(f, "%lld %lld %d\n", chunks[i], chunks[i + 1], kChunk);
      std::fclose(f);
    }
  }
  std::printf("serving_app: variant %s: %d requests in %.1f ms (%.2f us per request), token[0] = %d\n", variant.c_str(),
              steps, ms, 1000.0 * ms / steps, tokens[0]);

  for (auto e : execs) CHECK(cudaGraphExecDestroy(e));
  for (auto g : graphs) CHECK(cudaGraphDestroy(g));
  CHECK(cudaFree(b.in));
  CHECK(cudaFree(b.x));
  CHECK(cudaFree(b.out));
  CHECK(cudaFree(b.token));
  CHECK(cudaStreamDestroy(s));
  return 0;
}
