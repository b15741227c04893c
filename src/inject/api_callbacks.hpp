// API records written from the injection's own callbacks instead of CUPTI's activity records
// (GRAPHPROF_PROFILE_API=callbacks): for the calls of recorded_apis.hpp, the time from the call's
// entry to its return (cuptiGetTimestamp, CUPTI's clock), its return value, thread and correlation
// id, in the same `a` line the activity records give. For a CUPTI whose per-call activity selection
// records nothing. Included only by graphprof_inject.cpp (the library's one cupti.h translation unit).
#pragma once
#include <cupti.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bitset>
#include <cstdint>
#include <string>
#include <vector>

#include "inject_output.hpp"
#include "recorded_apis.hpp"

namespace gp::inject {

inline bool g_api_from_callbacks = false;
inline std::bitset<1024> g_api_runtime, g_api_driver;  // the recorded calls, by callback id

struct OpenCall {
  std::uint32_t correlation = 0;
  std::uint64_t start_ns = 0;
};
inline thread_local OpenCall t_open[8];
inline thread_local int t_open_n = 0;

// Enables the callbacks of the recorded calls (and the extra ones: call sites).
inline void enable_api_callbacks(CUpti_SubscriberHandle sub, const std::vector<std::uint32_t>& runtime_extra,
                                 const std::vector<std::uint32_t>& driver_extra) {
  g_api_from_callbacks = true;
  auto add = [&](bool driver, std::uint32_t cb) {
    if (cb >= 1024) return;
    (driver ? g_api_driver : g_api_runtime).set(cb);
    (void)cuptiEnableCallback(1, sub, driver ? CUPTI_CB_DOMAIN_DRIVER_API : CUPTI_CB_DOMAIN_RUNTIME_API, cb);
  };
  for (CUpti_CallbackId cb : kRecordedRuntimeApis) add(false, cb);
  for (CUpti_CallbackId cb : kRecordedDriverApis) add(true, cb);
  for (std::uint32_t cb : runtime_extra) add(false, cb);
  for (std::uint32_t cb : driver_extra) add(true, cb);
}

// "cudaLaunchKernel" from CUPTI's "cudaLaunchKernel_v7000".
inline const std::string& api_call_name(bool driver, std::uint32_t cbid, const char* function) {
  static thread_local std::string names[2][1024];
  std::string& n = names[driver ? 1 : 0][cbid];
  if (n.empty()) {
    n = function != nullptr ? function : "cbid " + std::to_string(cbid);
    const std::size_t v = n.rfind("_v");
    if (v != std::string::npos && v + 2 < n.size() && n.find_first_not_of("0123456789", v + 2) == std::string::npos) n.resize(v);
  }
  return n;
}

// Every runtime or driver callback passes here first; only the recorded calls are written.
inline void on_api_call(bool driver, CUpti_CallbackId cbid, const CUpti_CallbackData* cd) {
  if (!g_api_from_callbacks || cbid >= 1024 || !(driver ? g_api_driver : g_api_runtime).test(cbid)) return;
  std::uint64_t now = 0;
  (void)cuptiGetTimestamp(&now);
  if (cd->callbackSite == CUPTI_API_ENTER) {
    if (t_open_n < 8) t_open[t_open_n++] = OpenCall{cd->correlationId, now};
    return;
  }
  int i = t_open_n - 1;
  while (i >= 0 && t_open[i].correlation != cd->correlationId) --i;
  if (i < 0) return;  // its entry was not seen (too deeply nested)
  const std::uint64_t start = t_open[i].start_ns;
  t_open_n = i;
  const int ret = cd->functionReturnValue != nullptr ? *static_cast<const int*>(cd->functionReturnValue) : 0;
  static thread_local const unsigned tid = static_cast<unsigned>(::syscall(SYS_gettid));
  std::string line = "{\"t\":\"a\",\"n\":";
  append_json_string(line, api_call_name(driver, cbid, cd->functionName).c_str());
  appendf(line, ",\"cb\":%u,\"dr\":%d,\"s\":%llu,\"e\":%llu,\"p\":%d,\"th\":%u,\"co\":%u,\"r\":%d}\n", cbid, driver ? 1 : 0,
          static_cast<unsigned long long>(start), static_cast<unsigned long long>(now), static_cast<int>(::getpid()), tid,
          cd->correlationId, ret);
  write_lines(line, false);
}

}  // namespace gp::inject
