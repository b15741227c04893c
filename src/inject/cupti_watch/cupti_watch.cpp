// libgraphprof_cupti_watch.so: preloaded (LD_PRELOAD) into the application by `graphprof profile`,
// next to the injection library. It defines cuptiSubscribe, so the application's own calls of it
// (its profiler: PyTorch's Kineto, or CUPTI code of its own) come here first; it forwards every
// call to the CUPTI the process loaded and notes the calls CUPTI refused. CUPTI allows one
// subscriber per process and graphprof holds it, so an application's profiler that subscribes
// after CUDA started is refused (CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) and records no
// GPU activity; only this shim lets the profile say so. The injection library asks for the notes
// at exit (graphprof_cupti_watch_refusals). It links no CUPTI and no CUDA (every process of the
// application loads it, most of them never touch CUDA) and includes no CUPTI header: cuptiSubscribe's
// C signature is spelled out below with plain types (CUptiResult is an enum, the handle and the
// callback are pointers).
#include <dlfcn.h>

#include <atomic>
#include <cstdio>
#include <cstring>

#define GP_EXPORT __attribute__((visibility("default")))

namespace {

using CUptiResult = int;  // cupti_result.h
constexpr CUptiResult kSuccess = 0;            // CUPTI_SUCCESS
constexpr CUptiResult kNotInitialized = 15;    // CUPTI_ERROR_NOT_INITIALIZED
using SubscribeFn = CUptiResult (*)(void** subscriber, void* callback, void* userdata);

std::atomic<int> g_refused{0};
std::atomic<int> g_first_result{0};
char g_first_caller[256] = "";  // written once, by the first refused call

SubscribeFn real_subscribe() {
  static std::atomic<SubscribeFn> fn{nullptr};
  SubscribeFn f = fn.load();
  if (f != nullptr) return f;
  f = reinterpret_cast<SubscribeFn>(dlsym(RTLD_NEXT, "cuptiSubscribe"));
  if (f == nullptr) {
    // The caller's CUPTI may sit in a local scope (a library opened with RTLD_LOCAL, as Python
    // opens extension modules): find the copy the process loaded by its SONAME.
    if (void* h = dlopen("libcupti.so.13", RTLD_NOW | RTLD_NOLOAD)) f = reinterpret_cast<SubscribeFn>(dlsym(h, "cuptiSubscribe"));
  }
  fn = f;
  return f;
}

}  // namespace

extern "C" GP_EXPORT CUptiResult cuptiSubscribe(void** subscriber, void* callback, void* userdata) {
  const SubscribeFn real = real_subscribe();
  if (real == nullptr) return kNotInitialized;
  const CUptiResult r = real(subscriber, callback, userdata);
  if (r == kSuccess) return r;
  // Who asked: the module of the caller (graphprof's own refused subscription is said elsewhere).
  Dl_info info{};
  const char* caller = dladdr(__builtin_return_address(0), &info) != 0 && info.dli_fname != nullptr ? info.dli_fname : "?";
  if (std::strstr(caller, "libgraphprof_inject") != nullptr) return r;
  if (g_refused.fetch_add(1) == 0) {
    std::snprintf(g_first_caller, sizeof g_first_caller, "%s", caller);
    g_first_result = r;
  }
  return r;
}

// For the injection library: how many of the application's cuptiSubscribe calls CUPTI refused,
// the first one's result and calling module.
extern "C" GP_EXPORT int graphprof_cupti_watch_refusals(int* first_result, const char** first_caller) {
  const int n = g_refused.load();
  if (first_result != nullptr) *first_result = g_first_result.load();
  if (first_caller != nullptr) *first_caller = g_first_caller;
  return n;
}
