// The one translation unit that includes cupti.h. It owns CUPTI's process-wide state (one
// subscriber, the activity buffers), converts raw activity records and graph resource callbacks
// into the plain records of trace_records.hpp, and (by default) detaches CUPTI after every
// session so the timing passes that follow run without it.
//
// Facts this code relies on (observed on an H200 with CUDA 13.0, see docs/tracing.md):
//  - kernel/memcpy/memset records of a graph launch carry graphId = the exec's id and
//    graphNodeId = the exec node's id, (graphId << 32) | index;
//  - cudaGraphInstantiate reports GRAPHNODE_CLONED(node = exec node, originalNode) per node;
//  - some resource callbacks (CU_INIT_FINISHED) pass NULL data;
//  - records arrive out of order, on CUPTI's worker thread;
//  - CUDA 13.0 may crash at exit if CUPTI was used and not finalized.
#include <cupti.h>
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

namespace gp {

namespace {

// ---- CUPTI, loaded on first use --------------------------------------------------------------
// graphprof does not link libcupti: the offline commands (analyze, render, compare, merge) and
// the timing passes must work where CUPTI is missing. The trace pass loads it with dlopen the
// first time it is needed, and reports "CUPTI is not available: ..." if that fails.
#define GP_CUPTI_FUNCTIONS(X)                                                                            \
  X(cuptiActivityDisable) X(cuptiActivityEnable) X(cuptiActivityFlushAll) X(cuptiActivityGetNextRecord) \
  X(cuptiActivityGetNumDroppedRecords) X(cuptiActivityRegisterCallbacks) X(cuptiActivitySetAttribute)   \
  X(cuptiEnableCallback) X(cuptiFinalize) X(cuptiGetCallbackName) X(cuptiGetErrorMessage)               \
  X(cuptiGetGraphExecId) X(cuptiGetGraphId) X(cuptiGetGraphNodeId) X(cuptiGetResultString)              \
  X(cuptiGetTimestamp) X(cuptiGetVersion) X(cuptiSubscribe) X(cuptiUnsubscribe)

struct CuptiApi {
#define GP_CUPTI_POINTER(f) decltype(&::f) f = nullptr;
  GP_CUPTI_FUNCTIONS(GP_CUPTI_POINTER)
#undef GP_CUPTI_POINTER
  void* handle = nullptr;
  std::string error;  // why it is not loaded
  bool loaded() const noexcept { return handle != nullptr; }
};

std::string& cupti_library_choice() {
  static std::string path;
  return path;
}

#ifndef GRAPHPROF_CUPTI_SONAME
#define GRAPHPROF_CUPTI_SONAME "libcupti.so"
#endif
#ifndef GRAPHPROF_CUPTI_LIBRARY
#define GRAPHPROF_CUPTI_LIBRARY ""
#endif

CuptiApi load_cupti() {
  CuptiApi api;
  // By soname first (LD_LIBRARY_PATH, the loader cache), then the toolkit's copy found at build time.
  std::vector<std::string> candidates;
  if (!cupti_library_choice().empty()) candidates.push_back(cupti_library_choice());
  else candidates = {GRAPHPROF_CUPTI_SONAME, GRAPHPROF_CUPTI_LIBRARY};
  std::string errors;
  for (const auto& c : candidates) {
    if (c.empty()) continue;
    api.handle = ::dlopen(c.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (api.handle != nullptr) break;
    const char* e = ::dlerror();
    errors += (errors.empty() ? "" : "; ") + std::string(e != nullptr ? e : c + ": cannot be loaded");
  }
  if (api.handle == nullptr) {
    api.error = errors.empty() ? "no CUPTI library to load" : errors;
    return api;
  }
  std::string missing;
#define GP_CUPTI_RESOLVE(f)                                                          \
  api.f = reinterpret_cast<decltype(api.f)>(::dlsym(api.handle, #f));                \
  if (api.f == nullptr) missing += (missing.empty() ? "" : ", ") + std::string(#f);
  GP_CUPTI_FUNCTIONS(GP_CUPTI_RESOLVE)
#undef GP_CUPTI_RESOLVE
  if (!missing.empty()) {
    ::dlclose(api.handle);
    api = CuptiApi{};
    api.error = "the CUPTI library lacks " + missing + " (CUPTI older than this build's CUDA " +
                std::to_string(CUDART_VERSION / 1000) + "?)";
  }
  return api;
}

const CuptiApi& cupti() {
  static const CuptiApi api = load_cupti();
  return api;
}

}  // namespace

void use_cupti_library_for_testing(const std::string& path) { cupti_library_choice() = path; }

std::string cupti_unavailable_reason() {
  const CuptiApi& api = cupti();
  return api.loaded() ? std::string() : "CUPTI is not available: " + api.error;
}

int cupti_version() noexcept {
  uint32_t v = 0;
  if (!cupti().loaded() || cupti().cuptiGetVersion(&v) != CUPTI_SUCCESS) return 0;
  return static_cast<int>(v);
}

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

// CUPTI's callback names carry the API version ("cudaGraphLaunch_v10000"); users know the API.
std::string strip_version_suffix(std::string name) {
  const std::size_t v = name.rfind("_v");
  if (v != std::string::npos && v + 2 < name.size() &&
      std::all_of(name.begin() + static_cast<std::ptrdiff_t>(v) + 2, name.end(), [](char c) { return c >= '0' && c <= '9'; }))
    name.resize(v);
  return name;
}

static_assert(CUPTI_ACTIVITY_MEMCPY_KIND_HTOD == 1 && CUPTI_ACTIVITY_MEMCPY_KIND_DTOD == 8 &&
                  CUPTI_ACTIVITY_MEMCPY_KIND_PTOP == 10,
              "CUPTI renumbered its memcpy kinds: update include/graphprof/core/copy_kind.hpp");

// The fields of GpuSpan (kernel, memcpy, memset and graph trace records) and GpuActivity (not graph
// traces). (For memcpy, runtimeCorrelationId was always 0 on CUDA 13.0; correlationId matches the
// API record.)
template <typename Cupti>
void copy_span(const Cupti& c, GpuSpan& x) {
  x.start_ns = c.start;
  x.end_ns = c.end;
  x.device_id = c.deviceId;
  x.context_id = c.contextId;
  x.stream_id = c.streamId;
  x.correlation_id = c.correlationId;
  x.graph_id = c.graphId;
}

template <typename Cupti>
void copy_activity(const Cupti& c, GpuActivity& x) {
  copy_span(c, x);
  x.graph_node_id = c.graphNodeId;
}

// Converts CUPTI records into plain ones. API names are looked up once per cbid.
class Converter {
 public:
  void convert(const CUpti_Activity* r, TraceData& out) {
    switch (r->kind) {
      case CUPTI_ACTIVITY_KIND_KERNEL:
      case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
        const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(r);
        KernelRecord x;
        x.name = k->name ? k->name : "(unnamed kernel)";
        copy_activity(*k, x);
        x.grid = {{k->gridX, k->gridY, k->gridZ}};
        x.block = {{k->blockX, k->blockY, k->blockZ}};
        x.shared_bytes = k->staticSharedMemory + k->dynamicSharedMemory;
        x.registers_per_thread = k->registersPerThread;
        out.kernels.push_back(std::move(x));
        return;
      }
      case CUPTI_ACTIVITY_KIND_MEMCPY: {
        const auto* m = reinterpret_cast<const CUpti_ActivityMemcpy6*>(r);
        MemcpyRecord x;
        x.copy_kind = copy_kind_name(m->copyKind);
        x.bytes = m->bytes;
        copy_activity(*m, x);
        out.memcpys.push_back(std::move(x));
        return;
      }
      case CUPTI_ACTIVITY_KIND_MEMSET: {
        const auto* m = reinterpret_cast<const CUpti_ActivityMemset4*>(r);
        MemsetRecord x;
        x.value = m->value;
        x.bytes = m->bytes;
        copy_activity(*m, x);
        out.memsets.push_back(x);
        return;
      }
      case CUPTI_ACTIVITY_KIND_RUNTIME:
      case CUPTI_ACTIVITY_KIND_DRIVER: {
        const auto* a = reinterpret_cast<const CUpti_ActivityAPI*>(r);
        ApiRecord x;
        x.name = api_name(r->kind == CUPTI_ACTIVITY_KIND_RUNTIME ? CUPTI_CB_DOMAIN_RUNTIME_API : CUPTI_CB_DOMAIN_DRIVER_API,
                          a->cbid);
        x.cbid = a->cbid;
        x.start_ns = a->start;
        x.end_ns = a->end;
        x.process_id = a->processId;
        x.thread_id = a->threadId;
        x.correlation_id = a->correlationId;
        x.return_value = a->returnValue;
        out.api.push_back(std::move(x));
        return;
      }
      case CUPTI_ACTIVITY_KIND_MARKER: {
        const auto* m = reinterpret_cast<const CUpti_ActivityMarker2*>(r);
        MarkerRecord x;
        const auto flags = static_cast<std::uint32_t>(m->flags);
        if (flags & CUPTI_ACTIVITY_FLAG_MARKER_START) x.kind = MarkerRecord::Kind::kStart;
        else if (flags & CUPTI_ACTIVITY_FLAG_MARKER_END) x.kind = MarkerRecord::Kind::kEnd;
        else x.kind = MarkerRecord::Kind::kInstant;
        x.timestamp_ns = m->timestamp;
        x.id = m->id;
        if (m->name) x.name = m->name;
        if (m->domain) x.domain = m->domain;
        if (m->objectKind == CUPTI_ACTIVITY_OBJECT_THREAD || m->objectKind == CUPTI_ACTIVITY_OBJECT_PROCESS) {
          x.process_id = m->objectId.pt.processId;
          x.thread_id = m->objectId.pt.threadId;
        }
        out.markers.push_back(std::move(x));
        return;
      }
      case CUPTI_ACTIVITY_KIND_GRAPH_TRACE: {
        const auto* g = reinterpret_cast<const CUpti_ActivityGraphTrace2*>(r);
        GraphTraceRecord x;
        copy_span(*g, x);
        out.graph_traces.push_back(x);
        return;
      }
      default:
        ++out.other_records;
        return;
    }
  }

 private:
  const std::string& api_name(CUpti_CallbackDomain domain, std::uint32_t cbid) {
    const std::uint64_t key = (static_cast<std::uint64_t>(domain) << 32) | cbid;
    auto it = names_.find(key);
    if (it != names_.end()) return it->second;
    const char* name = nullptr;
    std::string text = (cupti().loaded() && cupti().cuptiGetCallbackName(domain, cbid, &name) == CUPTI_SUCCESS && name != nullptr)
                           ? strip_version_suffix(name)
                           : "cbid " + std::to_string(cbid);
    return names_.emplace(key, std::move(text)).first->second;
  }

  std::unordered_map<std::uint64_t, std::string> names_;
};

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

namespace {
// The test seam's mirror of copy_span / copy_activity: the shared fields of a synthetic GPU record.
template <typename Cupti>
void fill_span(const SyntheticCuptiRecord& r, Cupti& c) {
  c.start = r.start;
  c.end = r.end;
  c.deviceId = r.device;
  c.contextId = r.context;
  c.streamId = r.stream;
  c.correlationId = r.correlation;
  c.graphId = r.graph_id;
}

template <typename Cupti>
void fill_activity(const SyntheticCuptiRecord& r, Cupti& c) {
  fill_span(r, c);
  c.graphNodeId = r.graph_node_id;
}
}  // namespace

TraceData convert_synthetic_cupti_records(const std::vector<SyntheticCuptiRecord>& records) {
  TraceData out;
  Converter conv;
  for (const auto& r : records) {
    // Zeroed, 8-byte aligned storage big enough for any record kind used here.
    alignas(8) unsigned char raw[512];
    std::memset(raw, 0, sizeof raw);
    switch (r.kind) {
      case SyntheticCuptiRecord::Kind::kKernel: {
        static_assert(sizeof(CUpti_ActivityKernel10) <= sizeof raw, "buffer too small");
        auto* k = new (raw) CUpti_ActivityKernel10{};
        k->kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
        fill_activity(r, *k);
        k->name = r.name;
        k->gridX = r.grid[0], k->gridY = r.grid[1], k->gridZ = r.grid[2];
        k->blockX = r.block[0], k->blockY = r.block[1], k->blockZ = r.block[2];
        k->staticSharedMemory = r.static_shared;
        k->dynamicSharedMemory = r.dynamic_shared;
        k->registersPerThread = static_cast<uint16_t>(r.registers);
        conv.convert(reinterpret_cast<const CUpti_Activity*>(k), out);
        break;
      }
      case SyntheticCuptiRecord::Kind::kMemcpy: {
        auto* m = new (raw) CUpti_ActivityMemcpy6{};
        m->kind = CUPTI_ACTIVITY_KIND_MEMCPY;
        m->copyKind = r.copy_kind;
        m->bytes = r.bytes;
        fill_activity(r, *m);
        conv.convert(reinterpret_cast<const CUpti_Activity*>(m), out);
        break;
      }
      case SyntheticCuptiRecord::Kind::kMemset: {
        auto* m = new (raw) CUpti_ActivityMemset4{};
        m->kind = CUPTI_ACTIVITY_KIND_MEMSET;
        m->value = r.value;
        m->bytes = r.bytes;
        fill_activity(r, *m);
        conv.convert(reinterpret_cast<const CUpti_Activity*>(m), out);
        break;
      }
      case SyntheticCuptiRecord::Kind::kRuntime: {
        auto* a = new (raw) CUpti_ActivityAPI{};
        a->kind = CUPTI_ACTIVITY_KIND_RUNTIME;
        a->cbid = r.cbid;
        a->start = r.start;
        a->end = r.end;
        a->processId = r.pid;
        a->threadId = r.tid;
        a->correlationId = r.correlation;
        conv.convert(reinterpret_cast<const CUpti_Activity*>(a), out);
        break;
      }
      case SyntheticCuptiRecord::Kind::kMarker: {
        auto* m = new (raw) CUpti_ActivityMarker2{};
        m->kind = CUPTI_ACTIVITY_KIND_MARKER;
        m->flags = static_cast<CUpti_ActivityFlag>(r.marker_flags);
        m->timestamp = r.start;
        m->id = r.marker_id;
        m->objectKind = CUPTI_ACTIVITY_OBJECT_THREAD;
        m->objectId.pt.processId = r.pid;
        m->objectId.pt.threadId = r.tid;
        m->name = r.name;
        m->domain = r.domain;
        conv.convert(reinterpret_cast<const CUpti_Activity*>(m), out);
        break;
      }
      case SyntheticCuptiRecord::Kind::kGraphTrace: {
        auto* g = new (raw) CUpti_ActivityGraphTrace2{};
        g->kind = CUPTI_ACTIVITY_KIND_GRAPH_TRACE;
        fill_span(r, *g);
        conv.convert(reinterpret_cast<const CUpti_Activity*>(g), out);
        break;
      }
      case SyntheticCuptiRecord::Kind::kOther: {
        auto* a = new (raw) CUpti_ActivityAPI{};
        a->kind = CUPTI_ACTIVITY_KIND_OVERHEAD;
        conv.convert(reinterpret_cast<const CUpti_Activity*>(a), out);
        break;
      }
    }
  }
  return out;
}

}  // namespace gp
