// The interposer's state and calls shared by its translation units: runtime_interpose.cpp (its
// state, the record writer, the calls for the injection library), interpose_api.cpp (the CUDA
// runtime and driver functions it defines, and how each call is forwarded and recorded),
// driver_lookup.cpp, launch_timing.cpp and interpose_exit.cpp. Internal to libgraphprof_interpose.so; no CUDA header
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

extern std::atomic<bool> g_active;  // recording (between begin and end)
extern std::atomic<std::uint32_t> g_correlation;

inline std::uint64_t now_ns() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<std::uint64_t>(ts.tv_nsec);
}
// Recording paused in alternate windows (`profile --overhead-windows` and the developer switch
// GRAPHPROF_DEV_PAUSE, runtime_interpose.cpp), so that one process measures on its own clock what
// recording costs it.
extern std::atomic<bool> g_paused;
// `profile --overhead-windows` (GRAPHPROF_PAUSE_WINDOWS) and the switch above: the clock that times
// the program's steps in both kinds of window, the graph launch calls (how many, and the start of
// the latest); set before recording starts, read by the thread that switches.
extern bool g_windows;
extern std::atomic<std::uint64_t> g_window_launches, g_window_last_ns;
inline bool active() { return g_active.load(std::memory_order_relaxed) && !g_paused.load(std::memory_order_relaxed); }

// What the injection library does for the interposer (set before recording starts).
extern gp::interpose::Hooks g_hooks;
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

// interpose_api.cpp: whether this thread is capturing (captures it began and has not ended).
bool capturing_here();

// What interposition costs the application's threads, measured on a random sample of the calls
// (1 in kOwnEvery, geometric gaps, as the call sites are sampled): interpose_api.cpp times them,
// runtime_interpose.cpp keeps them for the ic lines and writes the ip_cost line.
constexpr std::uint32_t kOwnEvery = 16;
void timed_own(std::uint32_t co, std::uint64_t ns);

}  // namespace gp::interposer
