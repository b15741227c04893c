// level_bisect: replays the per-trial sequence of NVIDIA's cudaGraphsPerfScaling sample (its
// runDemo(): capture, instantiate, first/repeat launch, re-instantiate, launch behind a latch,
// re-instantiate + upload on a second stream) with every action switchable, and after every trial
// measures a 1000-node chain's device time per node several ways, to find which action switches
// the device from ~0.50 to ~0.68 us per node. Written from reading the sample; no code copied.
//
// Build (GPU machine): nvcc -O2 -std=c++17 -arch=sm_90 -o level_bisect tools/experiments/level_bisect.cu
// (tools/experiments/perfscaling_graphs.cuh beside it holds the sample's graphs).
// Evidence and how to read its output: evidence/device-level/, docs/findings.md ("Parity").
//
//   level_bisect [-o OFF] [-t TRIALS] [-n LENGTH] [-w WIDTH] [-m MEAS] [-R] [-q]
//   OFF   letters of actions to leave out (see kActions)
//   MEAS  comma list of measurements after each trial, each of one 1000-node chain exec built
//         explicitly at start (uploaded and launched once), ns per node:
//           L0 launched behind a spin latch on stream 0 (the trial's stream), as the sample's repeat
//           L1 the same on the measurement's own stream   Z  as L1 with graphprof's __nanosleep latch
//           B0 / B1 second of two launches queued back to back (no latch), stream 0 / own stream
//           N  latched on a stream created for it          F  a new exec each time, latched
//         (default L0,L1,Z,B0,B1; "" = none: only the trial's own latched repeat, column g)
//   -R    after the trials: try resets (sleep, new streams, mem trim, device reset), measure after each
//   -s MS sleep MS milliseconds after each trial (idle GPU and host)
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "perfscaling_graphs.cuh"

static const char* kActions =
    "c capture a new graph each trial (off: one graph captured at start, reused)\n"
    "f first launch of exec 1 + stream sync (no latch)\n"
    "r repeat launch of exec 1 + stream sync (no latch)\n"
    "e destroy exec 1, instantiate exec 2 (off: exec 2 = exec 1)\n"
    "b exec 2 launched behind the latch (first launch in a busy stream)\n"
    "g exec 2 launched again behind the latch (the sample's repeat_launch_device)\n"
    "x destroy exec 2, instantiate exec 3 (off: exec 3 = exec 2)\n"
    "l the two latch kernels of the upload step (stream 0 and stream 1)\n"
    "a the pre/post annotation kernels on stream 1\n"
    "U cudaGraphUpload(exec 3, stream 1)\n"
    "W cudaStreamWaitEvent(stream 0, upload event)\n"
    "L launch of exec 3 on stream 0 after the upload\n"
    "T timing events on stream 0 in the upload step\n"
    "d destroy execs/graphs (off: keep them alive)\n"
    "o the sample's short latch timeouts (4 us + 0.5-1 us per node; off: 50 ms, never time out)\n"
    "q the upload step's latches hold (off: released before they are launched, so they return at once)\n";

__global__ void k_empty() {}
__global__ void k_pre() {}
__global__ void k_post() {}

__device__ __forceinline__ unsigned long long gtime() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// Holds the stream until *latch != 0 or `ns` nanoseconds passed; records whether it timed out.
__global__ void k_wait(long long ns, bool* timed_out, long long* elapsed, volatile int* latch) {
  const long long t0 = static_cast<long long>(gtime());
  long long t = t0;
  while (t < t0 + ns && *latch == 0) t = static_cast<long long>(gtime());
  *elapsed = t - t0;
  *timed_out = (*latch == 0);
}

// graphprof's latch: polls with __nanosleep between reads.
__global__ void k_wait_sleep(long long ns, bool* timed_out, volatile int* latch) {
  const long long t0 = static_cast<long long>(gtime());
  while (*latch == 0) {
    if (static_cast<long long>(gtime()) - t0 > ns) {
      *timed_out = true;
      return;
    }
    __nanosleep(200);
  }
}

struct HostFlags {
  long long elapsed;
  bool timed_out;
  long long elapsed2;
  bool timed_out2;
  volatile int latch;
  volatile int latch2;
};

static HostFlags* H = nullptr;   // the trial's flags (as the sample's hostData)
static HostFlags* MH = nullptr;  // the measurements' own flags
static cudaStream_t S[16];
static int nstreams = 2;
static cudaStream_t SM;  // measurement stream made at start
static cudaEvent_t ev, t0ev, t1ev, me[3];
static std::string off;
static bool on(char a) { return off.find(a) == std::string::npos; }
static std::vector<cudaGraphExec_t> kept_execs;
static std::vector<cudaGraph_t> kept_graphs;

static void destroy_exec(cudaGraphExec_t x) {
  if (on('d')) CK(cudaGraphExecDestroy(x));
  else kept_execs.push_back(x);
}

static cudaGraph_t capture_chain(int length, int width) { return capture_parallel_chain(S, ev, length, width, false); }

static cudaGraphExec_t build_measure_exec(int n) {
  cudaGraph_t g = build_parallel_chain(n, 1, false);
  cudaGraphExec_t x;
  CK(cudaGraphInstantiateWithFlags(&x, g, 0));
  CK(cudaGraphUpload(x, SM));
  CK(cudaGraphLaunch(x, SM));
  CK(cudaStreamSynchronize(SM));
  CK(cudaGraphDestroy(g));
  return x;
}

static constexpr int kMeasureNodes = 1000;
static cudaGraphExec_t MX;

static float ms_between(cudaEvent_t a, cudaEvent_t b) {
  float ms = 0;
  CK(cudaEventElapsedTime(&ms, a, b));
  return ms;
}

// ns per node of one launch behind a latch on `s` (negative: the latch timed out).
static double latched(cudaGraphExec_t x, cudaStream_t s, bool sleepy = false) {
  MH->latch = 0;
  if (sleepy) k_wait_sleep<<<1, 1, 0, s>>>(50000000LL, &MH->timed_out, &MH->latch);
  else k_wait<<<1, 1, 0, s>>>(50000000LL, &MH->timed_out, &MH->elapsed, &MH->latch);
  CK(cudaEventRecord(me[0], s));
  CK(cudaGraphLaunch(x, s));
  CK(cudaEventRecord(me[1], s));
  MH->latch = 1;
  CK(cudaStreamSynchronize(s));
  const bool to = MH->timed_out;
  MH->latch = 0;
  MH->timed_out = false;
  const double v = ms_between(me[0], me[1]) * 1e6 / kMeasureNodes;
  return to ? -v : v;
}

// ns per node of the second of two launches queued back to back (no latch).
static double back_to_back(cudaGraphExec_t x, cudaStream_t s) {
  CK(cudaEventRecord(me[0], s));
  CK(cudaGraphLaunch(x, s));
  CK(cudaEventRecord(me[1], s));
  CK(cudaGraphLaunch(x, s));
  CK(cudaEventRecord(me[2], s));
  CK(cudaStreamSynchronize(s));
  return ms_between(me[1], me[2]) * 1e6 / kMeasureNodes;
}

static std::vector<std::string> meas_names;
static std::map<std::string, std::vector<double>> rows;  // per measurement, one value per trial

static void measure_all(int trial_slots) {
  for (const std::string& m : meas_names) {
    double v = 0;
    if (m == "L0") v = latched(MX, S[0]);
    else if (m == "L1") v = latched(MX, SM);
    else if (m == "Z") v = latched(MX, SM, true);
    else if (m == "B0") v = back_to_back(MX, S[0]);
    else if (m == "B1") v = back_to_back(MX, SM);
    else if (m == "N") {  // a new stream each time
      cudaStream_t ns;
      CK(cudaStreamCreate(&ns));
      v = latched(MX, ns);
      CK(cudaStreamDestroy(ns));
    } else if (m == "F") {  // a new exec each time, launched once, then latched
      cudaGraphExec_t fx = build_measure_exec(kMeasureNodes);
      v = latched(fx, SM);
      CK(cudaGraphExecDestroy(fx));
    }
    rows[m].push_back(v);
  }
  (void)trial_slots;
}

struct TrialOut {
  double g = 0;  // exec 2's repeat launch behind the latch, ns per node; 0 = not run
  bool g_timeout = false;
  std::string timeouts;  // steps whose latch timed out: b, g, u
};

static long long timeout_ns(long long sample_ns) { return on('o') ? sample_ns : 50000000LL; }

static TrialOut trial(int length, int width, cudaGraph_t reuse) {
  TrialOut out;
  const int nodes = length * width;
  cudaGraph_t g = on('c') ? capture_chain(length, width) : reuse;
  cudaGraphExec_t x1;
  CK(cudaGraphInstantiateWithFlags(&x1, g, 0));
  if (on('f')) {
    CK(cudaGraphLaunch(x1, S[0]));
    CK(cudaStreamSynchronize(S[0]));
  }
  if (on('r')) {
    CK(cudaGraphLaunch(x1, S[0]));
    CK(cudaStreamSynchronize(S[0]));
  }
  cudaGraphExec_t x2 = x1;
  if (on('e')) {
    destroy_exec(x1);
    CK(cudaGraphInstantiateWithFlags(&x2, g, 0));
  }
  for (char step : {'b', 'g'}) {
    if (!on(step)) continue;
    k_wait<<<1, 1, 0, S[0]>>>(timeout_ns(4000LL + 500LL * nodes), &H->timed_out, &H->elapsed, &H->latch);
    CK(cudaEventRecord(t0ev, S[0]));
    CK(cudaGraphLaunch(x2, S[0]));
    CK(cudaEventRecord(t1ev, S[0]));
    H->latch = 1;
    CK(cudaStreamSynchronize(S[0]));
    if (H->timed_out) out.timeouts += step;
    if (step == 'g' && H->timed_out) out.g_timeout = true;
    if (step == 'g') out.g = ms_between(t0ev, t1ev) * 1e6 / nodes;
    H->latch = 0;
    H->timed_out = false;
  }
  cudaGraphExec_t x3 = x2;
  if (on('x')) {
    destroy_exec(x2);
    CK(cudaGraphInstantiateWithFlags(&x3, g, 0));
  }
  if (!on('q')) {  // the latches find their flags set and return at once
    H->latch = 1;
    H->latch2 = 1;
  }
  if (on('l')) {
    k_wait<<<1, 1, 0, S[0]>>>(timeout_ns(4000LL + 1000LL * nodes), &H->timed_out2, &H->elapsed2, &H->latch2);
    k_wait<<<1, 1, 0, S[1]>>>(timeout_ns(2000LL + 500LL * nodes), &H->timed_out, &H->elapsed, &H->latch);
  }
  if (on('a')) k_pre<<<1, 1, 0, S[1]>>>();
  if (on('T')) CK(cudaEventRecord(t0ev, S[0]));
  if (on('U')) CK(cudaGraphUpload(x3, S[1]));
  CK(cudaEventRecord(ev, S[1]));
  if (on('T')) CK(cudaEventRecord(t1ev, S[0]));
  if (on('a')) k_post<<<1, 1, 0, S[1]>>>();
  H->latch = 1;
  if (on('W')) CK(cudaStreamWaitEvent(S[0], ev, 0));
  if (on('L')) CK(cudaGraphLaunch(x3, S[0]));
  CK(cudaEventSynchronize(ev));
  H->latch2 = 1;
  CK(cudaStreamSynchronize(S[0]));
  CK(cudaStreamSynchronize(S[1]));
  if (on('l') && (H->timed_out || H->timed_out2)) out.timeouts += 'u';
  H->latch = 0;
  H->latch2 = 0;
  H->timed_out = false;
  H->timed_out2 = false;
  destroy_exec(x3);
  if (on('c')) {
    if (on('d')) CK(cudaGraphDestroy(g));
    else kept_graphs.push_back(g);
  }
  return out;
}

static char level_char(double v) {
  if (v == 0) return '-';
  if (v < 0) return 't';
  if (v < 560) return 'F';
  if (v > 620) return 'S';
  return '?';
}

static void setup() {
  CK(cudaFree(nullptr));
  CK(cudaMallocHost(&H, sizeof(HostFlags)));
  std::memset(H, 0, sizeof(HostFlags));
  CK(cudaMallocHost(&MH, sizeof(HostFlags)));
  std::memset(MH, 0, sizeof(HostFlags));
  for (int i = 0; i < nstreams; ++i) CK(cudaStreamCreate(&S[i]));
  CK(cudaStreamCreate(&SM));
  CK(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));
  CK(cudaEventCreate(&t0ev));
  CK(cudaEventCreate(&t1ev));
  for (auto& e : me) CK(cudaEventCreate(&e));
  MX = build_measure_exec(kMeasureNodes);
}

int main(int argc, char** argv) {
  int trials = 12, length = 1000, width = 1, sleep_ms = 0;
  bool resets = false;
  std::string meas = "L0,L1,Z,B0,B1";
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "%s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "-o") off = next();
    else if (a == "-t") trials = std::atoi(next().c_str());
    else if (a == "-n") length = std::atoi(next().c_str());
    else if (a == "-w") width = std::atoi(next().c_str());
    else if (a == "-m") meas = next();
    else if (a == "-R") resets = true;
    else if (a == "-s") sleep_ms = std::atoi(next().c_str());
    else {
      std::fprintf(stderr, "usage: level_bisect [-o OFF] [-t N] [-n LEN] [-w W] [-m L0,L1,Z,B0,B1,N,F] [-R]\n%s", kActions);
      return 2;
    }
  }
  if (off == "-") off.clear();
  for (std::size_t p = 0; p < meas.size();) {
    std::size_t q = meas.find(',', p);
    if (q == std::string::npos) q = meas.size();
    if (q > p) meas_names.push_back(meas.substr(p, q - p));
    p = q + 1;
  }
  nstreams = width < 2 ? 2 : width;
  if (nstreams > 16) return 2;
  const auto wall0 = std::chrono::steady_clock::now();
  setup();
  for (int i = 0; i < width; ++i) k_empty<<<1, 1, 0, S[i]>>>();
  CK(cudaStreamSynchronize(S[0]));
  cudaGraph_t reuse = on('c') ? nullptr : capture_chain(length, width);

  measure_all(0);  // before any trial ("p")
  std::vector<TrialOut> outs;
  for (int t = 0; t <= trials; ++t) {  // trial 0 = the sample's warm-up runDemo
    outs.push_back(trial(length, width, reuse));
    if (sleep_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(sleep_ms));
    measure_all(t + 1);
  }
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();

  // Raw values: column p = before trial 0, then trials 0..N (sample's printed trials are 1..N).
  std::printf("# off=%s len=%d width=%d trials=%d (%.2f s)\n", off.empty() ? "-" : off.c_str(), length, width,
              trials, secs);
  std::printf("raw g  :    -");
  for (const auto& o : outs) std::printf(" %4.0f", o.g);
  std::printf("\n");
  std::printf("timeout:    -");
  for (const auto& o : outs) std::printf(" %4s", o.timeouts.empty() ? "." : o.timeouts.c_str());
  std::printf("\n");
  for (const std::string& m : meas_names) {
    std::printf("raw %-3s:", m.c_str());
    for (double v : rows[m]) std::printf(" %4.0f", v);
    std::printf("\n");
  }
  // Summary row: per measurement, one letter per column (F fast, S slow, t latch timed out, - none).
  std::printf("SUMMARY off=%-4s len=%-5d", off.empty() ? "-" : off.c_str(), length);
  {
    std::string s = "-";
    for (const auto& o : outs) s += o.g_timeout ? 't' : level_char(o.g);
    std::printf(" g=%s", s.c_str());
  }
  for (const std::string& m : meas_names) {
    std::string s;
    for (double v : rows[m]) s += level_char(v);
    std::printf(" %s=%s", m.c_str(), s.c_str());
  }
  std::printf("\n");

  if (resets) {
    auto report = [&](const char* what) {
      std::printf("RESET %-12s L0=%4.0f L1=%4.0f B0=%4.0f N=", what, latched(MX, S[0]), latched(MX, SM),
                  back_to_back(MX, S[0]));
      cudaStream_t ns;
      CK(cudaStreamCreate(&ns));
      std::printf("%4.0f\n", latched(MX, ns));
      CK(cudaStreamDestroy(ns));
    };
    report("none");
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    report("sleep300ms");
    for (int i = 0; i < nstreams; ++i) CK(cudaStreamDestroy(S[i]));
    for (int i = 0; i < nstreams; ++i) CK(cudaStreamCreate(&S[i]));
    report("new_streams");
    for (auto x : kept_execs) CK(cudaGraphExecDestroy(x));
    kept_execs.clear();
    CK(cudaGraphExecDestroy(MX));
    CK(cudaDeviceGraphMemTrim(0));
    CK(cudaDeviceSynchronize());
    MX = build_measure_exec(kMeasureNodes);
    report("new_exec+trim");
    CK(cudaDeviceReset());
    setup();
    report("device_reset");
  }
  return 0;
}
