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
inline bool active() { return g_active.load(std::memory_order_relaxed); }

// runtime_interpose.cpp
void record(Api api, std::uint64_t start, std::uint64_t end, std::uint32_t co, Err r);
void synchronised(std::uint64_t now);
void launched(Handle exec, std::uint32_t co, std::uint64_t start);
void instantiated(Handle exec, Handle graph, std::uint32_t co);
void uploaded(Handle exec, std::uint32_t co);
void capture_begun(Handle stream, int mode, std::uint32_t co, Err r);
void capture_ended(Handle stream, Handle graph, std::uint32_t co, Err r);

// A call timed and, once recording started, recorded (also the call during which the injection
// started it: CUDA initialises inside an application's first call).
template <typename Fn, typename... A>
Err timed(Api api, Fn real, A... a) {
  if (real == nullptr) return kNotFound;
  const std::uint32_t co = ++g_correlation;
  const std::uint64_t s = now_ns();
  const Err r = real(a...);
  if (active()) record(api, s, now_ns(), co, r);
  return r;
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
  const Err r = timed(api, real, a...);
  if (real != nullptr && active()) synchronised(now_ns());
  return r;
}

template <typename Fn>
Err graph_launch(Api api, Fn real, Handle exec, Handle stream) {
  if (real == nullptr) return kNotFound;
  const std::uint32_t co = ++g_correlation;
  const std::uint64_t s = now_ns();
  const Err r = real(exec, stream);
  if (!active()) return r;
  record(api, s, now_ns(), co, r);
  launched(exec, co, s);
  return r;
}

template <typename Fn, typename... A>
Err instantiate(Api api, Fn real, Handle* exec, Handle graph, A... rest) {
  if (real == nullptr) return kNotFound;
  const std::uint32_t co = ++g_correlation;
  const std::uint64_t s = now_ns();
  const Err r = real(exec, graph, rest...);
  if (!active()) return r;
  record(api, s, now_ns(), co, r);
  if (r == 0 && exec != nullptr && *exec != nullptr) instantiated(*exec, graph, co);
  return r;
}

template <typename Fn>
Err upload(Api api, Fn real, Handle exec, Handle stream) {
  if (real == nullptr) return kNotFound;
  const std::uint32_t co = ++g_correlation;
  const std::uint64_t s = now_ns();
  const Err r = real(exec, stream);
  if (!active()) return r;
  record(api, s, now_ns(), co, r);
  uploaded(exec, co);
  return r;
}

template <typename Fn>
Err begin_capture(Api api, Fn real, Handle stream, int mode) {
  if (real == nullptr) return kNotFound;
  const std::uint32_t co = ++g_correlation;
  const std::uint64_t s = now_ns();
  const Err r = real(stream, mode);
  if (!active()) return r;
  record(api, s, now_ns(), co, r);
  if (r == 0) ++t_capturing;
  capture_begun(stream, mode, co, r);
  return r;
}

template <typename Fn>
Err end_capture(Api api, Fn real, Handle stream, Handle* graph) {
  if (real == nullptr) return kNotFound;
  const std::uint32_t co = ++g_correlation;
  const std::uint64_t s = now_ns();
  const Err r = real(stream, graph);
  if (!active()) return r;
  record(api, s, now_ns(), co, r);
  if (t_capturing > 0) --t_capturing;
  capture_ended(stream, r == 0 && graph != nullptr ? *graph : nullptr, co, r);
  return r;
}

}  // namespace gp::interposer
