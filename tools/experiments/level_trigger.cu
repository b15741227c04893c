// level_trigger: two direct tests of the device level (docs/findings.md, "What switches the device
// level" and "Parity grid"), stand-alone, built with nvcc on the GPU machine, never into the project.
//
//   level_trigger trigger KIND PATTERN [MAXCOUNT [STEP]]
//
// One fresh process: a 1000-kernel chain exec is made first (built explicitly, uploaded, launched
// once) and timed back to back (second of two replays, ns per node); then rounds of tiny kernels of
// one KIND are launched, the cumulative count doubling up to MAXCOUNT (default 8192; with STEP > 0
// growing by STEP instead), and the chain is timed again after every round. Prints one line per round and a TRIGGER summary line with the
// first count after which the chain read the slow level (> 1.15 x the first reading).
//   KIND     empty   an empty kernel <<<1,1>>>
//            dev     reads one int of device memory, writes it to device memory
//            hread   reads one int of host-mapped (zero-copy) memory, writes it to device memory
//            hwrite  writes one int of host-mapped memory
//            wait    no kernel: cuStreamWaitValue32 on a host-mapped flag already set (graphprof's latch)
//   PATTERN  burst   the round's kernels back to back on one stream, one synchronize per round
//            sync    each kernel followed by a stream synchronize
//            graph   each kernel followed by one replay of a 10-kernel chain exec, then a synchronize
//                    (the shape of a latched measurement: latch, graph, wait)
//            pair    two kernels at once, one on each of two streams, then a synchronize (the
//                    sample's upload step holds two latch kernels so); the count is of pairs
//            alt     the same two kernels one after the other: stream 1, synchronize, stream 2,
//                    synchronize (two streams, never both with work at once)
//            chained the two kernels ordered by an event (stream 2 waits for stream 1's kernel),
//                    queued without a synchronize between: both streams hold work at once, the
//                    kernels never run at once
//            gpair   one kernel on stream 2 and one replay of the 10-kernel chain exec on stream 1
//                    at once, then a synchronize (does a graph replay count as a stream's kernel?)
//            held    a latch, one replay of the 10-kernel chain exec behind it, release,
//                    synchronize (a latched measurement): KIND wait = the stream-wait latch, any
//                    other KIND = a kernel polling a host-mapped flag (the sample's and the old
//                    graphprof latch)
// (Pinned host memory that is not mapped cannot be read by a kernel: with unified addressing every
// cudaHostAlloc/cudaMallocHost allocation is mapped, so hread covers the sample's cudaMallocHost.)
//
//   level_trigger methods [LENGTH WIDTH ENTRY]...
//
// The method difference between graphprof's latched figure and the sample's, on the sample's own
// graph (captured as it captures it, and the same DAG built explicitly), with blocking streams (the
// sample's) and non-blocking ones (graphprof's), in one process, latched only by the stream wait
// (no kernel that reads host memory, so the level stays fast; the chain probe is printed first and
// last). Per shape and variant, ns per node (median of the repeats):
//   S   the sample's repeat_launch_device: a fresh exec, launched twice with a synchronize after each,
//       destroyed and instantiated again, launched behind the latch, then once more behind the
//       latch with an event before and after that one replay (stream-wait latch)
//   W1  a warm exec, one replay behind the latch, an event before and after it
//   G1  a warm exec, 32 replays behind the latch with an event between consecutive ones: the first
//       interval (the replay that follows the latch)
//   G   the same 32: median of the other 31 intervals (graphprof's gpu_time_per_iter_latched)
//   B   32 replays back to back without a latch, median interval (graphprof's gpu_time_per_iter)
//   E   32 replays behind the latch with an event only before the first and after the last: the
//       total / 32 (does the event between replays cost?)
//   A   32 replays behind the latch alternating two execs of the same graph, an event between
//       consecutive ones, median of the last 31 (does a replay wait longer for its own exec's last one?)
//   K   S with the sample's own latch kernel (polling host-mapped memory), measured last
// Defaults: 10 4 0  10 4 1  10 16 0  10 16 1  100 4 0  100 4 1  10 1 0  1000 1 0.
// Build (GPU machine): nvcc -O2 -std=c++17 -arch=sm_90 -o level_trigger tools/experiments/level_trigger.cu
// (tools/experiments/perfscaling_graphs.cuh beside it holds the sample's graphs).
// Written from reading the sample; no code copied.
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "perfscaling_graphs.cuh"

#define CKD(x)                                                            \
  do {                                                                    \
    CUresult r_ = (x);                                                    \
    if (r_ != CUDA_SUCCESS) {                                             \
      std::fprintf(stderr, "line %d: %s: CUresult %d\n", __LINE__, #x, r_); \
      std::exit(4);                                                       \
    }                                                                     \
  } while (0)

// cuStreamWaitValue32 through the runtime (no -lcuda needed), as graphprof's latch finds it.
static PFN_cuStreamWaitValue32_v11070 wait_value() {
  static PFN_cuStreamWaitValue32_v11070 fn = [] {
    void* f = nullptr;
    cudaDriverEntryPointQueryResult found{};
    if (cudaGetDriverEntryPointByVersion("cuStreamWaitValue32", &f, 11070, cudaEnableDefault, &found) != cudaSuccess ||
        found != cudaDriverEntryPointSuccess) {
      std::fprintf(stderr, "cuStreamWaitValue32: not available from this driver\n");
      std::exit(4);
    }
    return reinterpret_cast<PFN_cuStreamWaitValue32_v11070>(f);
  }();
  return fn;
}

__global__ void k_empty() {}
__global__ void k_read(const volatile int* src, int* dst) { *dst = *src; }
__global__ void k_write(volatile int* dst) { *dst = 1; }

__device__ __forceinline__ unsigned long long gtime() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// The sample's kind of latch: polls a host-mapped flag until set or timed out.
__global__ void k_latch(long long ns, volatile int* flag, int* timed_out) {
  const long long t0 = static_cast<long long>(gtime());
  long long t = t0;
  while (t < t0 + ns && *flag == 0) t = static_cast<long long>(gtime());
  *timed_out = (*flag == 0);
}

static int* h_flag = nullptr;  // host-mapped: [0] latch flag, [1] scratch, [2] timed out
static int* d_flag = nullptr;  // its device address
static int* d_mem = nullptr;   // device scratch
static cudaEvent_t ev[40];

static float ms_between(cudaEvent_t a, cudaEvent_t b) {
  float ms = 0;
  CK(cudaEventElapsedTime(&ms, a, b));
  return ms;
}

static double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static cudaGraphExec_t instantiate(cudaGraph_t g) {
  cudaGraphExec_t x;
  CK(cudaGraphInstantiateWithFlags(&x, g, 0));
  return x;
}

// The stream-wait latch: the stream stalls until h_flag[0] >= 1.
static void hold(cudaStream_t s) {
  h_flag[0] = 0;
  __sync_synchronize();
  CKD(wait_value()(reinterpret_cast<CUstream>(s), reinterpret_cast<CUdeviceptr>(d_flag), 1, CU_STREAM_WAIT_VALUE_GEQ));
}
static void hold_kernel(cudaStream_t s, long long timeout_ns) {
  h_flag[0] = 0;
  __sync_synchronize();
  k_latch<<<1, 1, 0, s>>>(timeout_ns, d_flag, d_flag + 2);
  CK(cudaGetLastError());
}
static void release(cudaStream_t s) {
  __sync_synchronize();
  reinterpret_cast<volatile int*>(h_flag)[0] = 1;
  CK(cudaStreamSynchronize(s));
}

// Second of two replays back to back, ns per node.
static double chain_level(cudaGraphExec_t x, cudaStream_t s, int nodes) {
  CK(cudaEventRecord(ev[0], s));
  CK(cudaGraphLaunch(x, s));
  CK(cudaEventRecord(ev[1], s));
  CK(cudaGraphLaunch(x, s));
  CK(cudaEventRecord(ev[2], s));
  CK(cudaStreamSynchronize(s));
  return ms_between(ev[1], ev[2]) * 1e6 / nodes;
}

static cudaGraphExec_t make_chain_exec(cudaStream_t s, int n) {
  cudaGraph_t g = build_parallel_chain(n, 1, false);
  cudaGraphExec_t x = instantiate(g);
  CK(cudaGraphDestroy(g));
  CK(cudaGraphUpload(x, s));
  CK(cudaGraphLaunch(x, s));
  CK(cudaStreamSynchronize(s));
  return x;
}

static void setup() {
  CK(cudaFree(nullptr));
  CK(cudaHostAlloc(reinterpret_cast<void**>(&h_flag), 4 * sizeof(int), cudaHostAllocMapped));
  std::memset(h_flag, 0, 4 * sizeof(int));
  CK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&d_flag), h_flag, 0));
  CK(cudaMalloc(&d_mem, 4 * sizeof(int)));
  CK(cudaMemset(d_mem, 0, 4 * sizeof(int)));
  for (auto& e : ev) CK(cudaEventCreate(&e));
}

static int cmd_trigger(const std::string& kind, const std::string& pattern, long maxcount, long step) {
  static const char* kinds[] = {"empty", "dev", "hread", "hwrite", "wait"};
  static const char* patterns[] = {"burst", "sync", "graph", "pair", "alt", "chained", "gpair", "held"};
  if (std::find_if(std::begin(kinds), std::end(kinds), [&](const char* k) { return kind == k; }) == std::end(kinds) ||
      std::find_if(std::begin(patterns), std::end(patterns), [&](const char* k) { return pattern == k; }) ==
          std::end(patterns) ||
      maxcount < 1 || step < 0) {
    std::fprintf(stderr, "trigger: KIND empty|dev|hread|hwrite|wait, PATTERN burst|sync|graph|pair|alt|chained|gpair|held, MAXCOUNT >= 1, STEP >= 0\n");
    return 2;
  }
  setup();
  cudaStream_t s, s2;
  CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  CK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
  const int kChain = 1000;
  cudaGraphExec_t probe = make_chain_exec(s, kChain);  // the process's oldest exec
  cudaGraphExec_t small = make_chain_exec(s, 10);
  h_flag[0] = 1;  // the wait kind's flag is set: each wait passes at once
  const auto launch = [&](cudaStream_t st) {
    if (kind == "empty") k_empty<<<1, 1, 0, st>>>();
    else if (kind == "dev") k_read<<<1, 1, 0, st>>>(d_mem, d_mem + 1);
    else if (kind == "hread") k_read<<<1, 1, 0, st>>>(d_flag, d_mem + 1);
    else if (kind == "hwrite") k_write<<<1, 1, 0, st>>>(d_flag + 1);
    else
      CKD(wait_value()(reinterpret_cast<CUstream>(st), reinterpret_cast<CUdeviceptr>(d_flag), 1, CU_STREAM_WAIT_VALUE_GEQ));
    CK(cudaGetLastError());
  };
  cudaEvent_t order;
  CK(cudaEventCreateWithFlags(&order, cudaEventDisableTiming));
  const auto one = [&] {
    if (pattern == "held") {
      if (kind == "wait") hold(s);
      else hold_kernel(s, 1000000000LL);
      CK(cudaGraphLaunch(small, s));
      release(s);
      h_flag[0] = 1;
      return;
    }
    if (pattern == "gpair") {
      launch(s2);
      CK(cudaGraphLaunch(small, s));
      CK(cudaStreamSynchronize(s2));
      CK(cudaStreamSynchronize(s));
      return;
    }
    launch(s);
    if (pattern == "alt") {
      CK(cudaStreamSynchronize(s));
      launch(s2);
      CK(cudaStreamSynchronize(s2));
      return;
    }
    if (pattern == "chained") {
      CK(cudaEventRecord(order, s));
      CK(cudaStreamWaitEvent(s2, order, 0));
      launch(s2);
      CK(cudaStreamSynchronize(s2));
      CK(cudaStreamSynchronize(s));
      return;
    }
    if (pattern == "pair") {
      launch(s2);
      CK(cudaStreamSynchronize(s2));
    }
    if (pattern == "graph") CK(cudaGraphLaunch(small, s));
    if (pattern != "burst") CK(cudaStreamSynchronize(s));
  };
  const double first = chain_level(probe, s, kChain);
  std::printf("trigger %s %s count 0: %.0f ns/node\n", kind.c_str(), pattern.c_str(), first);
  long done = 0, switched_after = -1;
  double last = first;
  for (long target = step > 0 ? step : 1; target <= maxcount; target = step > 0 ? target + step : target * 2) {
    while (done < target) {
      one();
      ++done;
    }
    CK(cudaStreamSynchronize(s));
    last = chain_level(probe, s, kChain);
    std::printf("trigger %s %s count %ld: %.0f ns/node\n", kind.c_str(), pattern.c_str(), done, last);
    if (switched_after < 0 && last > 1.15 * first) switched_after = done;
  }
  // A new exec after all rounds: is the level the context's or the old exec's?
  cudaGraphExec_t fresh = make_chain_exec(s, kChain);
  const double fresh_v = chain_level(fresh, s, kChain);
  std::printf("TRIGGER kind=%-6s pattern=%-7s first=%.0f last=%.0f new_exec=%.0f switched_after=%s\n", kind.c_str(),
              pattern.c_str(), first, last, fresh_v,
              switched_after < 0 ? "none" : std::to_string(switched_after).c_str());
  return 0;
}

struct Shape {
  int length, width;
  bool entry;
};

// The sample's per-trial sequence up to repeat_launch_device, on `g`; ns per node.
static double sample_method(cudaGraph_t g, const std::vector<cudaStream_t>& s, int nodes, bool kernel_latch) {
  cudaGraphExec_t x = instantiate(g);
  for (int i = 0; i < 2; ++i) {
    CK(cudaGraphLaunch(x, s[0]));
    CK(cudaStreamSynchronize(s[0]));
  }
  CK(cudaGraphExecDestroy(x));
  x = instantiate(g);
  const long long timeout = 4000LL + 500LL * nodes;
  double v = 0;
  for (int step = 0; step < 2; ++step) {
    if (kernel_latch) hold_kernel(s[0], timeout);
    else hold(s[0]);
    CK(cudaEventRecord(ev[0], s[0]));
    CK(cudaGraphLaunch(x, s[0]));
    CK(cudaEventRecord(ev[1], s[0]));
    release(s[0]);
    v = ms_between(ev[0], ev[1]) * 1e6 / nodes;
  }
  CK(cudaGraphExecDestroy(x));
  return v;
}

static int cmd_methods(std::vector<Shape> shapes) {
  if (shapes.empty())
    shapes = {{10, 4, false}, {10, 4, true}, {10, 16, false}, {10, 16, true}, {100, 4, false}, {100, 4, true},
              {10, 1, false}, {1000, 1, false}};
  setup();
  cudaStream_t ps;
  CK(cudaStreamCreateWithFlags(&ps, cudaStreamNonBlocking));
  const int kChain = 1000;
  cudaGraphExec_t probe = make_chain_exec(ps, kChain);
  std::printf("methods: chain level before: %.0f ns/node\n", chain_level(probe, ps, kChain));
  std::printf("%-12s %-8s %-11s %7s %7s %7s %7s %7s %7s %7s   (ns per node, median of 5)\n", "shape", "build",
              "streams", "S", "W1", "G1", "G", "B", "E", "A");
  struct Later {
    Shape sh;
    bool captured, blocking;
  };
  std::vector<Later> later;
  for (const Shape& sh : shapes) {
    const int nodes = sh.length * sh.width + (sh.entry ? 1 : 0);
    for (bool blocking : {true, false}) {
      std::vector<cudaStream_t> s(static_cast<std::size_t>(std::max(2, sh.width)));
      for (auto& x : s) CK(blocking ? cudaStreamCreate(&x) : cudaStreamCreateWithFlags(&x, cudaStreamNonBlocking));
      cudaEvent_t fork;
      CK(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
      for (bool captured : {true, false}) {
        std::vector<double> S, W1, G1, G, B, E, A;
        for (int rep = 0; rep < 5; ++rep) {
          cudaGraph_t g = captured ? capture_parallel_chain(s.data(), fork, sh.length, sh.width, sh.entry)
                                   : build_parallel_chain(sh.length, sh.width, sh.entry);
          S.push_back(sample_method(g, s, nodes, false));
          cudaGraphExec_t x = instantiate(g);
          CK(cudaGraphUpload(x, s[0]));
          for (int i = 0; i < 20; ++i) CK(cudaGraphLaunch(x, s[0]));  // warm
          CK(cudaStreamSynchronize(s[0]));
          hold(s[0]);
          CK(cudaEventRecord(ev[0], s[0]));
          CK(cudaGraphLaunch(x, s[0]));
          CK(cudaEventRecord(ev[1], s[0]));
          release(s[0]);
          W1.push_back(ms_between(ev[0], ev[1]) * 1e6 / nodes);
          hold(s[0]);
          CK(cudaEventRecord(ev[0], s[0]));
          for (int i = 1; i <= 32; ++i) {
            CK(cudaGraphLaunch(x, s[0]));
            CK(cudaEventRecord(ev[i], s[0]));
          }
          release(s[0]);
          G1.push_back(ms_between(ev[0], ev[1]) * 1e6 / nodes);
          for (int i = 2; i <= 32; ++i) G.push_back(ms_between(ev[i - 1], ev[i]) * 1e6 / nodes);
          CK(cudaEventRecord(ev[0], s[0]));
          for (int i = 1; i <= 32; ++i) {
            CK(cudaGraphLaunch(x, s[0]));
            CK(cudaEventRecord(ev[i], s[0]));
          }
          CK(cudaStreamSynchronize(s[0]));
          for (int i = 2; i <= 32; ++i) B.push_back(ms_between(ev[i - 1], ev[i]) * 1e6 / nodes);
          hold(s[0]);
          CK(cudaEventRecord(ev[0], s[0]));
          for (int i = 1; i <= 32; ++i) CK(cudaGraphLaunch(x, s[0]));
          CK(cudaEventRecord(ev[1], s[0]));
          release(s[0]);
          E.push_back(ms_between(ev[0], ev[1]) * 1e6 / nodes / 32);
          cudaGraphExec_t y = instantiate(g);
          CK(cudaGraphUpload(y, s[0]));
          for (int i = 0; i < 20; ++i) CK(cudaGraphLaunch(y, s[0]));
          hold(s[0]);
          CK(cudaEventRecord(ev[0], s[0]));
          for (int i = 1; i <= 32; ++i) {
            CK(cudaGraphLaunch(i % 2 ? x : y, s[0]));
            CK(cudaEventRecord(ev[i], s[0]));
          }
          release(s[0]);
          for (int i = 2; i <= 32; ++i) A.push_back(ms_between(ev[i - 1], ev[i]) * 1e6 / nodes);
          CK(cudaGraphExecDestroy(y));
          CK(cudaGraphExecDestroy(x));
          CK(cudaGraphDestroy(g));
        }
        char name[32];
        std::snprintf(name, sizeof name, "%dx%d e%d", sh.length, sh.width, sh.entry ? 1 : 0);
        std::printf("%-12s %-8s %-11s %7.0f %7.0f %7.0f %7.0f %7.0f %7.0f %7.0f\n", name,
                    captured ? "capture" : "explicit", blocking ? "blocking" : "nonblocking", median(S), median(W1),
                    median(G1), median(G), median(B), median(E), median(A));
        if (blocking) later.push_back({sh, captured, blocking});
      }
      CK(cudaEventDestroy(fork));
      for (auto& x : s) CK(cudaStreamDestroy(x));
    }
  }
  std::printf("methods: chain level after the stream-wait rows: %.0f ns/node\n", chain_level(probe, ps, kChain));
  // K: the sample's latch kernel, once per captured shape on blocking streams (few kernels that read
  // host memory, fewer than the sample's first four trials make).
  for (const Later& l : later) {
    if (!l.captured) continue;
    const Shape& sh = l.sh;
    const int nodes = sh.length * sh.width + (sh.entry ? 1 : 0);
    std::vector<cudaStream_t> s(static_cast<std::size_t>(std::max(2, sh.width)));
    for (auto& x : s) CK(cudaStreamCreate(&x));
    cudaEvent_t fork;
    CK(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
    cudaGraph_t g = capture_parallel_chain(s.data(), fork, sh.length, sh.width, sh.entry);
    const double k = sample_method(g, s, nodes, true);
    std::printf("K %dx%d e%d capture blocking: %.0f ns/node (timed out: %d)\n", sh.length, sh.width, sh.entry ? 1 : 0,
                k, h_flag[2]);
    CK(cudaGraphDestroy(g));
    CK(cudaEventDestroy(fork));
    for (auto& x : s) CK(cudaStreamDestroy(x));
  }
  std::printf("methods: chain level at the end: %.0f ns/node\n", chain_level(probe, ps, kChain));
  return 0;
}

int main(int argc, char** argv) {
  const std::string cmd = argc > 1 ? argv[1] : "";
  if (cmd == "trigger" && argc >= 4 && argc <= 6)
    return cmd_trigger(argv[2], argv[3], argc >= 5 ? std::atol(argv[4]) : 8192, argc == 6 ? std::atol(argv[5]) : 0);
  if (cmd == "methods" && (argc - 2) % 3 == 0) {
    std::vector<Shape> shapes;
    for (int i = 2; i + 2 < argc; i += 3)
      shapes.push_back({std::atoi(argv[i]), std::atoi(argv[i + 1]), std::atoi(argv[i + 2]) != 0});
    for (const Shape& s : shapes)
      if (s.length < 1 || s.width < 1 || s.width > 64) {
        std::fprintf(stderr, "methods: LENGTH >= 1, 1 <= WIDTH <= 64\n");
        return 2;
      }
    return cmd_methods(shapes);
  }
  std::fprintf(stderr,
               "usage: level_trigger trigger empty|dev|hread|hwrite|wait burst|sync|graph|pair|alt|chained|gpair|held [MAXCOUNT [STEP]]\n"
               "       level_trigger methods [LENGTH WIDTH ENTRY]...\n");
  return 2;
}
