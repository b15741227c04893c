// The injection library's state and small CUPTI helpers: what graphprof asked for (level, sampling,
// dumps, developer switches), the subscriber, buffer counters and the exit path's ownership probe.
// Included only by graphprof_inject.cpp (with activity_records.hpp and exit_path.hpp: the
// library's one cupti.h translation unit, split into files by concern).
#pragma once
#include <cupti.h>

#include <atomic>
#include <cstdint>
#include <ctime>
#include <string>

#include "dev_switches.hpp"
#include "inject_output.hpp"
#include "graphprof/core/node_sampling.hpp"

namespace gp::inject {

constexpr std::size_t kBufferBytes = std::size_t{8} << 20;
constexpr int kDotVerbose = 1;  // CU_GRAPH_DEBUG_DOT_FLAGS_VERBOSE

// What graphprof asked for (GRAPHPROF_PROFILE_LEVEL): 0 none (graphs and API calls only),
// 1 graph (plus one span per graph launch), 2 node (plus kernels, copies and memsets: on a sample
// of the launches, GRAPHPROF_PROFILE_SAMPLE, or all); -1 clock (graph launches counted and timed
// only: the plain runs of --overhead).
inline int g_level = 2;
inline gp::NodeSampling g_sample_rule;  // GRAPHPROF_PROFILE_SAMPLE
inline bool g_dump_dot = true;
inline gp::inject::DevSwitches g_on;  // developer switches (GRAPHPROF_INJECT_OFF): all on for users
inline bool g_api_selected = false;   // only the calls of recorded_apis.hpp are recorded (outside captures)
inline std::string g_dir;

inline std::atomic<bool> g_end_written{false};
// Interposed (no CUPTI): the interposer's graphprof_interpose_end, which writes its pending lines
// at the end (`may_wait` 0 in a signal handler); null when CUPTI observes the process.
inline void (*g_interposer_end)(int may_wait) = nullptr;
inline CUpti_SubscriberHandle g_subscriber = nullptr;
inline std::atomic<unsigned long long> g_lost_buffers{0};
inline std::atomic<unsigned long long> g_buffers_done{0};  // progress of a flush, for the exit wait

// The ownership probe (subscription_alive, flush_records): before its final flush the library
// calls cuDeviceGetCount, whose driver callback it enabled. The callback fires only while
// graphprof's subscriber is alive; the DRIVER activity record of that call comes back only while
// CUPTI still delivers activity buffers to graphprof with the DRIVER kind enabled. A missing
// callback or record means something only once the same callback or record was seen for the
// application's own cuDeviceGetCount (the CUDA runtime calls it when it starts).
inline bool g_probe_enabled = false;
inline thread_local bool t_probing = false;
inline std::atomic<bool> g_probe_fired{false};
inline std::atomic<std::uint32_t> g_probe_correlation{0};
inline std::atomic<bool> g_probe_record_seen{false};
inline std::atomic<bool> g_callback_proven{false};  // the application's cuDeviceGetCount reached the callback
inline std::atomic<bool> g_record_proven{false};    // ... and its DRIVER record reached this library

inline std::uint64_t now_ns() {
  uint64_t t = 0;
  if (cuptiGetTimestamp(&t) == CUPTI_SUCCESS) return t;
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<std::uint64_t>(ts.tv_nsec);
}

inline std::string cupti_error(CUptiResult r) {
  const char* name = nullptr;
  if (cuptiGetResultString(r, &name) != CUPTI_SUCCESS || name == nullptr) return "CUPTI error " + std::to_string(r);
  return name;
}

inline void write_error(const std::string& what) {
  std::string line = "{\"t\":\"error\",\"what\":";
  append_json_string(line, what.c_str());
  line += "}\n";
  write_lines(line, true);
}

static_assert(CUPTI_ACTIVITY_MEMCPY_KIND_HTOD == 1 && CUPTI_ACTIVITY_MEMCPY_KIND_DTOD == 8 &&
                  CUPTI_ACTIVITY_MEMCPY_KIND_PTOP == 10,
              "CUPTI renumbered its memcpy kinds: update include/graphprof/core/copy_kind.hpp");

}  // namespace gp::inject
