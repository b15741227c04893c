// The interposer's machinery shared by its two translation units: runtime_interpose.cpp (its
// state, the record writer, the calls for the injection library) and interpose_api.cpp (the CUDA
// runtime and driver functions it defines). Internal to libgraphprof_interpose.so; no CUDA header
// (the functions are declared with plain types of the same ABI).
#pragma once
#include <time.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>

#include "interpose_records.hpp"

namespace gp::interposer {

using gp::interpose::Api;
using Err = int;  // cudaError_t / CUresult
using Handle = void*;
struct Dim3 {
  unsigned x, y, z;
};
constexpr Err kNotFound = 999;  // cudaErrorUnknown / CUDA_ERROR_UNKNOWN: the real function is missing

// The real function `name` (runtime: the shared libcudart the process loaded; driver: libcuda.so.1).
void* resolve(const char* name, bool driver);
template <typename Fn>
Fn real_fn(const char* name, bool driver) {
  return reinterpret_cast<Fn>(resolve(name, driver));
}

inline std::atomic<bool> g_active{false};  // recording (between begin and end)
inline std::atomic<std::uint32_t> g_correlation{0};
inline thread_local int t_capturing = 0;  // captures this thread began and has not ended

inline std::uint64_t now_ns() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<std::uint64_t>(ts.tv_nsec);
}
// Recording paused in alternate windows (`profile --overhead-windows` and the developer switch
// GRAPHPROF_DEV_PAUSE, runtime_interpose.cpp), so that one process measures on its own clock what
// recording costs it.
inline std::atomic<bool> g_paused{false};
// `profile --overhead-windows` (GRAPHPROF_PAUSE_WINDOWS) and the switch above: the clock that times
// the program's steps in both kinds of window, the graph launch calls (how many, and the start of
// the latest); set before recording starts, read by the thread that switches.
inline bool g_windows = false;
inline std::atomic<std::uint64_t> g_window_launches{0}, g_window_last_ns{0};
inline bool active() { return g_active.load(std::memory_order_relaxed) && !g_paused.load(std::memory_order_relaxed); }

// What the injection library does for the interposer (set before recording starts).
inline gp::interpose::Hooks g_hooks;
using namespace gp::interpose::ledger_at;
inline void ledger_sample(int at, std::uint32_t co) {
  if (at != kNoSample && g_hooks.sample != nullptr) g_hooks.sample(at, co);
}

// runtime_interpose.cpp
void record(Api api, std::uint64_t start, std::uint64_t end, std::uint32_t co, Err r);
void synchronised(std::uint64_t now);
void launched(Handle exec, std::uint32_t co, std::uint64_t start);
void instantiated(Handle exec, Handle graph, std::uint32_t co);
void uploaded(Handle exec, std::uint32_t co);
void exec_changed(Handle exec, bool set_params);  // a SetParams call or an exec update (the ux lines)
void capture_begun(Handle stream, int mode, std::uint32_t co, Err r);
void capture_ended(Handle stream, Handle graph, std::uint32_t co, Err r);
void allocated(std::uint64_t address, std::uint64_t bytes, std::uint32_t co, int memory_kind, bool is_async);
void freed(std::uint64_t address, std::uint32_t co, bool is_async);
void physical_allocation(std::uint64_t bytes, std::uint32_t co);
void write_text(const std::string& lines);     // into the records (no flush)
void write_flushed(const std::string& lines);  // into the records, the file flushed
void end_recording(bool may_wait);             // graphprof_interpose_end: stops recording, writes what is pending
// interpose_exit.cpp: SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL write what is pending and an end line
// naming the signal, then go on to the handler that was there before.
void install_fatal_handlers();

// launch_timing.cpp: the GPU time of a sample of the graph launches, by a pair of CUDA events on
// the launch's stream around it (the default level's GPU time, without CUPTI): each exec's launches
// 2 to 9, then 1 launch in kGpuTimeEvery on average (GRAPHPROF_GPU_TIME_EVERY=N overrides it; 0: none).
constexpr std::uint64_t kGpuTimeEvery = 8;
struct LaunchTiming {
  Handle start = nullptr, end = nullptr, ctx = nullptr, stream = nullptr;
  bool ptsz = false;
};
LaunchTiming gpu_time_begin(Api api, Handle exec, Handle stream);  // before the launch: its start event (or none)
void gpu_time_end(const LaunchTiming& t, std::uint32_t co, bool launched);  // after it: its end event
std::string gpu_time_lines(bool may_wait);  // the gl lines of the pairs finished (at the end)
void gpu_time_forget();                     // in a fork() child

// What interposition costs the application's threads, measured on a random sample of the calls
// (1 in kOwnEvery, geometric gaps, as the call sites are sampled): the time spent in this library
// around the real call (taking the site, the ledger samples, the record, the launch book), from
// the function's entry to its return, less the real call. Written as ic lines (each timed call) and, at the end, the ip_cost line (the calls they were drawn from)
// (runtime_interpose.cpp); the estimate of the whole is own_ns * calls / sampled.
constexpr std::uint32_t kOwnEvery = 16;
void timed_own(std::uint32_t co, std::uint64_t ns);  // runtime_interpose.cpp: kept for the ic lines
struct OwnClock {
  std::uint64_t in = 0;    // entry of a sampled call (0: this call is not sampled)
  std::uint64_t real = 0;  // the real function's time
  std::uint32_t co = 0;    // its correlation id (0: not forwarded)
  std::uint64_t state = 0, gap = 0;
};
inline thread_local OwnClock t_own;

// At a function's entry: whether this call is timed.
inline void own_time_begin() {
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
inline std::uint64_t address_of(const void* p) { return static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(p)); }
inline std::uint64_t address_of(unsigned long long p) { return p; }

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

}  // namespace gp::interposer
