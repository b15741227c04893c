// The injection library's state and small CUPTI helpers: what graphprof asked for (level, sampling,
// dumps, developer switches), the subscriber, buffer counters and the exit path's ownership probe.
// Defined in inject_state.cpp; shared by the library's translation units.
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
extern int g_level;
extern gp::NodeSampling g_sample_rule;  // GRAPHPROF_PROFILE_SAMPLE
extern bool g_dump_dot;
extern gp::inject::DevSwitches g_on;  // developer switches (GRAPHPROF_INJECT_OFF): all on for users
extern bool g_api_selected;  // only the calls of recorded_apis.hpp are recorded (outside captures)
extern std::string g_dir;

extern std::atomic<bool> g_end_written;
// Interposed (no CUPTI): the interposer's graphprof_interpose_end, which writes its pending lines
// at the end (`may_wait` 0 in a signal handler); null when CUPTI observes the process.
extern void (*g_interposer_end)(int may_wait);
extern CUpti_SubscriberHandle g_subscriber;
extern std::atomic<unsigned long long> g_lost_buffers;
extern std::atomic<unsigned long long> g_buffers_done;  // progress of a flush, for the exit wait

// The ownership probe (subscription_alive, flush_records): before its final flush the library
// calls cuDeviceGetCount, whose driver callback it enabled. The callback fires only while
// graphprof's subscriber is alive; the DRIVER activity record of that call comes back only while
// CUPTI still delivers activity buffers to graphprof with the DRIVER kind enabled. A missing
// callback or record means something only once the same callback or record was seen for the
// application's own cuDeviceGetCount (the CUDA runtime calls it when it starts).
extern bool g_probe_enabled;
extern thread_local bool t_probing;
extern std::atomic<bool> g_probe_fired;
extern std::atomic<std::uint32_t> g_probe_correlation;
extern std::atomic<bool> g_probe_record_seen;
extern std::atomic<bool> g_callback_proven;  // the application's cuDeviceGetCount reached the callback
extern std::atomic<bool> g_record_proven;    // ... and its DRIVER record reached this library

// CUPTI's timestamp (CLOCK_REALTIME where CUPTI cannot give one).
std::uint64_t now_ns();

// CUPTI's name of a result.
std::string cupti_error(CUptiResult r);

// The error line: profiling could not start.
void write_error(const std::string& what);

static_assert(CUPTI_ACTIVITY_MEMCPY_KIND_HTOD == 1 && CUPTI_ACTIVITY_MEMCPY_KIND_DTOD == 8 &&
                  CUPTI_ACTIVITY_MEMCPY_KIND_PTOP == 10,
              "CUPTI renumbered its memcpy kinds: update include/graphprof/core/copy_kind.hpp");

}  // namespace gp::inject
