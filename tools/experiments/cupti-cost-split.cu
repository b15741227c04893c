// cupti-cost-split: which CUPTI set-up step makes a graph launch dearer. An ordinary CUDA program
// that does, before its first CUDA call, one CUPTI set-up of the list below (the pieces the
// injection library's start_cupti uses, one at a time), then times its own loops as
// bench/inject_overhead does (batches of calls with a synchronisation between them, steady_clock):
// cudaGraphLaunch of a 20-node chain (and of 1- and 100-node chains: per launch or per node?), an
// empty kernel's <<<>>> launch, and a serving-like step (one
// of 6 graphs + 10 eager launches + one cudaEventRecord). One set-up per process; run the modes
// interleaved. Build: nvcc -O2 -std=c++17 -arch=sm_90 tools/experiments/cupti-cost-split.cu -o cupti_split -lcupti -ldl
//   plain           no CUPTI call
//   timestamp       cuptiGetTimestamp only (what the injection calls before anything else)
//   subscribe       cuptiSubscribe, nothing enabled
//   subscribe_off   cuptiSubscribe then cuptiUnsubscribe before the loops
//   resource        cuptiSubscribe + the resource callbacks (graph exec created, node cloned, context)
//   launch_cb       cuptiSubscribe + the cudaGraphLaunch/cuGraphLaunch callbacks
//   register        cuptiActivityRegisterCallbacks only (no subscriber)
//   register_flush  cuptiActivityRegisterCallbacks + cuptiActivityFlushPeriod(500)
//   api_select      register + cuptiActivityEnableRuntimeApi(cudaGraphLaunch, cudaLaunchKernel), no subscriber
//   runtime_kind    register + the whole RUNTIME activity kind, no subscriber
//   graph_trace     register + GRAPH_TRACE, no subscriber
//   none_today      subscribe + resource + capture callbacks + launch_cb + register + flush + api_select
//                   (about what `--trace none` does)
//   none_light      register + flush + api_select + subscribe with the resource callbacks only
//   node_attached   none_today + CONCURRENT_KERNEL + GRAPH_TRACE (about what --trace node does), kept
//   node_finalized  the same, a traced warm-up, then flushed and detached (cuptiFinalize) before the loops
//   node_reattached the same, detached, attached again (set up anew) for one traced round whose
//                   kernel records are counted, detached again before the loops
// The detach modes also print how long a detach and an attach took (us_detach, us_attach).
// It prints `cupti_split mode=M phase=P us_per_call=X` lines and the number of activity records seen.
#include <cuda_runtime.h>
#include <cupti.h>
#include <dlfcn.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "../../bench/launch_loops.cuh"

namespace {

using launch_loops::empty_kernel;
constexpr const char* kProgram = "cupti_split";

#define CHECK(x) launch_loops::check((x), #x, kProgram)

std::atomic<unsigned long long> g_records{0};
std::atomic<unsigned long long> g_callbacks{0};
CUpti_SubscriberHandle g_sub = nullptr;

void CUPTIAPI on_requested(uint8_t** buffer, size_t* size, size_t* max) {
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, 8 << 20));
  *size = 8 << 20;
  *max = 0;
}

void CUPTIAPI on_completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
  CUpti_Activity* r = nullptr;
  while (cuptiActivityGetNextRecord(buffer, valid, &r) == CUPTI_SUCCESS) ++g_records;
  std::free(buffer);
}

// A detach asked for is done at the exit of the next API call the subscriber sees (CUPTI's advice:
// never while another thread may be inside CUPTI), as the injection would.
std::atomic<bool> g_detach_asked{false};
double g_us_detach = -1;
void CUPTIAPI on_callback(void*, CUpti_CallbackDomain domain, CUpti_CallbackId, const void* data) {
  ++g_callbacks;
  if (domain != CUPTI_CB_DOMAIN_RUNTIME_API && domain != CUPTI_CB_DOMAIN_DRIVER_API) return;
  if (static_cast<const CUpti_CallbackData*>(data)->callbackSite != CUPTI_API_EXIT || !g_detach_asked.exchange(false)) return;
  const auto t0 = std::chrono::steady_clock::now();
  (void)cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  (void)cuptiFinalize();
  g_us_detach = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
}

void need(CUptiResult r, const char* what) {
  if (r == CUPTI_SUCCESS) return;
  const char* s = nullptr;
  cuptiGetResultString(r, &s);
  std::fprintf(stderr, "cupti_split: %s: %s\n", what, s ? s : "?");
  std::exit(4);
}

void subscribe() { need(cuptiSubscribe(&g_sub, reinterpret_cast<CUpti_CallbackFunc>(on_callback), nullptr), "cuptiSubscribe"); }
void resource_callbacks() {
  for (CUpti_CallbackId cb : {CUPTI_CBID_RESOURCE_GRAPHEXEC_CREATED, CUPTI_CBID_RESOURCE_GRAPHNODE_CLONED,
                              CUPTI_CBID_RESOURCE_CONTEXT_CREATED})
    need(cuptiEnableCallback(1, g_sub, CUPTI_CB_DOMAIN_RESOURCE, cb), "resource callback");
}
void capture_callbacks() {
  for (CUpti_CallbackId cb : {CUPTI_RUNTIME_TRACE_CBID_cudaStreamBeginCapture_v10000, CUPTI_RUNTIME_TRACE_CBID_cudaStreamEndCapture_v10000,
                              CUPTI_RUNTIME_TRACE_CBID_cudaGraphInstantiate_v12000, CUPTI_RUNTIME_TRACE_CBID_cudaGraphInstantiateWithFlags_v11040})
    need(cuptiEnableCallback(1, g_sub, CUPTI_CB_DOMAIN_RUNTIME_API, cb), "capture callback");
}
void launch_callbacks() {
  for (CUpti_CallbackId cb : {CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000, CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_ptsz_v10000})
    need(cuptiEnableCallback(1, g_sub, CUPTI_CB_DOMAIN_RUNTIME_API, cb), "launch callback");
  for (CUpti_CallbackId cb : {CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch, CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz})
    need(cuptiEnableCallback(1, g_sub, CUPTI_CB_DOMAIN_DRIVER_API, cb), "launch callback");
}
void register_buffers() { need(cuptiActivityRegisterCallbacks(on_requested, on_completed), "cuptiActivityRegisterCallbacks"); }
void api_select() {
  using Fn = CUptiResult (*)(CUpti_CallbackId, uint8_t);
  const auto fn = reinterpret_cast<Fn>(dlsym(RTLD_DEFAULT, "cuptiActivityEnableRuntimeApi"));
  if (fn == nullptr) {
    std::fprintf(stderr, "cupti_split: no cuptiActivityEnableRuntimeApi\n");
    std::exit(4);
  }
  for (CUpti_CallbackId cb : {CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
                              CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000})
    need(fn(cb, 1), "cuptiActivityEnableRuntimeApi");
}

void set_up(const std::string& m) {
  std::uint64_t t = 0;
  if (m == "plain") return;
  need(cuptiGetTimestamp(&t), "cuptiGetTimestamp");
  if (m == "timestamp") return;
  if (m == "subscribe" || m == "subscribe_off") return subscribe();
  if (m == "resource") return subscribe(), resource_callbacks();
  if (m == "launch_cb") return subscribe(), launch_callbacks();
  register_buffers();
  if (m == "register") return;
  need(cuptiActivityFlushPeriod(500), "cuptiActivityFlushPeriod");
  if (m == "register_flush") return;
  if (m == "api_select") return api_select();
  if (m == "runtime_kind") return need(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_RUNTIME), "RUNTIME kind");
  if (m == "graph_trace") return need(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_GRAPH_TRACE), "GRAPH_TRACE kind");
  api_select();
  if (m == "none_light") return subscribe(), resource_callbacks();
  if (m == "none_today") return subscribe(), resource_callbacks(), capture_callbacks(), launch_callbacks();
  if (m.rfind("node_", 0) == 0) {
    subscribe(), resource_callbacks(), capture_callbacks(), launch_callbacks();
    need(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL), "CONCURRENT_KERNEL kind");
    return need(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_GRAPH_TRACE), "GRAPH_TRACE kind");
  }
  std::fprintf(stderr, "cupti_split: unknown mode %s\n", m.c_str());
  std::exit(2);
}

template <typename F>
double timed(int batches, int per_batch, cudaStream_t stream, F body) {
  return launch_loops::median(launch_loops::timed_batches(batches, per_batch, stream, kProgram, body));
}

cudaGraphExec_t chain(int nodes, cudaStream_t s) { return launch_loops::chain_graph(nodes, s, kProgram); }

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "plain";
  const int batches = argc > 2 ? std::atoi(argv[2]) : 200;
  set_up(mode);
  cudaStream_t s = nullptr;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  std::vector<cudaGraphExec_t> graphs;
  for (int b = 0; b < 6; ++b) graphs.push_back(chain(20, s));
  const cudaGraphExec_t one = chain(1, s), hundred = chain(100, s);  // is the cost per launch or per node?
  cudaEvent_t ev = nullptr;
  CHECK(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));
  if (mode == "subscribe_off") need(cuptiUnsubscribe(g_sub), "cuptiUnsubscribe");
  double us_detach = -1, us_attach = -1;
  unsigned long long reattached_records = 0;
  // Detached from inside the callback at the exit of a graph launch (the subscriber sees those).
  const auto detach = [&] {
    g_detach_asked = true;
    CHECK(cudaGraphLaunch(graphs[0], s));
    CHECK(cudaStreamSynchronize(s));
    us_detach = g_us_detach;
  };
  if (mode == "node_finalized" || mode == "node_reattached") {
    for (int k = 0; k < 50; ++k) CHECK(cudaGraphLaunch(graphs[0], s));  // traced while attached
    CHECK(cudaStreamSynchronize(s));
    detach();
  }
  if (mode == "node_reattached") {
    const auto t0 = std::chrono::steady_clock::now();
    set_up("node_attached");
    us_attach = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
    const unsigned long long before = g_records.load();
    for (int k = 0; k < 10; ++k) CHECK(cudaGraphLaunch(graphs[0], s));
    CHECK(cudaStreamSynchronize(s));
    need(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED), "cuptiActivityFlushAll");
    reattached_records = g_records.load() - before;
    detach();
  }
  double graph = 0, graph1 = 0, graph100 = 0, eager = 0, step = 0;
  for (int round = 0; round < 2; ++round) {  // the first round is a warm-up
    graph = timed(batches, 20, s, [&](int) { CHECK(cudaGraphLaunch(graphs[0], s)); });
    graph1 = timed(batches, 20, s, [&](int) { CHECK(cudaGraphLaunch(one, s)); });
    graph100 = timed(batches / 4 > 0 ? batches / 4 : 1, 10, s, [&](int) { CHECK(cudaGraphLaunch(hundred, s)); });
    eager = timed(batches, 100, s, [&](int) { empty_kernel<<<1, 32, 0, s>>>(nullptr); });
    step = timed(batches, 10, s, [&](int i) {
      CHECK(cudaGraphLaunch(graphs[static_cast<std::size_t>(i) % graphs.size()], s));
      for (int k = 0; k < 10; ++k) empty_kernel<<<1, 32, 0, s>>>(nullptr);
      CHECK(cudaEventRecord(ev, s));
    });
  }
  const bool detached = mode == "node_finalized" || mode == "node_reattached";
  if (mode != "plain" && mode != "timestamp" && !detached) (void)cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  if (detached)
    std::printf("cupti_split mode=%s us_detach=%.1f us_attach=%.1f reattached_records=%llu\n", mode.c_str(), us_detach, us_attach,
                reattached_records);
  std::printf("cupti_split mode=%s phase=graph us_per_call=%.3f\n", mode.c_str(), graph);
  std::printf("cupti_split mode=%s phase=graph1 us_per_call=%.3f\n", mode.c_str(), graph1);
  std::printf("cupti_split mode=%s phase=graph100 us_per_call=%.3f\n", mode.c_str(), graph100);
  std::printf("cupti_split mode=%s phase=eager us_per_call=%.3f\n", mode.c_str(), eager);
  std::printf("cupti_split mode=%s phase=step us_per_call=%.3f\n", mode.c_str(), step);
  std::printf("cupti_split mode=%s records=%llu callbacks=%llu\n", mode.c_str(), g_records.load(), g_callbacks.load());
  std::fflush(stdout);
  // CUDA 13.0 can crash while unloading CUPTI at exit unless it was finalized.
  if (mode != "plain" && !detached) (void)cuptiFinalize();
  return 0;
}
