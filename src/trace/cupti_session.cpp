// The CUPTI session. It owns CUPTI's process-wide state (one subscriber, the activity buffers),
// hands raw activity records and graph resource callbacks to the Converter (cupti_records.hpp),
// which turns them into the plain records of trace_records.hpp, and (by default) detaches CUPTI
// after every session so the timing passes that follow run without it. CUPTI itself is loaded
// on first use (cupti_api.cpp).
//
// Facts this code relies on (observed on an H200 with CUDA 13.0, see docs/tracing.md):
//  - kernel/memcpy/memset records of a graph launch carry graphId = the exec's id and
//    graphNodeId = the exec node's id, (graphId << 32) | index;
//  - cudaGraphInstantiate reports GRAPHNODE_CLONED(node = exec node, originalNode) per node;
//  - some resource callbacks (CU_INIT_FINISHED) pass NULL data;
//  - records arrive out of order, on CUPTI's worker thread;
//  - CUDA 13.0 may crash at exit if CUPTI was used and not finalized.
#include <cuda_runtime_api.h>
#include <dlfcn.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <mutex>
#include <new>
#include <unordered_map>
#include <vector>

#include "graphprof/core/copy_kind.hpp"
#include "graphprof/core/error.hpp"
#include "graphprof/trace/cupti_session.hpp"
#include "cupti_api.hpp"
#include "cupti_records.hpp"

namespace gp {

namespace {

constexpr std::size_t kMinBuffer = std::size_t{1} << 20;
constexpr std::size_t kMaxBuffer = std::size_t{64} << 20;

std::string cupti_error_text(CUptiResult r) {
  const char* name = nullptr;
  const char* message = nullptr;
  if (cupti().cuptiGetResultString(r, &name) != CUPTI_SUCCESS || name == nullptr) name = "CUPTI_ERROR_?";
  std::string s = name;
  if (cupti().cuptiGetErrorMessage(r, &message) == CUPTI_SUCCESS && message != nullptr && std::strcmp(message, name) != 0)
    s += std::string(" (") + message + ")";
  return s;
}

// CUPTI's callbacks are plain functions, so the session's state is process-wide. The mutex
// guards `data` and the converter: buffers complete on CUPTI's worker thread.
struct State {
  std::mutex mu;
  TraceData data;
  Converter converter;
  std::atomic<bool> active{false};
  std::atomic<bool> used{false};  // a session subscribed: CUPTI is loaded and initialised by us
  bool callbacks_registered = false;  // buffer callbacks stay registered until cuptiFinalize
  std::atomic<std::size_t> buffer_bytes{8u << 20};
  CUpti_SubscriberHandle subscriber = nullptr;
  std::vector<CUpti_ActivityKind> enabled;
};

State& state() {
  static State s;  // constructed on first use, never during static initialisation
  return s;
}

// > 0 while this thread is inside cudaGraphInstantiate*: the nodes created then belong to the
// exec, not to a graph the user built.
thread_local int t_instantiating = 0;

void CUPTIAPI on_buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  const std::size_t bytes = state().buffer_bytes.load();
  // CUPTI needs 8-byte alignment; aligned_alloc needs a size that is a multiple of it.
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, bytes));
  *size = *buffer != nullptr ? bytes : 0;
  *max_records = 0;
}

void CUPTIAPI on_buffer_completed(CUcontext context, uint32_t stream_id, uint8_t* buffer, size_t size, size_t valid) {
  State& s = state();
  if (buffer != nullptr) {
    std::lock_guard<std::mutex> lock(s.mu);
    CUpti_Activity* record = nullptr;
    while (cupti().cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) s.converter.convert(record, s.data);
    std::size_t dropped = 0;
    if (cupti().cuptiActivityGetNumDroppedRecords(context, stream_id, &dropped) == CUPTI_SUCCESS) s.data.dropped_records += dropped;
    ++s.data.buffers;
    s.data.largest_buffer_bytes = std::max(s.data.largest_buffer_bytes, size);
    // A buffer that came back three-quarters full: ask for bigger ones from now on.
    if (valid > size / 4 * 3) {
      const std::size_t grown = std::min(kMaxBuffer, std::max(size, s.buffer_bytes.load()) * 2);
      s.buffer_bytes.store(grown);
    }
  }
  std::free(buffer);
}

std::uint64_t graph_node_id(CUgraphNode node) {
  uint64_t id = 0;
  return (node != nullptr && cupti().cuptiGetGraphNodeId(node, &id) == CUPTI_SUCCESS) ? id : 0;
}

void CUPTIAPI on_callback(void*, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* cbdata) {
  if (domain != CUPTI_CB_DOMAIN_RESOURCE) return;
  // Only the graph callbacks we enabled; others (CU_INIT_FINISHED) may pass NULL data.
  switch (cbid) {
    case CUPTI_CBID_RESOURCE_GRAPHEXEC_CREATE_STARTING:
      ++t_instantiating;
      return;
    case CUPTI_CBID_RESOURCE_GRAPHEXEC_CREATED:
    case CUPTI_CBID_RESOURCE_GRAPHNODE_CREATED:
    case CUPTI_CBID_RESOURCE_GRAPHNODE_CLONED:
      break;
    default:
      return;
  }
  if (cbid == CUPTI_CBID_RESOURCE_GRAPHEXEC_CREATED && t_instantiating > 0) --t_instantiating;
  if (cbdata == nullptr) return;
  const auto* rd = static_cast<const CUpti_ResourceData*>(cbdata);
  const auto* gd = static_cast<const CUpti_GraphData*>(rd->resourceDescriptor);
  if (gd == nullptr) return;
  State& s = state();
  switch (cbid) {
    case CUPTI_CBID_RESOURCE_GRAPHEXEC_CREATED: {
      uint32_t exec = 0, graph = 0;
      if (gd->graphExec == nullptr || cupti().cuptiGetGraphExecId(gd->graphExec, &exec) != CUPTI_SUCCESS) return;
      if (gd->graph == nullptr || cupti().cuptiGetGraphId(gd->graph, &graph) != CUPTI_SUCCESS) return;
      std::lock_guard<std::mutex> lock(s.mu);
      s.data.exec_mappings.push_back(ExecMapping{exec, graph});
      return;
    }
    case CUPTI_CBID_RESOURCE_GRAPHNODE_CREATED: {
      if (t_instantiating > 0) return;
      const std::uint64_t id = graph_node_id(gd->node);
      if (id == 0) return;
      std::lock_guard<std::mutex> lock(s.mu);
      s.data.nodes_created.push_back(NodeCreated{id});
      return;
    }
    case CUPTI_CBID_RESOURCE_GRAPHNODE_CLONED: {
      const std::uint64_t clone = graph_node_id(gd->node), original = graph_node_id(gd->originalNode);
      if (clone == 0 || original == 0) return;
      std::lock_guard<std::mutex> lock(s.mu);
      s.data.node_mappings.push_back(NodeMapping{clone, original});
      return;
    }
    default:
      return;
  }
}

constexpr CUpti_CallbackId kGraphCallbacks[] = {
    CUPTI_CBID_RESOURCE_GRAPHNODE_CREATED, CUPTI_CBID_RESOURCE_GRAPHNODE_CLONED,
    CUPTI_CBID_RESOURCE_GRAPHEXEC_CREATE_STARTING, CUPTI_CBID_RESOURCE_GRAPHEXEC_CREATED};

// Stops everything a session started, in the order CUPTI wants: deliver the buffers, stop the
// kinds, drop the subscriber, and with `detach` let CUPTI go. Never throws.
void stop_all(State& s, bool detach) noexcept {
  (void)cupti().cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  for (CUpti_ActivityKind k : s.enabled) (void)cupti().cuptiActivityDisable(k);
  s.enabled.clear();
  (void)cupti().cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  std::size_t dropped = 0;
  if (cupti().cuptiActivityGetNumDroppedRecords(nullptr, 0, &dropped) == CUPTI_SUCCESS) {
    std::lock_guard<std::mutex> lock(s.mu);
    s.data.dropped_records += dropped;
  }
  if (s.subscriber != nullptr) {
    for (CUpti_CallbackId cb : kGraphCallbacks) (void)cupti().cuptiEnableCallback(0, s.subscriber, CUPTI_CB_DOMAIN_RESOURCE, cb);
    (void)cupti().cuptiUnsubscribe(s.subscriber);
    s.subscriber = nullptr;
  }
  t_instantiating = 0;
  if (!detach) return;
  // The device is synchronised and the buffers are flushed, which is what cuptiFinalize needs
  // when it is not called from an API exit callback.
  (void)cupti().cuptiFinalize();
  s.callbacks_registered = false;
}

}  // namespace

TraceSession::TraceSession(TraceLevel level, std::size_t buffer_bytes, bool detach) : level_(level), detach_(detach) {
  State& s = state();
  if (level == TraceLevel::kNone) {
    reason_ = "tracing is off";
    return;
  }
  if (!cupti().loaded()) {
    reason_ = cupti_unavailable_reason();
    return;
  }
  bool expected = false;
  if (!s.active.compare_exchange_strong(expected, true)) {
    reason_ = "another trace session is active in this process";
    return;
  }
  {
    std::lock_guard<std::mutex> lock(s.mu);
    s.data = TraceData{};
    s.data.level = level;
  }
  const std::size_t bytes = (std::clamp(buffer_bytes, kMinBuffer, kMaxBuffer) + 7) / 8 * 8;
  s.buffer_bytes = bytes;

  auto fail = [&](const std::string& why) {
    reason_ = why;
    stop_all(s, detach_);
    s.active = false;
  };

  // Subscribe first: when another CUPTI client holds the process (a profiler, graphprof's own
  // injection library under `graphprof profile`), a refused subscription must leave its session
  // alone -- registering buffer callbacks would take its records, and finalizing would end it.
  CUptiResult r = cupti().cuptiSubscribe(&s.subscriber, reinterpret_cast<CUpti_CallbackFunc>(on_callback), nullptr);
  if (r != CUPTI_SUCCESS) {
    s.subscriber = nullptr;
    reason_ = "cuptiSubscribe returned " + cupti_error_text(r);
    if (r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED)
      reason_ += ": another CUPTI-based tool (Nsight Systems, Nsight Compute, a profiler) is attached to this process";
    s.active = false;
    return;
  }
  s.used = true;
  if (!s.callbacks_registered) {
    r = cupti().cuptiActivityRegisterCallbacks(on_buffer_requested, on_buffer_completed);
    if (r != CUPTI_SUCCESS) {
      fail("cuptiActivityRegisterCallbacks returned " + cupti_error_text(r));
      return;
    }
    s.callbacks_registered = true;
  }
  if (bytes > (std::size_t{8} << 20)) {
    // Larger device-side buffers too, for bursts of records between flushes (a retry after drops).
    std::size_t value = bytes, size = sizeof(value);
    (void)cupti().cuptiActivitySetAttribute(CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_SIZE, &size, &value);
  }
  for (CUpti_CallbackId cb : kGraphCallbacks) {
    r = cupti().cuptiEnableCallback(1, s.subscriber, CUPTI_CB_DOMAIN_RESOURCE, cb);
    if (r != CUPTI_SUCCESS) {
      fail("cupti().cuptiEnableCallback(resource " + std::to_string(cb) + ") returned " + cupti_error_text(r));
      return;
    }
  }
  std::vector<CUpti_ActivityKind> required{CUPTI_ACTIVITY_KIND_RUNTIME};
  if (level == TraceLevel::kNode) {
    // CONCURRENT_KERNEL, not KERNEL: the latter serialises every kernel on the GPU.
    required.push_back(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
    required.push_back(CUPTI_ACTIVITY_KIND_MEMCPY);
    required.push_back(CUPTI_ACTIVITY_KIND_MEMSET);
  } else {
    required.push_back(CUPTI_ACTIVITY_KIND_GRAPH_TRACE);
  }
  for (CUpti_ActivityKind k : required) {
    r = cupti().cuptiActivityEnable(k);
    if (r != CUPTI_SUCCESS) {
      fail("cupti().cuptiActivityEnable(kind " + std::to_string(static_cast<int>(k)) + ") returned " + cupti_error_text(r));
      return;
    }
    s.enabled.push_back(k);
  }
  // NVTX ranges are welcome but optional: without NVTX_INJECTION64_PATH there are none anyway.
  if (cupti().cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MARKER) == CUPTI_SUCCESS) s.enabled.push_back(CUPTI_ACTIVITY_KIND_MARKER);
  {
    std::lock_guard<std::mutex> lock(s.mu);
    s.data.begin_ns = now_ns();
  }
  ok_ = true;
}

TraceSession::~TraceSession() {
  if (!ok_ || collected_) return;
  // Abandoned (an exception is unwinding): let the GPU finish so the flush is complete, then stop.
  (void)cudaDeviceSynchronize();
  State& s = state();
  stop_all(s, detach_);
  {
    std::lock_guard<std::mutex> lock(s.mu);
    s.data = TraceData{};
  }
  s.active = false;
}

TraceData TraceSession::collect() {
  if (collected_) throw internal_error("TraceSession::collect called twice");
  collected_ = true;
  if (!ok_) {
    TraceData empty;
    empty.level = level_;
    return empty;
  }
  State& s = state();
  const std::uint64_t end = now_ns();
  stop_all(s, detach_);
  TraceData out;
  {
    std::lock_guard<std::mutex> lock(s.mu);
    out = std::move(s.data);
    s.data = TraceData{};
  }
  out.end_ns = end;
  s.active = false;
  return out;
}

std::uint64_t TraceSession::now_ns() noexcept {
  uint64_t t = 0;
  if (cupti().loaded() && cupti().cuptiGetTimestamp(&t) == CUPTI_SUCCESS) return t;
  // CUPTI's clock is CLOCK_REALTIME on Linux; use it directly if CUPTI cannot answer.
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<std::uint64_t>(ts.tv_nsec);
}

std::string nvtx_injection_library() {
  Dl_info info{};
  if (!cupti().loaded()) return {};
  if (dladdr(reinterpret_cast<const void*>(cupti().cuptiGetVersion), &info) == 0 || info.dli_fname == nullptr) return {};
  std::error_code ec;
  const auto path = std::filesystem::canonical(info.dli_fname, ec);
  return ec ? std::string(info.dli_fname) : path.string();
}

void trace_shutdown() noexcept {
  State& s = state();
  // Nothing to do in runs that never traced (finalizing would load CUPTI for nothing); a live
  // session stops itself.
  if (!s.used || s.active || !cupti().loaded()) return;
  // Sessions detach when they end, but NVTX injection can attach CUPTI again afterwards.
  (void)cupti().cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  (void)cupti().cuptiFinalize();
  s.callbacks_registered = false;
}

}  // namespace gp
