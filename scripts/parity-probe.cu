// A minimal stand-alone probe for scripts/parity-bisect.sh (docs/findings.md, "Parity"): does a chain
// of empty kernels replay slower in a later round of one process, and which per-round habit of
// graphprof's measurement loop causes it? Built with nvcc on the GPU machine, never into the project.
//
//   parity-probe LENGTH ROUNDS FLAGS      e.g.  parity-probe 1000 6 stream,latch
//
// Every round captures a chain of LENGTH empty kernels <<<1,1>>>, instantiates, uploads and launches
// it once, then times 16 replays back to back (an event between replays) and 16 replays queued
// behind a latch kernel (graphprof's gpu_time_per_iter and gpu_time_per_iter_latched), and prints
// the median device time per node of each. FLAGS (comma-separated, or "none") make a round do what
// graphprof does per measured shape instead of reusing one object for the whole process:
//   stream  a new measurement stream every round (destroyed at its end)
//   latch   the latch's mapped host memory allocated and freed every round
//   events  the timing events created and destroyed every round
//   execs   5 capture + instantiate + upload + first launch sequences every round (the last one kept)
//   extra   one more stream every round: an empty kernel on it, synchronised, destroyed
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#define CK(call)                                                                                    \
  do {                                                                                              \
    const cudaError_t e_ = (call);                                                                  \
    if (e_ != cudaSuccess) {                                                                        \
      std::fprintf(stderr, "%s:%d: %s returned %s\n", __FILE__, __LINE__, #call, cudaGetErrorName(e_)); \
      std::exit(1);                                                                                 \
    }                                                                                               \
  } while (0)

__global__ void empty_kernel() {}

__device__ unsigned long long global_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__global__ void latch_kernel(volatile int* release, volatile int* timed_out, unsigned long long timeout_ns) {
  const unsigned long long t0 = global_ns();
  while (*release == 0) {
    if (global_ns() - t0 > timeout_ns) {
      *timed_out = 1;
      return;
    }
    __nanosleep(200);
  }
}

namespace {

constexpr int kReplays = 16;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

// Device time (µs) of each replay between consecutive events.
std::vector<double> spans(const std::vector<cudaEvent_t>& ev) {
  std::vector<double> out;
  for (int i = 0; i < kReplays; ++i) {
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, ev[i], ev[i + 1]));
    out.push_back(ms * 1000.0);
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  const int length = argc > 1 ? std::atoi(argv[1]) : 1000;
  const int rounds = argc > 2 ? std::atoi(argv[2]) : 6;
  const std::string flags = argc > 3 ? argv[3] : "none";
  const auto has = [&](const char* f) { return ("," + flags + ",").find(std::string(",") + f + ",") != std::string::npos; };
  if (length < 1 || rounds < 1) {
    std::fprintf(stderr, "usage: %s LENGTH ROUNDS FLAGS (stream,latch,events,execs,extra or none)\n", argv[0]);
    return 2;
  }
  CK(cudaFree(nullptr));

  cudaStream_t kept_stream = nullptr;
  if (!has("stream")) CK(cudaStreamCreateWithFlags(&kept_stream, cudaStreamNonBlocking));
  int* kept_latch = nullptr;
  if (!has("latch")) CK(cudaHostAlloc(reinterpret_cast<void**>(&kept_latch), 2 * sizeof(int), cudaHostAllocMapped));
  std::vector<cudaEvent_t> kept_events(kReplays + 1);
  if (!has("events"))
    for (auto& e : kept_events) CK(cudaEventCreate(&e));

  std::printf("round,gpu_us_per_node,latched_us_per_node,latch_timed_out  (length %d, flags %s)\n", length, flags.c_str());
  for (int r = 0; r < rounds; ++r) {
    if (has("extra")) {
      cudaStream_t x = nullptr;
      CK(cudaStreamCreateWithFlags(&x, cudaStreamNonBlocking));
      empty_kernel<<<1, 1, 0, x>>>();
      CK(cudaGetLastError());
      CK(cudaStreamSynchronize(x));
      CK(cudaStreamDestroy(x));
    }
    cudaStream_t s = kept_stream;
    if (has("stream")) CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    std::vector<cudaEvent_t> ev = kept_events;
    if (has("events"))
      for (auto& e : ev) CK(cudaEventCreate(&e));

    cudaGraph_t g = nullptr;
    cudaGraphExec_t x = nullptr;
    for (int i = 0; i < (has("execs") ? 5 : 1); ++i) {
      if (x != nullptr) {
        CK(cudaGraphExecDestroy(x));
        CK(cudaGraphDestroy(g));
      }
      CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
      for (int k = 0; k < length; ++k) empty_kernel<<<1, 1, 0, s>>>();
      CK(cudaStreamEndCapture(s, &g));
      CK(cudaGraphInstantiate(&x, g, 0));
      CK(cudaGraphUpload(x, s));
      CK(cudaStreamSynchronize(s));
      CK(cudaGraphLaunch(x, s));
      CK(cudaStreamSynchronize(s));
    }

    // Back to back, an event between replays.
    CK(cudaEventRecord(ev[0], s));
    for (int i = 0; i < kReplays; ++i) {
      CK(cudaGraphLaunch(x, s));
      CK(cudaEventRecord(ev[i + 1], s));
    }
    CK(cudaEventSynchronize(ev[kReplays]));
    const double gpu = median(spans(ev)) / length;

    // Behind a latch: queued while the latch holds the stream, then released.
    int* latch = kept_latch;
    if (has("latch")) CK(cudaHostAlloc(reinterpret_cast<void**>(&latch), 2 * sizeof(int), cudaHostAllocMapped));
    int* dev = nullptr;
    CK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&dev), latch, 0));
    reinterpret_cast<volatile int*>(latch)[0] = 0;
    reinterpret_cast<volatile int*>(latch)[1] = 0;
    latch_kernel<<<1, 1, 0, s>>>(dev, dev + 1, 250000000ull);
    CK(cudaGetLastError());
    CK(cudaEventRecord(ev[0], s));
    for (int i = 0; i < kReplays; ++i) {
      CK(cudaGraphLaunch(x, s));
      CK(cudaEventRecord(ev[i + 1], s));
    }
    reinterpret_cast<volatile int*>(latch)[0] = 1;
    CK(cudaEventSynchronize(ev[kReplays]));
    const int timed_out = reinterpret_cast<volatile int*>(latch)[1];
    const double latched = median(spans(ev)) / length;
    if (has("latch")) CK(cudaFreeHost(latch));

    std::printf("%d,%.3f,%.3f,%d\n", r, gpu, latched, timed_out);
    CK(cudaGraphExecDestroy(x));
    CK(cudaGraphDestroy(g));
    if (has("events"))
      for (auto& e : ev) CK(cudaEventDestroy(e));
    if (has("stream")) CK(cudaStreamDestroy(s));
  }
  return 0;
}
