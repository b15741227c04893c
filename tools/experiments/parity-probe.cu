// A minimal stand-alone probe for tools/experiments/parity-bisect.sh (docs/findings.md, "Parity"): does a chain
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
//
//   parity-probe watch SECONDS [LENGTH]
//
// One stream, one exec, replayed for SECONDS: a line at every change between the fast and the slow
// level (slow = 15 % above the fastest sample so far) with the time since start; at the first
// change to slow, what brings the fast level back: the same exec again, a new exec, a new stream,
// 200 ms and 2 s of an idle GPU, a second host thread spinning; at the end, if still slow,
// cudaDeviceReset and everything anew.
#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
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

// A chain of `length` empty kernels captured on `s`, instantiated and uploaded.
cudaGraphExec_t make_exec(cudaStream_t s, int length) {
  cudaGraph_t g = nullptr;
  cudaGraphExec_t x = nullptr;
  CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
  for (int k = 0; k < length; ++k) empty_kernel<<<1, 1, 0, s>>>();
  CK(cudaStreamEndCapture(s, &g));
  CK(cudaGraphInstantiate(&x, g, 0));
  CK(cudaGraphDestroy(g));
  CK(cudaGraphUpload(x, s));
  CK(cudaGraphLaunch(x, s));
  CK(cudaStreamSynchronize(s));
  return x;
}

// Median device time per node (µs) of 4 replays back to back.
double per_node(cudaGraphExec_t x, cudaStream_t s, const std::vector<cudaEvent_t>& ev, int length) {
  CK(cudaEventRecord(ev[0], s));
  for (int i = 0; i < 4; ++i) {
    CK(cudaGraphLaunch(x, s));
    CK(cudaEventRecord(ev[i + 1], s));
  }
  CK(cudaEventSynchronize(ev[4]));
  std::vector<double> v;
  for (int i = 0; i < 4; ++i) {
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, ev[i], ev[i + 1]));
    v.push_back(ms * 1000.0 / length);
  }
  return median(v);
}

int watch(double seconds, int length) {
  using Clock = std::chrono::steady_clock;
  const auto t0 = Clock::now();
  const auto since = [&] { return std::chrono::duration<double>(Clock::now() - t0).count(); };
  const auto idle = [](int ms) { std::this_thread::sleep_for(std::chrono::milliseconds(ms)); };
  CK(cudaFree(nullptr));
  cudaStream_t s = nullptr;
  CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  std::vector<cudaEvent_t> ev(5);
  for (auto& e : ev) CK(cudaEventCreate(&e));
  cudaGraphExec_t x = make_exec(s, length);
  double fastest = 1e9, slowest = 0;
  bool slow = false, recovery_done = false;
  long samples[2] = {0, 0};
  std::printf("watch %.0f s, chain of %d: t=%.3f s first sample %.3f us/node\n", seconds, length, since(),
              per_node(x, s, ev, length));
  while (since() < seconds) {
    const double v = per_node(x, s, ev, length);
    fastest = std::min(fastest, v);
    slowest = std::max(slowest, v);
    const bool now_slow = v > 1.15 * fastest;
    ++samples[now_slow];
    if (now_slow != slow) {
      std::printf("t=%.3f s: %s (%.3f us/node; fastest %.3f)\n", since(), now_slow ? "fast -> slow" : "slow -> fast", v,
                  fastest);
      slow = now_slow;
    }
    if (slow && !recovery_done) {
      recovery_done = true;
      std::printf("  recovery: same exec %.3f", per_node(x, s, ev, length));
      cudaGraphExec_t y = make_exec(s, length);
      std::printf(", new exec %.3f", per_node(y, s, ev, length));
      cudaStream_t s2 = nullptr;
      CK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
      cudaGraphExec_t z = make_exec(s2, length);
      std::printf(", new stream + exec %.3f", per_node(z, s2, ev, length));
      CK(cudaGraphExecDestroy(y));
      CK(cudaGraphExecDestroy(z));
      CK(cudaStreamDestroy(s2));
      // After an idle spell the clocks ramp up again: 100 ms of replays first, then the sample.
      const auto after_idle = [&](int ms) {
        idle(ms);
        const auto w0 = Clock::now();
        while (std::chrono::duration<double>(Clock::now() - w0).count() < 0.1) per_node(x, s, ev, length);
        return per_node(x, s, ev, length);
      };
      std::printf(", after 200 ms idle %.3f", after_idle(200));
      std::printf(", after 2 s idle %.3f", after_idle(2000));
      // A second host thread busy meanwhile (host power state, if the device waits on host memory).
      std::atomic<bool> stop{false};
      std::thread spinner([&] {
        volatile unsigned long long x = 0;
        while (!stop.load(std::memory_order_relaxed)) x = x + 1;
      });
      const auto w0 = Clock::now();
      while (std::chrono::duration<double>(Clock::now() - w0).count() < 0.2) per_node(x, s, ev, length);
      std::printf(", with a host thread spinning %.3f us/node\n", per_node(x, s, ev, length));
      stop = true;
      spinner.join();
    }
  }
  std::printf("samples: fast %ld, slow %ld (fastest %.3f, slowest %.3f us/node); ends %s at t=%.3f s\n", samples[0],
              samples[1], fastest, slowest, slow ? "slow" : "fast", since());
  if (slow) {
    CK(cudaGraphExecDestroy(x));
    for (auto& e : ev) CK(cudaEventDestroy(e));
    CK(cudaStreamDestroy(s));
    CK(cudaDeviceReset());
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    for (auto& e : ev) CK(cudaEventCreate(&e));
    x = make_exec(s, length);
    std::printf("after cudaDeviceReset: %.3f us/node\n", per_node(x, s, ev, length));
  }
  return 0;
}

int main(int argc, char** argv) {
  if (argc > 2 && std::string(argv[1]) == "watch") return watch(std::atof(argv[2]), argc > 3 ? std::atoi(argv[3]) : 1000);
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
