// The CUDA runtime and driver functions libgraphprof_interpose.so defines (runtime_interpose.cpp
// says why and how): each forwards to the real one, looked up once, and is recorded through
// the helpers below under the name CUPTI gives it. Declared with plain types of the same ABI; no
// CUDA header. Where a signature changed between CUDA versions (cudaGraphInstantiate,
// cudaGraphExecUpdate, cuGraphExecUpdate), the definition takes the longer one and forwards every
// argument, which is correct for either.
#include <cstddef>

#include "interpose_core.hpp"

#define GP_EXPORT extern "C" __attribute__((visibility("default")))

namespace gp::interposer {

namespace {

thread_local int t_capturing = 0;  // captures this thread began and has not ended

// What interposition costs the application's threads (kOwnEvery, interpose_core.hpp): the time
// spent in this library around the real call (taking the site, the ledger samples, the record, the
// launch book), from the function's entry to its return, less the real call. Written as ic lines
// (each timed call) and, at the end, the ip_cost line (the calls they were drawn from); the
// estimate of the whole is own_ns * calls / sampled.
struct OwnClock {
  std::uint64_t in = 0;    // entry of a sampled call (0: this call is not sampled)
  std::uint64_t real = 0;  // the real function's time
  std::uint32_t co = 0;    // its correlation id (0: not forwarded)
  std::uint64_t state = 0, gap = 0;
};
thread_local OwnClock t_own;

// At a function's entry: whether this call is timed.
void own_time_begin() {
  OwnClock& o = t_own;
  o.in = 0;
  if (o.gap > 0) {
    --o.gap;
    return;
  }
  o.gap = gp::interpose::geometric_gap(o.state, reinterpret_cast<std::uintptr_t>(&o), kOwnEvery);
  o.in = now_ns();
  o.real = 0;
  o.co = 0;
}

// At its return (a guard in each forwarding function): the time of a timed call, less the real call's.
struct OwnTime {
  OwnTime() { own_time_begin(); }
  ~OwnTime() {
    OwnClock& o = t_own;
    if (o.in == 0 || !active()) return;
    const std::uint64_t spent = now_ns() - o.in;
    const std::uint64_t own = spent > o.real ? spent - o.real : 0;
    if (o.co != 0) timed_own(o.co, own);
    o.in = 0;
  }
  OwnTime(const OwnTime&) = delete;
  OwnTime& operator=(const OwnTime&) = delete;
};

// One forwarded call: its result, correlation id and start.
struct Call {
  Err r = 0;
  std::uint32_t co = 0;
  std::uint64_t start = 0;
};

// Calls `real` and, once recording started, records the call (also the call during which the
// injection started it: CUDA initialises inside an application's first call). While recording,
// the call's site is taken and the ledger sample `before` written first. True when it was
// recorded (the caller then notes what else the call did).
template <typename Fn, typename... A>
bool forward_after(Api api, int before, Fn real, Call& c, A... a) {
  if (real == nullptr) {
    c.r = kNotFound;
    return false;
  }
  c.co = ++g_correlation;
  if (active()) {
    ledger_sample(before, c.co);
    const gp::interpose::SiteKind kind = gp::interpose::site_kind(api);
    if (kind != gp::interpose::SiteKind::kNone && g_hooks.site != nullptr) g_hooks.site(api_name(api), c.co, static_cast<int>(kind));
  }
  c.start = now_ns();
  c.r = real(a...);
  if (!active()) return false;
  const std::uint64_t end = now_ns();
  if (t_own.in != 0) {
    t_own.real = end - c.start;
    t_own.co = c.co;
  }
  record(api, c.start, end, c.co, c.r);
  return true;
}

template <typename Fn, typename... A>
bool forward(Api api, Fn real, Call& c, A... a) {
  return forward_after(api, kNoSample, real, c, a...);
}

template <typename Fn, typename... A>
Err timed(Api api, Fn real, A... a) {
  const OwnTime own;
  Call c;
  (void)forward(api, real, c, a...);
  return c.r;
}

// A device allocation (cudaMalloc, cudaMallocAsync, cudaMallocFromPoolAsync, cudaMallocManaged,
// cuMemAlloc): recorded always (the memory ledger's allocations before and in each capture), with
// its size and address (a mem_op line). `memory_kind` 3: device, 5: managed.
std::uint64_t address_of(const void* p) { return static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(p)); }
std::uint64_t address_of(unsigned long long p) { return p; }

template <typename Fn, typename P, typename... A>
Err allocation(Api api, int memory_kind, bool is_async, Fn real, P* ptr, std::size_t bytes, A... rest) {
  const OwnTime own;
  Call c;
  if (forward(api, real, c, ptr, bytes, rest...) && c.r == 0 && ptr != nullptr)
    allocated(address_of(*ptr), bytes, c.co, memory_kind, is_async);
  return c.r;
}

template <typename Fn, typename P, typename... A>
Err release(Api api, bool is_async, Fn real, P ptr, A... rest) {
  const OwnTime own;
  Call c;
  if (forward(api, real, c, ptr, rest...) && c.r == 0) freed(address_of(ptr), c.co, is_async);
  return c.r;
}

// A call that matters only inside a capture (what breaks one): recorded on a thread that is capturing.
template <typename Fn, typename... A>
Err capture_breaker(Api api, Fn real, A... a) {
  if (real == nullptr) return kNotFound;
  if (t_capturing == 0 || !active()) return real(a...);
  return timed(api, real, a...);
}

template <typename Fn, typename... A>
Err synchronising(Api api, Fn real, A... a) {
  const OwnTime own;
  Call c;
  if (forward(api, real, c, a...)) synchronised(now_ns());
  return c.r;
}

template <typename Fn>
Err graph_launch(Api api, Fn real, Handle exec, Handle stream) {
  const OwnTime own;
  Call c;
  const LaunchTiming timing = active() ? gpu_time_begin(api, exec, stream) : LaunchTiming{};
  const bool recorded = forward(api, real, c, exec, stream);
  if (timing.start != nullptr) gpu_time_end(timing, c.co, recorded && c.r == 0);
  if (g_windows && c.r == 0 && c.start != 0) {  // in paused windows too: the steps' clock
    g_window_last_ns.store(c.start, std::memory_order_relaxed);
    g_window_launches.fetch_add(1, std::memory_order_relaxed);
  }
  if (recorded) launched(exec, c.co, c.start);
  return c.r;
}

// A change of an exec in place: a SetParams call on one of its nodes, or an exec update.
template <typename Fn, typename... A>
Err exec_change(Api api, bool set_params, Fn real, void* exec, A... rest) {
  const OwnTime own;
  Call c;
  if (forward(api, real, c, exec, rest...) && c.r == 0) exec_changed(exec, set_params);
  return c.r;
}
template <typename Fn, typename... A>
Err set_params_call(Api api, Fn real, void* exec, A... rest) {
  return exec_change(api, true, real, exec, rest...);
}
template <typename Fn, typename... A>
Err exec_update_call(Api api, Fn real, void* exec, A... rest) {
  return exec_change(api, false, real, exec, rest...);
}

template <typename Fn, typename... A>
Err instantiate(Api api, Fn real, Handle* exec, Handle graph, A... rest) {
  const OwnTime own;
  Call c;
  if (!forward_after(api, kInstantiateBegin, real, c, exec, graph, rest...)) return c.r;
  ledger_sample(kInstantiateEnd, c.co);
  if (c.r == 0 && exec != nullptr && *exec != nullptr) instantiated(*exec, graph, c.co);
  return c.r;
}

template <typename Fn>
Err upload(Api api, Fn real, Handle exec, Handle stream) {
  const OwnTime own;
  Call c;
  if (!forward_after(api, kUploadBegin, real, c, exec, stream)) return c.r;
  ledger_sample(kUploadEnd, c.co);
  uploaded(exec, c.co);
  return c.r;
}

template <typename Fn>
Err begin_capture(Api api, Fn real, Handle stream, int mode) {
  const OwnTime own;
  Call c;
  if (!forward_after(api, kCaptureBegin, real, c, stream, mode)) return c.r;
  if (c.r == 0) ++t_capturing;
  capture_begun(stream, mode, c.co, c.r);
  return c.r;
}

template <typename Fn>
Err end_capture(Api api, Fn real, Handle stream, Handle* graph) {
  const OwnTime own;
  Call c;
  if (!forward(api, real, c, stream, graph)) return c.r;
  if (t_capturing > 0) --t_capturing;
  ledger_sample(kCaptureEnd, c.co);
  capture_ended(stream, c.r == 0 && graph != nullptr ? *graph : nullptr, c.co, c.r);
  return c.r;
}

}  // namespace

bool capturing_here() { return t_capturing > 0; }

}  // namespace gp::interposer

using namespace gp::interposer;

namespace {
constexpr bool kRuntime = false, kDriver = true;
}  // namespace

// NAME PARAMS forwards ARGS to the real NAME (of libcudart or libcuda) through HELPER, recorded
// as Api::RECORDED.
#define GP_DEFINE_AS(helper, domain, recorded, name, T, params, ...) \
  GP_EXPORT Err name params {                                        \
    static const auto real = real_fn<T>(#name, domain);              \
    return helper(Api::recorded, real, __VA_ARGS__);                 \
  }
#define GP_DEFINE(helper, domain, name, T, params, ...) GP_DEFINE_AS(helper, domain, name, name, T, params, __VA_ARGS__)

// Kernel launches.
using LaunchFn = Err (*)(const void*, Dim3, Dim3, void**, std::size_t, Handle);
#define GP_LAUNCH(name) \
  GP_DEFINE(timed, kRuntime, name, LaunchFn, (const void* f, Dim3 g, Dim3 b, void** a, std::size_t sh, Handle st), f, g, b, a, sh, st)
GP_LAUNCH(cudaLaunchKernel)
GP_LAUNCH(cudaLaunchKernel_ptsz)
GP_LAUNCH(__cudaLaunchKernel)
GP_LAUNCH(__cudaLaunchKernel_ptsz)
GP_LAUNCH(cudaLaunchCooperativeKernel)
GP_LAUNCH(cudaLaunchCooperativeKernel_ptsz)
using LaunchExFn = Err (*)(const void*, const void*, void**);
GP_DEFINE(timed, kRuntime, cudaLaunchKernelExC, LaunchExFn, (const void* config, const void* f, void** a), config, f, a)
GP_DEFINE(timed, kRuntime, cudaLaunchKernelExC_ptsz, LaunchExFn, (const void* config, const void* f, void** a), config, f, a)

// Graph launches and uploads.
using GraphLaunchFn = Err (*)(Handle, Handle);
GP_DEFINE(graph_launch, kRuntime, cudaGraphLaunch, GraphLaunchFn, (Handle exec, Handle stream), exec, stream)
GP_DEFINE(graph_launch, kRuntime, cudaGraphLaunch_ptsz, GraphLaunchFn, (Handle exec, Handle stream), exec, stream)
GP_DEFINE(upload, kRuntime, cudaGraphUpload, GraphLaunchFn, (Handle exec, Handle stream), exec, stream)
GP_DEFINE(upload, kRuntime, cudaGraphUpload_ptsz, GraphLaunchFn, (Handle exec, Handle stream), exec, stream)

// Captures.
using BeginFn = Err (*)(Handle, int);
using EndFn = Err (*)(Handle, Handle*);
GP_DEFINE(begin_capture, kRuntime, cudaStreamBeginCapture, BeginFn, (Handle stream, int mode), stream, mode)
GP_DEFINE(begin_capture, kRuntime, cudaStreamBeginCapture_ptsz, BeginFn, (Handle stream, int mode), stream, mode)
GP_DEFINE(end_capture, kRuntime, cudaStreamEndCapture, EndFn, (Handle stream, Handle* graph), stream, graph)
GP_DEFINE(end_capture, kRuntime, cudaStreamEndCapture_ptsz, EndFn, (Handle stream, Handle* graph), stream, graph)

// Instantiation. cudaGraphInstantiate: CUDA 12+ (exec*, graph, unsigned long long flags); before:
// (exec*, graph, errorNode*, log, size).
using InstantiateFn = Err (*)(Handle*, Handle, void*, void*, std::size_t);
using InstantiateFlagsFn = Err (*)(Handle*, Handle, unsigned long long);
using InstantiateParamsFn = Err (*)(Handle*, Handle, void*);
GP_DEFINE(instantiate, kRuntime, cudaGraphInstantiate, InstantiateFn, (Handle* exec, Handle graph, void* a3, void* a4, std::size_t a5),
          exec, graph, a3, a4, a5)
GP_DEFINE(instantiate, kRuntime, cudaGraphInstantiateWithFlags, InstantiateFlagsFn, (Handle* exec, Handle graph, unsigned long long f),
          exec, graph, f)
GP_DEFINE(instantiate, kRuntime, cudaGraphInstantiateWithParams, InstantiateParamsFn, (Handle* exec, Handle graph, void* p), exec,
          graph, p)
GP_DEFINE(instantiate, kRuntime, cudaGraphInstantiateWithParams_ptsz, InstantiateParamsFn, (Handle* exec, Handle graph, void* p),
          exec, graph, p)
GP_DEFINE(instantiate, kDriver, cuGraphInstantiateWithFlags, InstantiateFlagsFn, (Handle* exec, Handle graph, unsigned long long f),
          exec, graph, f)
GP_DEFINE(instantiate, kDriver, cuGraphInstantiateWithParams, InstantiateParamsFn, (Handle* exec, Handle graph, void* p), exec, graph,
          p)
GP_DEFINE(instantiate, kDriver, cuGraphInstantiateWithParams_ptsz, InstantiateParamsFn, (Handle* exec, Handle graph, void* p), exec,
          graph, p)

// Exec updates and parameter changes (counted per process). cudaGraphExecUpdate and
// cuGraphExecUpdate before CUDA 12: (exec, graph, errorNode*, result*); since: (exec, graph, info*).
using Ptr4Fn = Err (*)(void*, void*, void*, void*);
using Ptr3Fn = Err (*)(void*, void*, void*);
GP_DEFINE(exec_update_call, kRuntime, cudaGraphExecUpdate, Ptr4Fn, (void* e, void* g, void* a3, void* a4), e, g, a3, a4)
GP_DEFINE(exec_update_call, kDriver, cuGraphExecUpdate, Ptr4Fn, (void* e, void* g, void* a3, void* a4), e, g, a3, a4)
GP_DEFINE_AS(exec_update_call, kDriver, cuGraphExecUpdate, cuGraphExecUpdate_v2, Ptr3Fn, (void* e, void* g, void* info), e, g, info)
#define GP_SET_PARAMS(domain, recorded, name) \
  GP_DEFINE_AS(set_params_call, domain, recorded, name, Ptr3Fn, (void* exec, void* node, void* params), exec, node, params)
GP_SET_PARAMS(kRuntime, cudaGraphExecKernelNodeSetParams, cudaGraphExecKernelNodeSetParams)
GP_SET_PARAMS(kRuntime, cudaGraphExecNodeSetParams, cudaGraphExecNodeSetParams)
GP_SET_PARAMS(kRuntime, cudaGraphExecMemcpyNodeSetParams, cudaGraphExecMemcpyNodeSetParams)
GP_SET_PARAMS(kRuntime, cudaGraphExecMemsetNodeSetParams, cudaGraphExecMemsetNodeSetParams)
GP_SET_PARAMS(kRuntime, cudaGraphExecHostNodeSetParams, cudaGraphExecHostNodeSetParams)
GP_SET_PARAMS(kRuntime, cudaGraphExecChildGraphNodeSetParams, cudaGraphExecChildGraphNodeSetParams)
GP_SET_PARAMS(kDriver, cuGraphExecKernelNodeSetParams, cuGraphExecKernelNodeSetParams)
GP_SET_PARAMS(kDriver, cuGraphExecKernelNodeSetParams, cuGraphExecKernelNodeSetParams_v2)
GP_SET_PARAMS(kDriver, cuGraphExecNodeSetParams, cuGraphExecNodeSetParams)

// Synchronising calls (they end --overhead's window), and the synchronous copy and memset.
using VoidFn = Err (*)();
using OneFn = Err (*)(Handle);
GP_EXPORT Err cudaDeviceSynchronize(void) {
  static const auto real = real_fn<VoidFn>("cudaDeviceSynchronize", kRuntime);
  return synchronising(Api::cudaDeviceSynchronize, real);
}
GP_EXPORT Err cuCtxSynchronize(void) {
  static const auto real = real_fn<VoidFn>("cuCtxSynchronize", kDriver);
  return synchronising(Api::cuCtxSynchronize, real);
}
GP_DEFINE(synchronising, kRuntime, cudaStreamSynchronize, OneFn, (Handle s), s)
GP_DEFINE(synchronising, kRuntime, cudaStreamSynchronize_ptsz, OneFn, (Handle s), s)
GP_DEFINE(synchronising, kRuntime, cudaEventSynchronize, OneFn, (Handle e), e)
GP_DEFINE(synchronising, kDriver, cuStreamSynchronize, OneFn, (Handle s), s)
GP_DEFINE(synchronising, kDriver, cuStreamSynchronize_ptsz, OneFn, (Handle s), s)
GP_DEFINE(synchronising, kDriver, cuEventSynchronize, OneFn, (Handle e), e)
GP_DEFINE(timed, kRuntime, cudaMemcpy, Err (*)(void*, const void*, std::size_t, int), (void* d, const void* s, std::size_t n, int k), d,
          s, n, k)
GP_DEFINE(timed, kRuntime, cudaMemcpy2D, Err (*)(void*, std::size_t, const void*, std::size_t, std::size_t, std::size_t, int),
          (void* d, std::size_t dp, const void* s, std::size_t sp, std::size_t w, std::size_t h, int k), d, dp, s, sp, w, h, k)
GP_DEFINE(timed, kRuntime, cudaMemset, Err (*)(void*, int, std::size_t), (void* p, int v, std::size_t n), p, v, n)

// Asynchronous copies and memsets, host functions: eager work (or captured, inside a capture).
using CopyAsyncFn = Err (*)(void*, const void*, std::size_t, int, Handle);
using Copy2DAsyncFn = Err (*)(void*, std::size_t, const void*, std::size_t, std::size_t, std::size_t, int, Handle);
using SetAsyncFn = Err (*)(void*, int, std::size_t, Handle);
using HostFuncFn = Err (*)(Handle, void*, void*);
#define GP_COPY_ASYNC(name) \
  GP_DEFINE(timed, kRuntime, name, CopyAsyncFn, (void* d, const void* s, std::size_t n, int k, Handle st), d, s, n, k, st)
#define GP_COPY2D_ASYNC(name)                                                                                           \
  GP_DEFINE(timed, kRuntime, name, Copy2DAsyncFn,                                                                      \
            (void* d, std::size_t dp, const void* s, std::size_t sp, std::size_t w, std::size_t h, int k, Handle st), d, dp, s, \
            sp, w, h, k, st)
GP_COPY_ASYNC(cudaMemcpyAsync)
GP_COPY_ASYNC(cudaMemcpyAsync_ptsz)
GP_COPY2D_ASYNC(cudaMemcpy2DAsync)
GP_COPY2D_ASYNC(cudaMemcpy2DAsync_ptsz)
GP_DEFINE(timed, kRuntime, cudaMemsetAsync, SetAsyncFn, (void* p, int v, std::size_t n, Handle st), p, v, n, st)
GP_DEFINE(timed, kRuntime, cudaMemsetAsync_ptsz, SetAsyncFn, (void* p, int v, std::size_t n, Handle st), p, v, n, st)
GP_DEFINE(timed, kRuntime, cudaLaunchHostFunc, HostFuncFn, (Handle st, void* fn, void* data), st, fn, data)
GP_DEFINE(timed, kRuntime, cudaLaunchHostFunc_ptsz, HostFuncFn, (Handle st, void* fn, void* data), st, fn, data)

// Device allocations and frees (the memory ledger; cudaMalloc and cudaFree also break a capture).
constexpr int kDeviceMemory = 3, kManagedMemory = 5;  // CUpti_ActivityMemoryKind, as CUPTI's records carry it
GP_EXPORT Err cudaMalloc(void** p, std::size_t n) {
  static const auto real = real_fn<Err (*)(void**, std::size_t)>("cudaMalloc", kRuntime);
  return allocation(Api::cudaMalloc, kDeviceMemory, false, real, p, n);
}
GP_EXPORT Err cudaMallocManaged(void** p, std::size_t n, unsigned flags) {
  static const auto real = real_fn<Err (*)(void**, std::size_t, unsigned)>("cudaMallocManaged", kRuntime);
  return allocation(Api::cudaMallocManaged, kManagedMemory, false, real, p, n, flags);
}
#define GP_MALLOC_ASYNC(name)                                                                  \
  GP_EXPORT Err name(void** p, std::size_t n, Handle st) {                                    \
    static const auto real = real_fn<Err (*)(void**, std::size_t, Handle)>(#name, kRuntime); \
    return allocation(Api::name, kDeviceMemory, true, real, p, n, st);                         \
  }
GP_MALLOC_ASYNC(cudaMallocAsync)
GP_MALLOC_ASYNC(cudaMallocAsync_ptsz)
#define GP_MALLOC_POOL(name)                                                                           \
  GP_EXPORT Err name(void** p, std::size_t n, Handle pool, Handle st) {                               \
    static const auto real = real_fn<Err (*)(void**, std::size_t, Handle, Handle)>(#name, kRuntime); \
    return allocation(Api::name, kDeviceMemory, true, real, p, n, pool, st);                           \
  }
GP_MALLOC_POOL(cudaMallocFromPoolAsync)
GP_MALLOC_POOL(cudaMallocFromPoolAsync_ptsz)
GP_EXPORT Err cudaFree(void* p) {
  static const auto real = real_fn<Err (*)(void*)>("cudaFree", kRuntime);
  return release(Api::cudaFree, false, real, p);
}
GP_EXPORT Err cudaFreeAsync(void* p, Handle st) {
  static const auto real = real_fn<Err (*)(void*, Handle)>("cudaFreeAsync", kRuntime);
  return release(Api::cudaFreeAsync, true, real, p, st);
}
GP_EXPORT Err cudaFreeAsync_ptsz(void* p, Handle st) {
  static const auto real = real_fn<Err (*)(void*, Handle)>("cudaFreeAsync_ptsz", kRuntime);
  return release(Api::cudaFreeAsync_ptsz, true, real, p, st);
}
// The driver's (CUdeviceptr is an unsigned long long): cuMemAlloc is cuMemAlloc_v2 since CUDA 3.2.
GP_EXPORT Err cuMemAlloc_v2(unsigned long long* p, std::size_t n) {
  static const auto real = real_fn<Err (*)(unsigned long long*, std::size_t)>("cuMemAlloc_v2", kDriver);
  return allocation(Api::cuMemAlloc, kDeviceMemory, false, real, p, n);
}
GP_EXPORT Err cuMemFree_v2(unsigned long long p) {
  static const auto real = real_fn<Err (*)(unsigned long long)>("cuMemFree_v2", kDriver);
  const OwnTime own;
  Call c;
  if (forward(Api::cuMemFree, real, c, p) && c.r == 0) freed(p, c.co, false);
  return c.r;
}
// A physical allocation of the virtual-memory API (PyTorch's expandable segments): its size.
GP_EXPORT Err cuMemCreate(unsigned long long* handle, std::size_t n, const void* prop, unsigned long long flags) {
  static const auto real = real_fn<Err (*)(unsigned long long*, std::size_t, const void*, unsigned long long)>("cuMemCreate", kDriver);
  const OwnTime own;
  Call c;
  if (forward(Api::cuMemCreate, real, c, handle, n, prop, flags) && c.r == 0) physical_allocation(n, c.co);
  return c.r;
}

// Calls not allowed inside a capture (what breaks one).
GP_DEFINE(capture_breaker, kRuntime, cudaMallocHost, Err (*)(void**, std::size_t), (void** p, std::size_t n), p, n)
GP_DEFINE(capture_breaker, kRuntime, cudaFreeHost, Err (*)(void*), (void* p), p)
GP_DEFINE(capture_breaker, kRuntime, cudaStreamQuery, OneFn, (Handle s), s)
GP_DEFINE(capture_breaker, kRuntime, cudaEventQuery, OneFn, (Handle e), e)

// The driver's launches (programs and libraries that call libcuda.so's exported symbols).
using CuLaunchFn = Err (*)(Handle, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, Handle, void**, void**);
using CuCoopFn = Err (*)(Handle, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, Handle, void**);
using CuLaunchExFn = Err (*)(const void*, Handle, void**, void**);
#define GP_CU_LAUNCH(name)                                                                                                   \
  GP_DEFINE(timed, kDriver, name, CuLaunchFn,                                                                                \
            (Handle f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz, unsigned sh, Handle st, \
             void** params, void** extra),                                                                                   \
            f, gx, gy, gz, bx, by, bz, sh, st, params, extra)
#define GP_CU_COOP(name)                                                                                                     \
  GP_DEFINE(timed, kDriver, name, CuCoopFn,                                                                                  \
            (Handle f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz, unsigned sh, Handle st, \
             void** params),                                                                                                 \
            f, gx, gy, gz, bx, by, bz, sh, st, params)
GP_CU_LAUNCH(cuLaunchKernel)
GP_CU_LAUNCH(cuLaunchKernel_ptsz)
GP_CU_COOP(cuLaunchCooperativeKernel)
GP_CU_COOP(cuLaunchCooperativeKernel_ptsz)
GP_DEFINE(timed, kDriver, cuLaunchKernelEx, CuLaunchExFn, (const void* c, Handle f, void** p, void** x), c, f, p, x)
GP_DEFINE(timed, kDriver, cuLaunchKernelEx_ptsz, CuLaunchExFn, (const void* c, Handle f, void** p, void** x), c, f, p, x)
GP_DEFINE(graph_launch, kDriver, cuGraphLaunch, GraphLaunchFn, (Handle exec, Handle stream), exec, stream)
GP_DEFINE(graph_launch, kDriver, cuGraphLaunch_ptsz, GraphLaunchFn, (Handle exec, Handle stream), exec, stream)

// ---- The driver API a statically linked runtime, CuPy, XLA and Triton reach through
// cuGetProcAddress or dlsym (driver_lookup.cpp hands these definitions out there) ----

// Captures. cuStreamBeginCapture (CUDA 10.0) took only the stream (global mode); _v2 and _ptsz
// take the mode.
constexpr int kCaptureModeGlobal = 0;
GP_EXPORT Err cuStreamBeginCapture(Handle stream) {
  static const auto real = real_fn<OneFn>("cuStreamBeginCapture", kDriver);
  const auto one = [](Handle s, int) { return real(s); };
  return begin_capture(Api::cuStreamBeginCapture, +one, stream, kCaptureModeGlobal);
}
GP_DEFINE_AS(begin_capture, kDriver, cuStreamBeginCapture, cuStreamBeginCapture_v2, BeginFn, (Handle stream, int mode), stream, mode)
GP_DEFINE(begin_capture, kDriver, cuStreamBeginCapture_ptsz, BeginFn, (Handle stream, int mode), stream, mode)
GP_DEFINE(end_capture, kDriver, cuStreamEndCapture, EndFn, (Handle stream, Handle* graph), stream, graph)
GP_DEFINE(end_capture, kDriver, cuStreamEndCapture_ptsz, EndFn, (Handle stream, Handle* graph), stream, graph)

// cuGraphInstantiate (CUDA 10-11) and cuGraphInstantiate_v2: (exec*, graph, errorNode*, log, size).
GP_DEFINE_AS(instantiate, kDriver, cuGraphInstantiate_legacy, cuGraphInstantiate, InstantiateFn, (Handle* exec, Handle graph, void* a3, void* a4, std::size_t a5),
          exec, graph, a3, a4, a5)
GP_DEFINE_AS(instantiate, kDriver, cuGraphInstantiate_legacy, cuGraphInstantiate_v2, InstantiateFn,
             (Handle* exec, Handle graph, void* a3, void* a4, std::size_t a5), exec, graph, a3, a4, a5)
GP_DEFINE(upload, kDriver, cuGraphUpload, GraphLaunchFn, (Handle exec, Handle stream), exec, stream)
GP_DEFINE(upload, kDriver, cuGraphUpload_ptsz, GraphLaunchFn, (Handle exec, Handle stream), exec, stream)

// Parameter changes of an exec's nodes (the memcpy and memset ones also take the context).
using Ptr4SetFn = Err (*)(void*, void*, void*, void*);
GP_DEFINE(set_params_call, kDriver, cuGraphExecMemcpyNodeSetParams, Ptr4SetFn, (void* e, void* n, void* p, void* ctx), e, n, p, ctx)
GP_DEFINE(set_params_call, kDriver, cuGraphExecMemsetNodeSetParams, Ptr4SetFn, (void* e, void* n, void* p, void* ctx), e, n, p, ctx)
GP_SET_PARAMS(kDriver, cuGraphExecHostNodeSetParams, cuGraphExecHostNodeSetParams)
GP_SET_PARAMS(kDriver, cuGraphExecChildGraphNodeSetParams, cuGraphExecChildGraphNodeSetParams)

// Copies and memsets (CUdeviceptr: unsigned long long), host functions.
using DevPtr = unsigned long long;
using CuCopyFn = Err (*)(DevPtr, DevPtr, std::size_t, Handle);
using CuHtoDFn = Err (*)(DevPtr, const void*, std::size_t, Handle);
using CuDtoHFn = Err (*)(void*, DevPtr, std::size_t, Handle);
using CuSet8Fn = Err (*)(DevPtr, unsigned char, std::size_t, Handle);
using CuSet32Fn = Err (*)(DevPtr, unsigned, std::size_t, Handle);
GP_DEFINE(timed, kDriver, cuMemcpyAsync, CuCopyFn, (DevPtr d, DevPtr s, std::size_t n, Handle st), d, s, n, st)
GP_DEFINE(timed, kDriver, cuMemcpyAsync_ptsz, CuCopyFn, (DevPtr d, DevPtr s, std::size_t n, Handle st), d, s, n, st)
GP_DEFINE_AS(timed, kDriver, cuMemcpyHtoDAsync, cuMemcpyHtoDAsync_v2, CuHtoDFn, (DevPtr d, const void* s, std::size_t n, Handle st), d,
             s, n, st)
GP_DEFINE_AS(timed, kDriver, cuMemcpyHtoDAsync_ptsz, cuMemcpyHtoDAsync_v2_ptsz, CuHtoDFn,
             (DevPtr d, const void* s, std::size_t n, Handle st), d, s, n, st)
GP_DEFINE_AS(timed, kDriver, cuMemcpyDtoHAsync, cuMemcpyDtoHAsync_v2, CuDtoHFn, (void* d, DevPtr s, std::size_t n, Handle st), d, s, n,
             st)
GP_DEFINE_AS(timed, kDriver, cuMemcpyDtoHAsync_ptsz, cuMemcpyDtoHAsync_v2_ptsz, CuDtoHFn, (void* d, DevPtr s, std::size_t n, Handle st),
             d, s, n, st)
GP_DEFINE_AS(timed, kDriver, cuMemcpyDtoDAsync, cuMemcpyDtoDAsync_v2, CuCopyFn, (DevPtr d, DevPtr s, std::size_t n, Handle st), d, s, n,
             st)
GP_DEFINE_AS(timed, kDriver, cuMemcpyDtoDAsync_ptsz, cuMemcpyDtoDAsync_v2_ptsz, CuCopyFn, (DevPtr d, DevPtr s, std::size_t n, Handle st),
             d, s, n, st)
GP_DEFINE(timed, kDriver, cuMemsetD8Async, CuSet8Fn, (DevPtr d, unsigned char v, std::size_t n, Handle st), d, v, n, st)
GP_DEFINE(timed, kDriver, cuMemsetD8Async_ptsz, CuSet8Fn, (DevPtr d, unsigned char v, std::size_t n, Handle st), d, v, n, st)
GP_DEFINE(timed, kDriver, cuMemsetD32Async, CuSet32Fn, (DevPtr d, unsigned v, std::size_t n, Handle st), d, v, n, st)
GP_DEFINE(timed, kDriver, cuMemsetD32Async_ptsz, CuSet32Fn, (DevPtr d, unsigned v, std::size_t n, Handle st), d, v, n, st)
GP_DEFINE(timed, kDriver, cuLaunchHostFunc, HostFuncFn, (Handle st, void* fn, void* data), st, fn, data)
GP_DEFINE(timed, kDriver, cuLaunchHostFunc_ptsz, HostFuncFn, (Handle st, void* fn, void* data), st, fn, data)
// The synchronous copies a static runtime's cudaMemcpy becomes.
GP_DEFINE_AS(timed, kDriver, cuMemcpyHtoD, cuMemcpyHtoD_v2, Err (*)(DevPtr, const void*, std::size_t),
             (DevPtr d, const void* s, std::size_t n), d, s, n)
GP_DEFINE_AS(timed, kDriver, cuMemcpyDtoH, cuMemcpyDtoH_v2, Err (*)(void*, DevPtr, std::size_t), (void* d, DevPtr s, std::size_t n), d,
             s, n)

// Stream-ordered allocations (the memory ledger).
#define GP_CU_ALLOC_ASYNC(recorded, name)                                                          \
  GP_EXPORT Err name(DevPtr* p, std::size_t n, Handle st) {                                        \
    static const auto real = real_fn<Err (*)(DevPtr*, std::size_t, Handle)>(#name, kDriver);      \
    return allocation(Api::recorded, kDeviceMemory, true, real, p, n, st);                          \
  }
GP_CU_ALLOC_ASYNC(cuMemAllocAsync, cuMemAllocAsync)
GP_CU_ALLOC_ASYNC(cuMemAllocAsync_ptsz, cuMemAllocAsync_ptsz)
#define GP_CU_ALLOC_POOL(recorded, name)                                                                  \
  GP_EXPORT Err name(DevPtr* p, std::size_t n, Handle pool, Handle st) {                                  \
    static const auto real = real_fn<Err (*)(DevPtr*, std::size_t, Handle, Handle)>(#name, kDriver);     \
    return allocation(Api::recorded, kDeviceMemory, true, real, p, n, pool, st);                           \
  }
GP_CU_ALLOC_POOL(cuMemAllocFromPoolAsync, cuMemAllocFromPoolAsync)
GP_CU_ALLOC_POOL(cuMemAllocFromPoolAsync_ptsz, cuMemAllocFromPoolAsync_ptsz)
#define GP_CU_FREE_ASYNC(recorded, name)                                                  \
  GP_EXPORT Err name(DevPtr p, Handle st) {                                               \
    static const auto real = real_fn<Err (*)(DevPtr, Handle)>(#name, kDriver);            \
    return release(Api::recorded, true, real, p, st);                                      \
  }
GP_CU_FREE_ASYNC(cuMemFreeAsync, cuMemFreeAsync)
GP_CU_FREE_ASYNC(cuMemFreeAsync_ptsz, cuMemFreeAsync_ptsz)

// What breaks a capture.
GP_DEFINE(capture_breaker, kDriver, cuStreamQuery, OneFn, (Handle s), s)
GP_DEFINE(capture_breaker, kDriver, cuStreamQuery_ptsz, OneFn, (Handle s), s)
GP_DEFINE(capture_breaker, kDriver, cuEventQuery, OneFn, (Handle e), e)
