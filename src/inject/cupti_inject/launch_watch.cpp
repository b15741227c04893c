// The graph-launch callbacks of the injection library (launch_watch.hpp): each exec's launches, the
// synchronisations after them, and node sampling's switches of GRAPH_TRACE and CONCURRENT_KERNEL.
#include "launch_watch.hpp"

#include <pthread.h>
#include <time.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "graphprof/core/node_sampling.hpp"
#include "inject_output.hpp"
#include "interpose_records.hpp"
#include "record_lines.hpp"

namespace gp::inject {

namespace {

struct ExecLaunches {
  std::uint32_t exec_id = 0;
  std::uint64_t launches = 0, first_ns = 0, last_ns = 0;
  std::uint64_t settled_ns = 0;  // the first synchronising call's return after last_ns (0: none yet)
  bool unsettled = false;        // in g_unsettled
  std::vector<std::uint32_t> correlations;  // --trace none: launches not yet written (lx lines)
};

// --trace none: which exec each launch ran (nothing else tells at that level) is kept per exec and
// written in batches of kBatch correlation ids, not as a line per launch.
constexpr std::size_t kBatch = 4096;
bool g_keep_correlations = false;

std::mutex g_watch_mu;
std::unordered_map<const void*, ExecLaunches> g_launches;  // by CUgraphExec (node-based: stable addresses)
std::vector<ExecLaunches*> g_unsettled;                    // launched since the last synchronising call
bool g_sampling = false;                                   // node sampling active
NodeSampling g_rule;

// Reasons for GRAPH_TRACE to be off (node records for graph launches); switched under g_toggle_mu,
// never after stop_sampling().
std::mutex g_toggle_mu;
int g_node_reasons = 0;
std::atomic<bool> g_sampling_stopped{false};
thread_local bool t_traced_launch = false;   // this thread's launch call holds a reason
thread_local bool t_in_runtime_launch = false;  // inside cudaGraphLaunch (its cuGraphLaunch is not another)

std::atomic<bool> g_window_open{false};  // a sampling window is open (the window thread's word)
std::atomic<bool> g_window_held{false};  // ... and holds a reason (switched under g_toggle_mu)
thread_local bool t_node_launch = false;  // this thread's launch call was made with a reason held

std::uint64_t watch_now_ns() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);  // CUPTI's clock on Linux
  return static_cast<std::uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<std::uint64_t>(ts.tv_nsec);
}

// kernels=P%: the CONCURRENT_KERNEL switch (under g_toggle_mu).
struct KernelActivitySwitch {
  bool on = true;             // the kind is on (enabled with the others at start)
  bool sampled = false;       // a sample began while it was on (the start-up period is not one)
  std::uint64_t since_ns = 0;  // the current on period's first sample (0: none yet)
  std::uint64_t first_ns = 0;  // the first sample's start: the duty budget's time base
  std::uint64_t on_ns = 0;     // time on, finished sample periods
  CUevent drained = nullptr;   // recorded after the last traced launch
  bool pending = false;        // `drained` was recorded and has not been seen complete
  bool draining = false;       // a launch without a reason came since the last traced one
  std::uint32_t done_before = 0, done_stream = 0;  // `drained` follows the calls before this correlation id on that stream
  unsigned failed = 0;         // calls whose failure was written (bit per call)
  // Diagnosis (the ks_stats line at exit): launches without a reason that reached the switch,
  // drain events recorded, queries of it, queries that found it not complete, switches off.
  std::uint64_t untraced = 0, drains = 0, queries = 0, not_ready = 0, offs = 0;
};
KernelActivitySwitch g_kernels;

// The switch's line; `took_ns`: how long the cuptiActivityEnable/Disable call took (diagnosis).
// A switch off also says which calls the drain event followed (done: the correlation id before
// which every call on stream st had finished).
void write_switch_line(bool on, std::uint64_t took_ns) {
  std::uint64_t ts = 0;
  if (cuptiGetTimestamp(&ts) != CUPTI_SUCCESS) ts = watch_now_ns();
  std::string line;
  records::write(line, records::KernelSwitchLine{on, ts, took_ns, on ? 0u : g_kernels.done_before, on ? 0u : g_kernels.done_stream});
  (void)write_lines(line, false);
}

// A driver or CUPTI call of the switch that failed: said once per call (a `ks_fail` line, `r` its
// CUresult or CUptiResult), the kind then stays on.
void switch_call_failed(unsigned bit, const char* call, CUresult r) {
  if (g_kernels.failed & bit) return;
  g_kernels.failed |= bit;
  std::string line;
  records::write(line, records::SwitchFailLine{call, static_cast<int>(r)});
  (void)write_lines(line, false);
}

// Records the drain event on `stream` after the calls before correlation id `before`; false if it could not.
bool record_drain_locked(CUstream stream, std::uint32_t before) {
  KernelActivitySwitch& k = g_kernels;
  CUresult r = CUDA_SUCCESS;
  if (k.drained == nullptr && (r = cuEventCreate(&k.drained, CU_EVENT_DISABLE_TIMING)) != CUDA_SUCCESS) {
    k.drained = nullptr;
    switch_call_failed(1, "cuEventCreate", r);
    return false;
  }
  CUstreamCaptureStatus capturing = CU_STREAM_CAPTURE_STATUS_NONE;
  if ((r = cuStreamIsCapturing(stream, &capturing)) != CUDA_SUCCESS) {
    switch_call_failed(2, "cuStreamIsCapturing", r);
    return false;
  }
  if (capturing != CU_STREAM_CAPTURE_STATUS_NONE) return false;
  if ((r = cuEventRecord(k.drained, stream)) != CUDA_SUCCESS) {
    switch_call_failed(4, "cuEventRecord", r);
    return false;
  }
  ++k.drains;
  CUcontext ctx = nullptr;
  std::uint32_t id = 0;
  if (cuCtxGetCurrent(&ctx) != CUDA_SUCCESS || ctx == nullptr || cuptiGetStreamIdEx(ctx, stream, 0, &id) != CUPTI_SUCCESS) id = 0;
  k.done_before = before;
  k.done_stream = id;
  return true;
}

// Whether the time with the kind on stays within the budget (with the current on period, if `on`).
bool within_budget(std::uint64_t now, bool on) {
  const KernelActivitySwitch& k = g_kernels;
  if (k.first_ns == 0 || now <= k.first_ns) return true;
  const double elapsed = static_cast<double>(now - k.first_ns);
  const double spent = static_cast<double>(k.on_ns) + (on && now > k.since_ns ? static_cast<double>(now - k.since_ns) : 0.0);
  return spent <= elapsed * static_cast<double>(g_rule.kernel_duty_pct) / 100.0;
}

// Whether a launch that wants node records may have them now: the kind is on and the sample goes
// on (no launch without a reason since the last traced one), or a new sample keeps the time on
// within the budget. Switches it on in that case.
bool kernels_for_sample_locked() {
  KernelActivitySwitch& k = g_kernels;
  if (!g_rule.switches_kernels()) return true;
  const std::uint64_t now = watch_now_ns();
  if (k.on) {
    if (!k.sampled) {  // the first sample of the start-up period: the budget counts from here
      k.sampled = true;
      k.since_ns = now;
      if (k.first_ns == 0) k.first_ns = now;
    } else if (k.draining && !within_budget(now, true)) {
      return false;  // a new sample while the last one drains: only within the budget
    }
    k.pending = false;
    k.draining = false;
    return true;
  }
  if (!within_budget(now, false)) return false;
  k.pending = false;
  k.draining = false;
  if (const CUptiResult r = cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL); r != CUPTI_SUCCESS) {
    switch_call_failed(16, "cuptiActivityEnable", static_cast<CUresult>(r));
    return false;
  }
  write_switch_line(true, watch_now_ns() - now);
  k.on = true;
  k.sampled = true;
  k.since_ns = now;
  if (k.first_ns == 0) k.first_ns = now;
  return true;
}

// At the entry of a launch without a reason: the kind goes off once the last traced launch's work
// is done (at the first such entry after the start-up period, the work before this launch on its
// stream: the event is recorded here).
void kernels_off_when_drained_locked(CUstream stream, std::uint32_t correlation) {
  KernelActivitySwitch& k = g_kernels;
  if (!g_rule.switches_kernels() || !k.on) return;
  ++k.untraced;
  k.draining = true;
  if (!k.pending) {
    k.pending = record_drain_locked(stream, correlation);
    return;
  }
  ++k.queries;
  if (const CUresult r = cuEventQuery(k.drained); r != CUDA_SUCCESS) {  // not yet (or an error: the kind stays on)
    if (r != CUDA_ERROR_NOT_READY) switch_call_failed(8, "cuEventQuery", r);
    else ++k.not_ready;
    return;
  }
  const std::uint64_t now = watch_now_ns();
  if (const CUptiResult r = cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL); r != CUPTI_SUCCESS) {
    switch_call_failed(32, "cuptiActivityDisable", static_cast<CUresult>(r));  // a CUPTI result, not a driver one
    return;
  }
  write_switch_line(false, watch_now_ns() - now);
  ++k.offs;
  if (k.sampled && now > k.since_ns) k.on_ns += now - k.since_ns;
  k.on = false;
  k.sampled = false;
  k.pending = false;
  k.draining = false;
}

// At the return of a launch made with a reason held (kernels=P%): the event follows its work.
void mark_traced_launch_locked(CUstream stream, std::uint32_t correlation) {
  KernelActivitySwitch& k = g_kernels;
  if (!g_rule.switches_kernels() || !k.on) return;
  k.pending = record_drain_locked(stream, correlation + 1);
}

void node_records_locked(bool add_reason) {
  if (add_reason ? g_node_reasons++ != 0 : --g_node_reasons != 0) return;
  (void)(add_reason ? cuptiActivityDisable(CUPTI_ACTIVITY_KIND_GRAPH_TRACE) : cuptiActivityEnable(CUPTI_ACTIVITY_KIND_GRAPH_TRACE));
}

// Adds or releases a launch's reason; false when a reason to add was refused (the kernel budget).
bool node_records(bool add_reason) {
  std::lock_guard<std::mutex> lock(g_toggle_mu);
  if (g_sampling_stopped) return false;
  if (add_reason && g_node_reasons == 0 && !kernels_for_sample_locked()) return false;
  node_records_locked(add_reason);
  return true;
}

// At a launch call's entry: the window's reason follows the window thread's word (an opening the
// kernel budget refuses is tried again at the next entry).
void apply_window() {
  if (g_window_open.load(std::memory_order_relaxed) == g_window_held.load(std::memory_order_relaxed)) return;
  std::lock_guard<std::mutex> lock(g_toggle_mu);
  const bool open = g_window_open.load();
  if (g_sampling_stopped || open == g_window_held.load()) return;
  if (open && g_node_reasons == 0 && !kernels_for_sample_locked()) return;
  g_window_held = open;
  node_records_locked(open);
}

// At a launch call's entry, after its reasons were taken: with none held, the kind may go off.
void entry_without_reason(CUstream stream, std::uint32_t correlation) {
  if (!g_rule.switches_kernels()) return;
  std::lock_guard<std::mutex> lock(g_toggle_mu);
  if (g_sampling_stopped || g_node_reasons != 0) return;
  kernels_off_when_drained_locked(stream, correlation);
}

void exit_of_node_launch(CUstream stream, std::uint32_t correlation) {
  if (!g_rule.switches_kernels()) return;
  std::lock_guard<std::mutex> lock(g_toggle_mu);
  if (g_sampling_stopped) return;
  mark_traced_launch_locked(stream, correlation);
}

bool is_runtime_graph_launch(CUpti_CallbackId cbid) {
  return cbid == CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000 || cbid == CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_ptsz_v10000;
}
bool is_driver_graph_launch(CUpti_CallbackId cbid) {
  return cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch || cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz;
}

// The calls that wait for the GPU's work, in the driver API (the runtime's synchronisations call
// them too, so these see both).
constexpr CUpti_CallbackId kSyncDriverCallbacks[] = {
    CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize,    CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize_v2,
    CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize, CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuEventSynchronize};

bool is_sync_driver_callback(CUpti_CallbackId cbid) {
  for (CUpti_CallbackId cb : kSyncDriverCallbacks)
    if (cb == cbid) return true;
  return false;
}

}  // namespace

void keep_launch_correlations(bool keep) { g_keep_correlations = keep; }

void enable_launch_callbacks(CUpti_SubscriberHandle sub) {
  for (CUpti_CallbackId cb : {CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000, CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_ptsz_v10000})
    (void)cuptiEnableCallback(1, sub, CUPTI_CB_DOMAIN_RUNTIME_API, cb);
  for (CUpti_CallbackId cb : {CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch, CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz})
    (void)cuptiEnableCallback(1, sub, CUPTI_CB_DOMAIN_DRIVER_API, cb);
  for (CUpti_CallbackId cb : kSyncDriverCallbacks) (void)cuptiEnableCallback(1, sub, CUPTI_CB_DOMAIN_DRIVER_API, cb);
}

// A synchronising call's return: every exec launched since the previous one is settled now.
// Returns false for any other callback.
bool on_sync_callback(bool driver, CUpti_CallbackId cbid, const CUpti_CallbackData* cd) {
  if (!driver || !is_sync_driver_callback(cbid)) return false;
  if (cd->callbackSite != CUPTI_API_EXIT) return true;
  const std::uint64_t now = watch_now_ns();
  std::lock_guard<std::mutex> lock(g_watch_mu);
  for (ExecLaunches* e : g_unsettled) {
    e->settled_ns = now;
    e->unsettled = false;
  }
  g_unsettled.clear();
  return true;
}

namespace {

// The exec's pending correlation ids as an lx line (emptied); under g_watch_mu.
std::string lx_line(ExecLaunches& e) { return gp::interpose::lx_line(e.exec_id, e.correlations); }

}  // namespace

// A graph-launch callback; returns false for any other callback. Both launch calls have the exec
// first in their parameters.
bool on_launch_callback(bool driver, CUpti_CallbackId cbid, const CUpti_CallbackData* cd) {
  if (driver ? !is_driver_graph_launch(cbid) : !is_runtime_graph_launch(cbid)) return false;
  const bool enter = cd->callbackSite == CUPTI_API_ENTER;
  if (driver && t_in_runtime_launch) return true;  // the runtime's own cuGraphLaunch
  // Both calls' parameters are (exec, stream); the _ptsz calls' stream 0 is the per-thread stream.
  const void* exec = cd->functionParams != nullptr ? *static_cast<void* const*>(cd->functionParams) : nullptr;
  CUstream stream = cd->functionParams != nullptr ? static_cast<CUstream const*>(cd->functionParams)[1] : nullptr;
  if (stream == nullptr && (cbid == CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_ptsz_v10000 || cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz))
    stream = CU_STREAM_PER_THREAD;
  if (!enter) {
    if (!driver) t_in_runtime_launch = false;
    if (t_traced_launch) {
      t_traced_launch = false;
      node_records(false);
    }
    if (t_node_launch) {
      t_node_launch = false;
      exit_of_node_launch(stream, cd->correlationId);
    }
    return true;
  }
  if (!driver) t_in_runtime_launch = true;
  if (g_sampling) apply_window();
  if (exec == nullptr) return true;
  const std::uint64_t now = watch_now_ns();
  std::uint64_t ordinal = 0;
  std::string batch;
  {
    std::lock_guard<std::mutex> lock(g_watch_mu);
    ExecLaunches& e = g_launches[exec];
    if (e.launches == 0) {
      (void)cuptiGetGraphExecId(static_cast<CUgraphExec>(const_cast<void*>(exec)), &e.exec_id);
      e.first_ns = now;
    }
    ordinal = e.launches++;
    e.last_ns = now;
    if (g_keep_correlations) {
      e.correlations.push_back(cd->correlationId);
      if (e.correlations.size() >= kBatch) batch = lx_line(e);
    }
    e.settled_ns = 0;
    if (!e.unsettled) {
      e.unsettled = true;
      g_unsettled.push_back(&e);
    }
  }
  if (!batch.empty()) (void)write_lines(batch, false);
  if (g_sampling && g_rule.traced(ordinal)) t_traced_launch = node_records(true);
  if (g_sampling && g_rule.switches_kernels()) {
    t_node_launch = t_traced_launch || g_window_held.load();
    if (!t_node_launch) entry_without_reason(stream, cd->correlationId);
  }
  return true;
}

namespace {

// The sampling windows: open for window_ms of every period_ms, the first from the start (applied by
// the launch calls, apply_window).
void* sampling_windows(void*) {
  for (;;) {
    timespec on{static_cast<time_t>(g_rule.window_ms / 1000), static_cast<long>(g_rule.window_ms % 1000) * 1000000L};
    nanosleep(&on, nullptr);
    g_window_open = false;
    const std::uint64_t off_ms = g_rule.period_ms - g_rule.window_ms;
    timespec off{static_cast<time_t>(off_ms / 1000), static_cast<long>(off_ms % 1000) * 1000000L};
    nanosleep(&off, nullptr);
    g_window_open = true;
  }
  return nullptr;
}

}  // namespace

// At --trace node with a rule other than "all", after GRAPH_TRACE and the node kinds were enabled:
// the first window opens (GRAPH_TRACE goes off at the first graph launch) and the window thread
// runs. False when the thread cannot start (then the window stays open: every launch is traced).
bool start_sampling(const NodeSampling& rule) {
  g_rule = rule;
  g_window_open = true;
  g_sampling = true;
  if (rule.period_ms == 0 || rule.window_ms >= rule.period_ms) return true;  // one window: always on
  pthread_attr_t attr;
  pthread_t thread;
  if (pthread_attr_init(&attr) != 0) return false;
  const bool ok = pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED) == 0 &&
                  pthread_create(&thread, &attr, sampling_windows, nullptr) == 0;
  pthread_attr_destroy(&attr);
  return ok;
}

// Before the final flush: no more switching (CUPTI is about to be flushed and finalized). With
// `wait` (not in a signal handler) it also waits for a switch in progress.
void stop_sampling(bool wait) {
  g_sampling_stopped = true;
  if (wait) std::lock_guard<std::mutex> lock(g_toggle_mu);
}

// The clock lines; `may_wait`: false in a signal handler (the lock is only tried).
std::string clock_lines(bool may_wait) {
  std::string s;
  std::unique_lock<std::mutex> lock(g_watch_mu, std::defer_lock);
  if (may_wait) lock.lock();
  else if (!lock.try_lock()) return s;
  for (auto& [exec, e] : g_launches) {
    s += lx_line(e);
    s += gp::interpose::clock_line(e.exec_id, e.launches, e.first_ns, e.last_ns, e.settled_ns);
  }
  if (g_rule.switches_kernels()) {  // kernels=P%: how the switch went (diagnosis)
    const KernelActivitySwitch& k = g_kernels;
    records::write(s, records::SwitchStatsLine{k.untraced, k.drains, k.queries, k.not_ready, k.offs, k.on, k.pending});
  }
  return s;
}

}  // namespace gp::inject
