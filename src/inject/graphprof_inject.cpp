// libgraphprof_inject.so: the CUPTI injection library of `graphprof profile -- CMD`. The CUDA
// driver loads it into every process of the application that initialises CUDA, because graphprof
// sets CUDA_INJECTION64_PATH for the child, and calls InitializeInjection() once. The library then
// subscribes to CUPTI and streams what it sees, as one JSON object per line, into
// $GRAPHPROF_PROFILE_DIR/proc-<pid>.jsonl (child processes inherit the variables, so each process
// writes its own file). It dumps every instantiated graph with cuGraphDebugDotPrint from the
// graph-exec-created callback. graphprof reads the files after the application ends
// (src/profile/profile_records.cpp documents the line format; docs/profile.md the whole design).
//
// This is the second translation unit that includes cupti.h (the first is src/trace/cupti_session.cpp,
// inside graphprof itself); it is an entry point of its own, loaded into someone else's process, so
// it reads its settings from the environment and never throws, exits or prints to stdout.
//
// Facts relied on (H200, CUDA 13.0, see ../shared/reference/app-profiling.md):
//  - PyTorch loads its own libcupti.so.13; linking against the same SONAME shares that copy;
//  - CUPTI_CBID_RESOURCE_GRAPHEXEC_CREATED carries the original cudaGraph_t, which
//    cuGraphDebugDotPrint accepts inside the callback;
//  - kernel/memcpy/memset records carry graphId = exec id and graphNodeId = (exec id << 32) | index;
//    GRAPHNODE_CLONED maps exec nodes to the original graph's nodes, whose ids the DOT dump uses.
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <cupti.h>

#include <pthread.h>
#include <signal.h>
#include <sys/types.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstddef>
#include <chrono>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_set>

#include "graphprof/core/copy_kind.hpp"
#include "api_callbacks.hpp"
#include "call_site.hpp"
#include "cupti_clients.hpp"
#include "dev_switches.hpp"
#include "inject_output.hpp"
#include "launch_watch.hpp"
#include "ledger_samples.hpp"
#include "process_identity.hpp"
#include "recorded_apis.hpp"

#define GP_EXPORT __attribute__((visibility("default")))

namespace {

using namespace gp::inject;

constexpr std::size_t kBufferBytes = std::size_t{8} << 20;
constexpr int kDotVerbose = 1;  // CU_GRAPH_DEBUG_DOT_FLAGS_VERBOSE

// What graphprof asked for (GRAPHPROF_PROFILE_LEVEL): 0 none (graphs and API calls only),
// 1 graph (plus one span per graph launch), 2 node (plus kernels, copies and memsets: on a sample
// of the launches, GRAPHPROF_PROFILE_SAMPLE, or all); -1 clock (graph launches counted and timed
// only: the plain runs of --overhead).
int g_level = 2;
gp::NodeSampling g_sample_rule;  // GRAPHPROF_PROFILE_SAMPLE
bool g_dump_dot = true;
gp::inject::DevSwitches g_on;  // developer switches (GRAPHPROF_INJECT_OFF): all on for users
bool g_api_selected = false;   // only the calls of recorded_apis.hpp are recorded (outside captures)
std::string g_dir;

std::atomic<bool> g_end_written{false};
CUpti_SubscriberHandle g_subscriber = nullptr;
std::atomic<unsigned long long> g_lost_buffers{0};
std::atomic<unsigned long long> g_buffers_done{0};  // progress of a flush, for the exit wait

// The ownership probe (subscription_alive, flush_records): before its final flush the library
// calls cuDeviceGetCount, whose driver callback it enabled. The callback fires only while
// graphprof's subscriber is alive; the DRIVER activity record of that call comes back only while
// CUPTI still delivers activity buffers to graphprof with the DRIVER kind enabled. A missing
// callback or record means something only once the same callback or record was seen for the
// application's own cuDeviceGetCount (the CUDA runtime calls it when it starts).
bool g_probe_enabled = false;
thread_local bool t_probing = false;
std::atomic<bool> g_probe_fired{false};
std::atomic<std::uint32_t> g_probe_correlation{0};
std::atomic<bool> g_probe_record_seen{false};
std::atomic<bool> g_callback_proven{false};  // the application's cuDeviceGetCount reached the callback
std::atomic<bool> g_record_proven{false};    // ... and its DRIVER record reached this library

std::uint64_t now_ns() {
  uint64_t t = 0;
  if (cuptiGetTimestamp(&t) == CUPTI_SUCCESS) return t;
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<std::uint64_t>(ts.tv_nsec);
}

std::string cupti_error(CUptiResult r) {
  const char* name = nullptr;
  if (cuptiGetResultString(r, &name) != CUPTI_SUCCESS || name == nullptr) return "CUPTI error " + std::to_string(r);
  return name;
}

void write_error(const std::string& what) {
  std::string line = "{\"t\":\"error\",\"what\":";
  append_json_string(line, what.c_str());
  line += "}\n";
  write_lines(line, true);
}

static_assert(CUPTI_ACTIVITY_MEMCPY_KIND_HTOD == 1 && CUPTI_ACTIVITY_MEMCPY_KIND_DTOD == 8 &&
                  CUPTI_ACTIVITY_MEMCPY_KIND_PTOP == 10,
              "CUPTI renumbered its memcpy kinds: update include/graphprof/core/copy_kind.hpp");

// The GPU fields kernel, memcpy and memset records share, in the line format's short keys.
template <typename R>
void append_gpu_fields(std::string& s, const R& r) {
  appendf(s, "\"s\":%llu,\"e\":%llu,\"d\":%u,\"c\":%u,\"st\":%u,\"co\":%u,\"g\":%u,\"gn\":%llu",
          static_cast<unsigned long long>(r.start), static_cast<unsigned long long>(r.end), r.deviceId, r.contextId,
          r.streamId, r.correlationId, r.graphId, static_cast<unsigned long long>(r.graphNodeId));
}

// API names are looked up once per (domain, cbid), without CUPTI's "_v10000" suffix.
std::string api_name(CUpti_CallbackDomain domain, std::uint32_t cbid) {
  const char* name = nullptr;
  if (cuptiGetCallbackName(domain, cbid, &name) != CUPTI_SUCCESS || name == nullptr) return "cbid " + std::to_string(cbid);
  std::string n = name;
  const std::size_t v = n.rfind("_v");
  if (v != std::string::npos && v + 2 < n.size() && n.find_first_not_of("0123456789", v + 2) == std::string::npos) n.resize(v);
  return n;
}

void append_record(std::string& s, const CUpti_Activity* r) {
  switch (r->kind) {
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
      const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(r);
      s += "{\"t\":\"k\",\"n\":";
      append_json_string(s, k->name ? k->name : "(unnamed kernel)");
      s += ',';
      append_gpu_fields(s, *k);
      appendf(s, ",\"gr\":[%d,%d,%d],\"bl\":[%d,%d,%d],\"sh\":%d,\"rg\":%d}\n", k->gridX, k->gridY, k->gridZ, k->blockX,
              k->blockY, k->blockZ, k->staticSharedMemory + k->dynamicSharedMemory, k->registersPerThread);
      return;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
      const auto* m = reinterpret_cast<const CUpti_ActivityMemcpy6*>(r);
      appendf(s, "{\"t\":\"mc\",\"k\":\"%s\",\"b\":%llu,", gp::copy_kind_name(m->copyKind), static_cast<unsigned long long>(m->bytes));
      append_gpu_fields(s, *m);
      s += "}\n";
      return;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
      const auto* m = reinterpret_cast<const CUpti_ActivityMemset4*>(r);
      appendf(s, "{\"t\":\"ms\",\"v\":%u,\"b\":%llu,", m->value, static_cast<unsigned long long>(m->bytes));
      append_gpu_fields(s, *m);
      s += "}\n";
      return;
    }
    case CUPTI_ACTIVITY_KIND_RUNTIME:
    case CUPTI_ACTIVITY_KIND_DRIVER: {
      const auto* a = reinterpret_cast<const CUpti_ActivityAPI*>(r);
      const bool runtime = r->kind == CUPTI_ACTIVITY_KIND_RUNTIME;
      const std::uint32_t probe = g_probe_correlation.load();
      if (!runtime && a->cbid == CUPTI_DRIVER_TRACE_CBID_cuDeviceGetCount) {
        if (probe != 0 && a->correlationId == probe) {
          g_probe_record_seen = true;  // graphprof's own call, not the application's
          return;
        }
        g_record_proven = true;
      }
      static thread_local std::string names[2][1024];  // per domain, cbid < 1024 cached
      std::string local;
      const std::string* name = &local;
      if (a->cbid < 1024) {
        std::string& cached = names[runtime ? 0 : 1][a->cbid];
        if (cached.empty()) cached = api_name(runtime ? CUPTI_CB_DOMAIN_RUNTIME_API : CUPTI_CB_DOMAIN_DRIVER_API, a->cbid);
        name = &cached;
      } else {
        local = api_name(runtime ? CUPTI_CB_DOMAIN_RUNTIME_API : CUPTI_CB_DOMAIN_DRIVER_API, a->cbid);
      }
      s += "{\"t\":\"a\",\"n\":";
      append_json_string(s, name->c_str());
      appendf(s, ",\"cb\":%u,\"dr\":%d,\"s\":%llu,\"e\":%llu,\"p\":%u,\"th\":%u,\"co\":%u,\"r\":%u}\n", a->cbid,
              runtime ? 0 : 1, static_cast<unsigned long long>(a->start), static_cast<unsigned long long>(a->end),
              a->processId, a->threadId, a->correlationId, a->returnValue);
      return;
    }
    case CUPTI_ACTIVITY_KIND_GRAPH_TRACE: {
      const auto* g = reinterpret_cast<const CUpti_ActivityGraphTrace2*>(r);
      appendf(s, "{\"t\":\"gt\",\"co\":%u,\"g\":%u,\"s\":%llu,\"e\":%llu,\"d\":%u,\"c\":%u,\"st\":%u}\n", g->correlationId,
              g->graphId, static_cast<unsigned long long>(g->start), static_cast<unsigned long long>(g->end), g->deviceId,
              g->contextId, g->streamId);
      return;
    }
    case CUPTI_ACTIVITY_KIND_MEMORY2: {  // allocations and frees, cudaMallocAsync pools included (the memory ledger)
      const auto* m = reinterpret_cast<const CUpti_ActivityMemory4*>(r);
      appendf(s, "{\"t\":\"mem_op\",\"op\":%d,\"mk\":%d,\"b\":%llu,\"a\":%llu,\"ts\":%llu,\"co\":%u,\"st\":%u,\"async\":%u,\"pt\":%d,\"pa\":%llu}\n",
              static_cast<int>(m->memoryOperationType), static_cast<int>(m->memoryKind), static_cast<unsigned long long>(m->bytes),
              static_cast<unsigned long long>(m->address), static_cast<unsigned long long>(m->timestamp), m->correlationId,
              m->streamId, m->isAsync, static_cast<int>(m->memoryPoolConfig.memoryPoolType),
              static_cast<unsigned long long>(m->memoryPoolConfig.address));
      return;
    }
    default:
      return;
  }
}

// The activity buffers this library handed CUPTI. After the exit path takes the buffer callbacks
// back from an application that registered its own, CUPTI hands it that application's buffers
// too: their records are written like the others, but the buffers are not this library's to free
// (and they show that the application took the activity API).
std::mutex g_buffers_mu;
std::unordered_set<const uint8_t*> g_our_buffers;
std::atomic<bool> g_foreign_buffer_seen{false};

void CUPTIAPI on_buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, kBufferBytes));
  *size = *buffer != nullptr ? kBufferBytes : 0;
  *max_records = 0;
  if (*buffer != nullptr) {
    std::lock_guard<std::mutex> lock(g_buffers_mu);
    g_our_buffers.insert(*buffer);
  }
}

void CUPTIAPI on_buffer_completed(CUcontext context, uint32_t stream_id, uint8_t* buffer, size_t, size_t valid) {
  if (buffer != nullptr && g_on.write) {
    std::string lines;
    lines.reserve(valid + valid / 2);
    CUpti_Activity* record = nullptr;
    while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) append_record(lines, record);
    std::size_t dropped = 0;
    if (cuptiActivityGetNumDroppedRecords(context, stream_id, &dropped) == CUPTI_SUCCESS && dropped > 0)
      appendf(lines, "{\"t\":\"dropped\",\"n\":%zu}\n", dropped);
    if (!write_lines(lines, true)) ++g_lost_buffers;
  }
  bool ours = false;
  {
    std::lock_guard<std::mutex> lock(g_buffers_mu);
    ours = g_our_buffers.erase(buffer) > 0;
  }
  if (ours) std::free(buffer);
  else if (buffer != nullptr) g_foreign_buffer_seen = true;
  ++g_buffers_done;
}

std::uint32_t stream_id_of(CUcontext ctx, cudaStream_t stream) {
  uint32_t id = 0;
  if (ctx == nullptr || cuptiGetStreamIdEx(ctx, reinterpret_cast<CUstream>(stream), 0, &id) != CUPTI_SUCCESS) return 0;
  return id;
}

// The runtime call this thread is inside (callbacks enabled for a few graph APIs only): the
// graph-exec-created callback names the cudaGraphInstantiate call that made the exec.
thread_local std::uint32_t t_correlation = 0;

void dump_graph(CUgraph graph, std::uint32_t graph_id, std::uint32_t exec_id) {
  std::string line;
  size_t nodes = 0, edges = 0;
  if (cuGraphGetNodes(graph, nullptr, &nodes) != CUDA_SUCCESS) nodes = 0;
  if (cuGraphGetEdges(graph, nullptr, nullptr, nullptr, &edges) != CUDA_SUCCESS) edges = 0;
  std::string dot, dotv;
  if (g_dump_dot) {
    // One file per exec: the same graph instantiated twice is dumped twice (it may have changed).
    const std::string stem = "p" + std::to_string(::getpid()) + "-exec" + std::to_string(exec_id);
    const std::string a = g_dir + "/" + stem + ".dot", b = g_dir + "/" + stem + "_verbose.dot";
    if (cuGraphDebugDotPrint(graph, a.c_str(), 0) == CUDA_SUCCESS) dot = a;
    if (cuGraphDebugDotPrint(graph, b.c_str(), kDotVerbose) == CUDA_SUCCESS) dotv = b;
  }
  appendf(line, "{\"t\":\"exec\",\"exec\":%u,\"graph\":%u,\"nodes\":%zu,\"edges\":%zu,\"co\":%u,\"ts\":%llu,\"dot\":", exec_id,
          graph_id, nodes, edges, t_correlation, static_cast<unsigned long long>(now_ns()));
  append_json_string(line, dot.c_str());
  line += ",\"dot_verbose\":";
  append_json_string(line, dotv.c_str());
  line += "}\n";
  line += memory_nodes_line(graph, graph_id, exec_id);
  write_lines(line, true);
}

void on_runtime_callback(CUpti_CallbackId cbid, const CUpti_CallbackData* cd) {
  if (cd->callbackSite == CUPTI_API_ENTER) {
    t_correlation = cd->correlationId;
    // cudaGraphUpload and cudaGraphLaunch have the exec first in their parameters.
    const bool upload =
        cbid == CUPTI_RUNTIME_TRACE_CBID_cudaGraphUpload_v10000 || cbid == CUPTI_RUNTIME_TRACE_CBID_cudaGraphUpload_ptsz_v10000;
    const bool launch =
        cbid == CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000 || cbid == CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_ptsz_v10000;
    if (upload || launch) {
      static_assert(offsetof(cudaGraphUpload_v10000_params, graphExec) == 0, "exec first");
      static_assert(offsetof(cudaGraphLaunch_v10000_params, graphExec) == 0, "exec first");
      const auto* p = static_cast<const cudaGraphUpload_v10000_params*>(cd->functionParams);
      uint32_t exec = 0;
      if (p != nullptr && p->graphExec != nullptr &&
          cuptiGetGraphExecId(reinterpret_cast<CUgraphExec>(p->graphExec), &exec) == CUPTI_SUCCESS) {
        std::string line;
        appendf(line, "{\"t\":\"%s\",\"exec\":%u,\"co\":%u}\n", upload ? "upload" : "launch", exec, cd->correlationId);
        write_lines(line, false);
      }
    }
    return;
  }
  t_correlation = 0;
  const bool begin = cbid == CUPTI_RUNTIME_TRACE_CBID_cudaStreamBeginCapture_v10000 ||
                     cbid == CUPTI_RUNTIME_TRACE_CBID_cudaStreamBeginCapture_ptsz_v10000;
  const bool end = cbid == CUPTI_RUNTIME_TRACE_CBID_cudaStreamEndCapture_v10000 ||
                   cbid == CUPTI_RUNTIME_TRACE_CBID_cudaStreamEndCapture_ptsz_v10000;
  if (!begin && !end) return;
  const int ret = cd->functionReturnValue ? static_cast<int>(*static_cast<const cudaError_t*>(cd->functionReturnValue)) : 0;
  std::string line;
  if (begin) {
    const auto* p = static_cast<const cudaStreamBeginCapture_v10000_params*>(cd->functionParams);
    appendf(line, "{\"t\":\"capture_begin\",\"stream\":%u,\"mode\":%d,\"co\":%u,\"r\":%d}\n",
            p ? stream_id_of(cd->context, p->stream) : 0, p ? static_cast<int>(p->mode) : -1, cd->correlationId, ret);
  } else {
    const auto* p = static_cast<const cudaStreamEndCapture_v10000_params*>(cd->functionParams);
    uint32_t graph = 0;
    // Only a successful capture filled *pGraph; after a failed one it may be whatever the caller left.
    if (ret == 0 && p != nullptr && p->pGraph != nullptr && *p->pGraph != nullptr &&
        cuptiGetGraphId(reinterpret_cast<CUgraph>(*p->pGraph), &graph) != CUPTI_SUCCESS)
      graph = 0;
    appendf(line, "{\"t\":\"capture_end\",\"stream\":%u,\"graph\":%u,\"co\":%u,\"r\":%d}\n",
            p ? stream_id_of(cd->context, p->stream) : 0, graph, cd->correlationId, ret);
  }
  write_lines(line, true);
}

// What CUPTI itself tells its subscriber (errors, warnings; a fatal error makes CUPTI finalize
// itself): passed on to the report as it is, the first kMaxCuptiNotices of them.
constexpr int kMaxCuptiNotices = 20;
std::atomic<int> g_cupti_notices{0};

void on_state_callback(CUpti_CallbackId cbid, const CUpti_StateData* sd) {
  if (g_cupti_notices.fetch_add(1) >= kMaxCuptiNotices) return;
  const char* kind = cbid == CUPTI_CBID_STATE_FATAL_ERROR ? "fatal error"
                     : cbid == CUPTI_CBID_STATE_ERROR     ? "error"
                     : cbid == CUPTI_CBID_STATE_WARNING   ? "warning"
                                                          : "notice";
  std::string line;
  appendf(line, "{\"t\":\"cupti_notice\",\"kind\":\"%s\",\"r\":", kind);
  append_json_string(line, cupti_error(sd->notification.result).c_str());
  line += ",\"m\":";
  append_json_string(line, sd->notification.message != nullptr ? sd->notification.message : "");
  line += "}\n";
  write_lines(line, true);
}

void CUPTIAPI on_callback(void*, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* data) {
  if (data == nullptr) return;
  if (domain == CUPTI_CB_DOMAIN_STATE) {
    on_state_callback(cbid, static_cast<const CUpti_StateData*>(data));
    return;
  }
  if (domain == CUPTI_CB_DOMAIN_RUNTIME_API || domain == CUPTI_CB_DOMAIN_DRIVER_API) {  // call sites, ledger samples
    const auto* cd = static_cast<const CUpti_CallbackData*>(data);
    const bool driver = domain == CUPTI_CB_DOMAIN_DRIVER_API;
    gp::inject::on_api_call(driver, cbid, cd);  // api_callbacks.hpp (GRAPHPROF_PROFILE_API=callbacks)
    on_api_event(ApiEvent{driver, cbid, cd->callbackSite == CUPTI_API_ENTER, cd->correlationId, cd->functionName, cd->functionParams});
    if (driver && is_site_driver_callback(cbid)) return;
    if (gp::inject::on_launch_callback(driver, cbid, cd) && (driver || g_level != 0)) return;  // launch_watch.hpp
  }
  if (domain == CUPTI_CB_DOMAIN_DRIVER_API) {
    // Only cuDeviceGetCount is enabled in this domain: the ownership probe. The application's own
    // calls (rare: CUDA initialisation) pass through.
    const auto* cd = static_cast<const CUpti_CallbackData*>(data);
    if (!t_probing) {
      g_callback_proven = true;
    } else if (cd->callbackSite == CUPTI_API_ENTER) {
      g_probe_correlation = cd->correlationId;
      g_probe_fired = true;
    }
    return;
  }
  if (domain == CUPTI_CB_DOMAIN_RUNTIME_API) {
    on_runtime_callback(cbid, static_cast<const CUpti_CallbackData*>(data));
    return;
  }
  if (domain != CUPTI_CB_DOMAIN_RESOURCE) return;
  if (cbid == CUPTI_CBID_RESOURCE_CONTEXT_CREATED) {  // the GPU this process uses
    uint32_t ordinal = 0;
    const CUcontext context = static_cast<const CUpti_ResourceData*>(data)->context;
    if (context != nullptr && cuptiGetDeviceId(context, &ordinal) == CUPTI_SUCCESS) gp::inject::write_device_line(ordinal);
    return;
  }
  if (cbid != CUPTI_CBID_RESOURCE_GRAPHEXEC_CREATED && cbid != CUPTI_CBID_RESOURCE_GRAPHNODE_CLONED) return;
  const auto* rd = static_cast<const CUpti_ResourceData*>(data);
  const auto* gd = static_cast<const CUpti_GraphData*>(rd->resourceDescriptor);
  if (gd == nullptr) return;
  if (cbid == CUPTI_CBID_RESOURCE_GRAPHNODE_CLONED) {
    uint64_t clone = 0, original = 0;
    if (gd->node == nullptr || gd->originalNode == nullptr || cuptiGetGraphNodeId(gd->node, &clone) != CUPTI_SUCCESS ||
        cuptiGetGraphNodeId(gd->originalNode, &original) != CUPTI_SUCCESS)
      return;
    std::string line;
    appendf(line, "{\"t\":\"nm\",\"x\":%llu,\"o\":%llu}\n", static_cast<unsigned long long>(clone),
            static_cast<unsigned long long>(original));
    write_lines(line, false);
    return;
  }
  uint32_t exec = 0, graph = 0;
  if (gd->graphExec == nullptr || cuptiGetGraphExecId(gd->graphExec, &exec) != CUPTI_SUCCESS) return;
  if (gd->graph == nullptr || cuptiGetGraphId(gd->graph, &graph) != CUPTI_SUCCESS) return;
  dump_graph(gd->graph, graph, exec);
}


// What became of graphprof's CUPTI session by the end of the process: the end line's "cupti".
enum class CuptiAtEnd { kOurs, kFinalizedElsewhere, kActivityTaken, kTeardownTimedOut };

const char* cupti_at_end_id(CuptiAtEnd c) {
  switch (c) {
    case CuptiAtEnd::kOurs: return "graphprof";
    case CuptiAtEnd::kFinalizedElsewhere: return "finalized_elsewhere";
    case CuptiAtEnd::kActivityTaken: return "activity_taken";
    case CuptiAtEnd::kTeardownTimedOut: return "teardown_timeout";
  }
  return "graphprof";
}


// A remark of graphprof's about this process: in the records (the report's "warnings") and on
// stderr, marked as graphprof's.
void warn(const std::string& what) {
  std::string line = "{\"t\":\"warning\",\"what\":";
  append_json_string(line, what.c_str());
  line += "}\n";
  write_lines(line, true, std::chrono::seconds(2));
  std::fprintf(stderr, "graphprof profile: process %d: %s\n", static_cast<int>(::getpid()), what.c_str());
}

void warn_about(CuptiAtEnd c) {
  switch (c) {
    case CuptiAtEnd::kOurs:
    case CuptiAtEnd::kTeardownTimedOut:  // said where it happens
      return;
    case CuptiAtEnd::kFinalizedElsewhere:
      warn("the application used CUPTI itself: another CUPTI client in this process (its own profiler, or a tool "
           "that calls cuptiFinalize) ended graphprof's CUPTI session before the process exited. Graphs, API calls "
           "and GPU work after that moment were not recorded (the records CUPTI held then went to that client); "
           "the application itself ran normally");
      return;
    case CuptiAtEnd::kActivityTaken:
      warn("the application used CUPTI's activity API itself (its own profiler): from then on CUPTI delivered "
           "activity records to it (or, with the kinds it disabled, to no one), not to graphprof, so API calls and GPU "
           "work after that moment are missing (graph instantiations were still recorded, and what CUPTI still held "
           "at exit was taken back and is included); the application itself ran normally");
      return;
  }
}

// Whether graphprof's subscriber still receives callbacks. Another CUPTI client in the process
// (the application's own profiler) may have called cuptiFinalize, which ends every subscription
// and leaves graphprof's handle dangling. Then no CUPTI call at exit is graphprof's to make: a
// flush would re-initialise CUPTI during exit and hand buffers to that client's callbacks, an
// unsubscribe would use the dead handle (the old exit path, which did both, hung there on the
// H200). Calls no CUPTI function. Unproven probe: assumed alive, as before the probe existed.
bool subscription_alive() {
  if (!g_probe_enabled) return true;
  g_probe_fired = false;
  g_probe_record_seen = false;
  t_probing = true;
  int devices = 0;
  (void)cuDeviceGetCount(&devices);
  t_probing = false;
  return g_probe_fired.load() || !g_callback_proven.load();
}

// Delivers CUPTI's pending buffers to this library if the session is still graphprof's and, with
// `release`, lets CUPTI go. What became of the session is the result; `dropped` the records
// CUPTI dropped.
CuptiAtEnd flush_records(bool release, std::size_t& dropped) {
  dropped = 0;
  if (g_subscriber == nullptr) return CuptiAtEnd::kOurs;  // released already
  if (!subscription_alive()) {
    g_subscriber = nullptr;  // dead: never pass it to CUPTI again
    return CuptiAtEnd::kFinalizedElsewhere;
  }
  // The buffer callbacks are process-wide: an application that registered its own (its profiler)
  // would get this flush, perhaps after the objects behind them are gone (a Python callback after
  // the interpreter finished, a C++ object an earlier exit handler destroyed). Take them back first.
  (void)cuptiActivityRegisterCallbacks(on_buffer_requested, on_buffer_completed);
  (void)cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  (void)cuptiActivityGetNumDroppedRecords(nullptr, 0, &dropped);
  // The probe's own DRIVER record came back only if the application left the DRIVER kind enabled,
  // and no buffer of the application's came back only if it never registered callbacks of its own
  // (or they had delivered everything).
  const bool activity_ours = !g_foreign_buffer_seen.load() &&
                             (g_probe_record_seen.load() || !g_probe_fired.load() || !g_record_proven.load());
  if (release) {
    (void)cuptiUnsubscribe(g_subscriber);
    g_subscriber = nullptr;
    // CUDA 13.0 can crash while unloading CUPTI at exit unless it was finalized (shared reference
    // §3.3); the buffers are flushed by now. Also when the application's profiler took the
    // activity API: graphprof's subscription still held CUPTI, and the exit is under way.
    (void)cuptiFinalize();
  }
  return activity_ours ? CuptiAtEnd::kOurs : CuptiAtEnd::kActivityTaken;
}

// The last line of the records, written once. "probe" keeps what the ownership probe saw and
// "exit_ms" how long the final flush took, for diagnosis.
void write_end(const char* reason, CuptiAtEnd cupti, std::size_t dropped, double exit_ms) {
  bool expected = false;
  if (!g_end_written.compare_exchange_strong(expected, true)) return;
  const bool exiting = std::strcmp(reason, "exit") == 0;  // not in a signal handler: CUDA may be called
  flush_call_sites(exiting);
  write_lines(gp::inject::clock_lines(exiting) + gp::inject::refused_subscribers_line(), true,
              std::chrono::seconds(2));
  if (exiting && cupti == CuptiAtEnd::kOurs) take_sample(Sample::kEnd, 0);
  std::string line;
  appendf(line,
          "{\"t\":\"end\",\"reason\":\"%s\",\"ts\":%llu,\"dropped\":%zu,\"lost_buffers\":%llu,\"cupti\":\"%s\",\"exit_ms\":%.1f,"
          "\"probe\":{\"enabled\":%d,\"callback_proven\":%d,\"fired\":%d,\"record_proven\":%d,\"record_seen\":%d,\"foreign_buffer\":%d}}\n",
          reason, static_cast<unsigned long long>(realtime_ns()), dropped, g_lost_buffers.load(), cupti_at_end_id(cupti), exit_ms,
          g_probe_enabled ? 1 : 0, g_callback_proven.load() ? 1 : 0, g_probe_fired.load() ? 1 : 0, g_record_proven.load() ? 1 : 0,
          g_probe_record_seen.load() ? 1 : 0, g_foreign_buffer_seen.load() ? 1 : 0);
  write_lines(line, true, std::chrono::seconds(2));
}

// The exit work runs on a thread of its own, so that a CUPTI call that never returns (another
// client holding CUPTI, a lock of a thread that is gone) cannot hold the process: the exit handler
// waits while buffers keep arriving, gives up after kExitStallSeconds without progress (or
// kExitMaxSeconds in all) and then ends the process with the application's own exit status.
constexpr int kExitStallSeconds = 10;
constexpr int kExitMaxSeconds = 120;

struct Teardown {
  std::atomic<bool> done{false};
  CuptiAtEnd result = CuptiAtEnd::kOurs;
  std::size_t dropped = 0;
};
Teardown g_teardown;  // not on the handler's stack: the thread may outlive the handler

void* teardown_main(void*) {
  g_teardown.result = flush_records(true, g_teardown.dropped);
  g_teardown.done = true;
  return nullptr;
}

// Registered with on_exit, which passes the status the application gave exit().
void at_exit(int status, void*) {
  if (!in_profiled_process()) return;  // a fork() child inherits the exit handler
  gp::inject::stop_sampling(true);
  pthread_attr_t attr;
  pthread_t thread;
  bool started = pthread_attr_init(&attr) == 0;
  if (started) {
    started = pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED) == 0 &&
              pthread_create(&thread, &attr, teardown_main, nullptr) == 0;
    pthread_attr_destroy(&attr);
  }
  using clock = std::chrono::steady_clock;
  const auto begin = clock::now();
  if (!started) {
    teardown_main(nullptr);
  } else {
    auto last_progress = begin;
    unsigned long long buffers = g_buffers_done.load();
    while (!g_teardown.done.load()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
      const auto now = clock::now();
      if (g_buffers_done.load() != buffers) {
        buffers = g_buffers_done.load();
        last_progress = now;
      }
      if (now - last_progress > std::chrono::seconds(kExitStallSeconds) || now - begin > std::chrono::seconds(kExitMaxSeconds))
        break;
    }
  }
  if (!g_teardown.done.load()) {
    warn("CUPTI's final flush did not finish within " + std::to_string(kExitStallSeconds) +
         " s at exit (another CUPTI client in the process, such as the application's own profiler, may hold it): "
         "graphprof ended the process with the application's own exit status " + std::to_string(status) +
         "; records CUPTI still held are lost and the application's remaining exit handlers did not run");
    write_end("exit", CuptiAtEnd::kTeardownTimedOut, 0, std::chrono::duration<double, std::milli>(clock::now() - begin).count());
    std::fflush(nullptr);  // what the application printed still reaches its files
    _exit(status);
  }
  warn_about(g_teardown.result);
  write_end("exit", g_teardown.result, g_teardown.dropped, std::chrono::duration<double, std::milli>(clock::now() - begin).count());
}

struct sigaction g_previous[2];
volatile sig_atomic_t g_dying_signal = 0;

// SIGALRM while the signal handler below flushes: the flush hangs (on a lock the interrupted
// thread holds). The process ends by the signal it was given, as it would have without graphprof.
void on_stuck_flush(int) {
  const int sig = g_dying_signal;
  signal(sig, SIG_DFL);
  sigset_t pending;
  sigemptyset(&pending);
  sigaddset(&pending, sig);
  sigprocmask(SIG_UNBLOCK, &pending, nullptr);
  raise(sig);
  _exit(128 + sig);
}

// Installed only for signals whose disposition was the default (an application that handles
// SIGINT itself, like Python, ends through its own path and our exit handler). Not strictly
// async-signal-safe; the timed locks and the alarm bound the damage to losing the last records.
void on_signal(int sig) {
  if (!in_profiled_process()) {  // a fork() child: its parent's records are not its to write
    signal(sig, SIG_DFL);
    raise(sig);
    return;
  }
  g_dying_signal = sig;
  struct sigaction stuck {};
  stuck.sa_handler = on_stuck_flush;
  sigemptyset(&stuck.sa_mask);
  sigaction(SIGALRM, &stuck, nullptr);
  alarm(3);
  gp::inject::stop_sampling(false);
  std::size_t dropped = 0;
  const CuptiAtEnd cupti = flush_records(false, dropped);
  warn_about(cupti);
  write_end(sig == SIGINT ? "SIGINT" : "SIGTERM", cupti, dropped, 0);
  alarm(0);
  signal(sig, SIG_DFL);
  raise(sig);
}

void install_signal_handlers() {
  const int sigs[2] = {SIGINT, SIGTERM};
  for (int i = 0; i < 2; ++i) {
    struct sigaction current {};
    if (sigaction(sigs[i], nullptr, &current) != 0) continue;
    if (current.sa_handler != SIG_DFL || (current.sa_flags & SA_SIGINFO)) continue;
    struct sigaction sa {};
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(sigs[i], &sa, &g_previous[i]);
  }
}

std::string process_command_line() {
  std::string s;
  FILE* f = std::fopen("/proc/self/cmdline", "rb");
  if (f == nullptr) return s;
  char buf[4096];
  const std::size_t n = std::fread(buf, 1, sizeof buf, f);
  std::fclose(f);
  for (std::size_t i = 0; i < n; ++i) s += buf[i] == '\0' ? ' ' : buf[i];
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

constexpr CUpti_CallbackId kRuntimeCallbacks[] = {
    CUPTI_RUNTIME_TRACE_CBID_cudaStreamBeginCapture_v10000,    CUPTI_RUNTIME_TRACE_CBID_cudaStreamBeginCapture_ptsz_v10000,
    CUPTI_RUNTIME_TRACE_CBID_cudaStreamEndCapture_v10000,      CUPTI_RUNTIME_TRACE_CBID_cudaStreamEndCapture_ptsz_v10000,
    CUPTI_RUNTIME_TRACE_CBID_cudaGraphUpload_v10000,           CUPTI_RUNTIME_TRACE_CBID_cudaGraphUpload_ptsz_v10000,
    CUPTI_RUNTIME_TRACE_CBID_cudaGraphInstantiate_v10000,      CUPTI_RUNTIME_TRACE_CBID_cudaGraphInstantiate_v12000,
    CUPTI_RUNTIME_TRACE_CBID_cudaGraphInstantiateWithFlags_v11040,
    CUPTI_RUNTIME_TRACE_CBID_cudaGraphInstantiateWithParams_v12000,
    CUPTI_RUNTIME_TRACE_CBID_cudaGraphInstantiateWithParams_ptsz_v12000};

// Subscribes and enables everything; returns an empty string or why it could not.
std::string start_cupti() {
  CUptiResult r = cuptiSubscribe(&g_subscriber, reinterpret_cast<CUpti_CallbackFunc>(on_callback), nullptr);
  if (r != CUPTI_SUCCESS) {
    g_subscriber = nullptr;
    std::string why = "cuptiSubscribe returned " + cupti_error(r);
    if (r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED)
      why += ": another CUPTI client (a profiler such as Nsight Systems, or the application's own CUPTI use) "
             "already owns this process; graphprof cannot profile it at the same time";
    return why;
  }
  if (g_level < 0) {  // clock: the launch callbacks alone
    gp::inject::enable_launch_callbacks(g_subscriber);
    return {};
  }
  for (CUpti_CallbackId cb : {CUPTI_CBID_RESOURCE_GRAPHEXEC_CREATED, CUPTI_CBID_RESOURCE_GRAPHNODE_CLONED,
                              CUPTI_CBID_RESOURCE_CONTEXT_CREATED}) {
    if (!g_on.resource_cb) break;
    r = cuptiEnableCallback(1, g_subscriber, CUPTI_CB_DOMAIN_RESOURCE, cb);
    if (r != CUPTI_SUCCESS) return "cuptiEnableCallback(resource " + std::to_string(cb) + ") returned " + cupti_error(r);
  }
  for (CUpti_CallbackId cb : kRuntimeCallbacks) {
    if (!g_on.runtime_cb) break;
    r = cuptiEnableCallback(1, g_subscriber, CUPTI_CB_DOMAIN_RUNTIME_API, cb);
    if (r != CUPTI_SUCCESS) return "cuptiEnableCallback(runtime " + std::to_string(cb) + ") returned " + cupti_error(r);
  }
  // The ownership probe of the exit path (subscription_alive). Without it, the exit path assumes
  // the session is still graphprof's, as it is unless the application uses CUPTI itself.
  g_probe_enabled = g_on.probe && cuptiEnableCallback(1, g_subscriber, CUPTI_CB_DOMAIN_DRIVER_API,
                                                      CUPTI_DRIVER_TRACE_CBID_cuDeviceGetCount) == CUPTI_SUCCESS;
  // CUPTI's own errors and warnings (optional: older CUPTI has no such domain).
  if (g_on.state_cb) (void)cuptiEnableDomain(1, g_subscriber, CUPTI_CB_DOMAIN_STATE);
  // Graph launches counted and timed per exec (launch_watch.hpp; at --trace none also which exec
  // a launch ran, which nothing else tells), and node sampling's switch.
  if (g_on.launch_cb) gp::inject::enable_launch_callbacks(g_subscriber);
  const bool sampling = g_level >= 2 && g_on.gpu && !g_sample_rule.all && g_on.launch_cb;
  for (const bool driver : {false, true})  // call sites and ledger samples (call_site.hpp)
    for (const std::uint32_t cb : g_on.runtime_cb ? site_callback_ids(driver) : std::vector<std::uint32_t>{})
      (void)cuptiEnableCallback(1, g_subscriber, driver ? CUPTI_CB_DOMAIN_DRIVER_API : CUPTI_CB_DOMAIN_RUNTIME_API, cb);
  r = cuptiActivityRegisterCallbacks(on_buffer_requested, on_buffer_completed);
  if (r != CUPTI_SUCCESS) return "cuptiActivityRegisterCallbacks returned " + cupti_error(r);
  // CONCURRENT_KERNEL, never KERNEL: the latter serialises every kernel on the GPU.
  CUpti_ActivityKind kinds[7];
  int n = 0;
  // The API calls the analysis uses (recorded_apis.hpp), or, where CUPTI cannot select them, all.
  const char* api_mode = std::getenv("GRAPHPROF_PROFILE_API");
  if (g_on.api_filter && g_on.runtime && g_on.driver && api_mode != nullptr && std::strcmp(api_mode, "callbacks") == 0) {
    gp::inject::enable_api_callbacks(g_subscriber, ledger_recorded_ids(false), ledger_recorded_ids(true));
    g_api_selected = true;  // no RUNTIME or DRIVER kind
  } else if (g_on.api_filter && g_on.runtime && g_on.driver) {
    g_api_selected = gp::inject::enable_recorded_apis(ledger_recorded_ids(false), ledger_recorded_ids(true));
  }
  if (g_on.runtime && !g_api_selected) kinds[n++] = CUPTI_ACTIVITY_KIND_RUNTIME;
  if (g_on.runtime) kinds[n++] = CUPTI_ACTIVITY_KIND_MEMORY2;  // allocations: the memory ledger
  if (g_on.driver && !g_api_selected) kinds[n++] = CUPTI_ACTIVITY_KIND_DRIVER;  // Triton and other direct driver launches
  if ((g_level == 1 || sampling) && g_on.gpu) kinds[n++] = CUPTI_ACTIVITY_KIND_GRAPH_TRACE;
  if (g_level >= 2 && g_on.gpu) {  // with sampling, GRAPH_TRACE decides which graph launches get them
    kinds[n++] = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
    kinds[n++] = CUPTI_ACTIVITY_KIND_MEMCPY;
    kinds[n++] = CUPTI_ACTIVITY_KIND_MEMSET;
  }
  for (int i = 0; i < n; ++i) {
    r = cuptiActivityEnable(kinds[i]);
    if (r != CUPTI_SUCCESS) return "cuptiActivityEnable(kind " + std::to_string(static_cast<int>(kinds[i])) + ") returned " + cupti_error(r);
  }
  if (sampling && !gp::inject::start_sampling(g_sample_rule)) warn("node sampling's window thread did not start: every launch is traced");
  // Hand over full buffers every half second (CUPTI's periodic flush returns only full ones), so
  // a busy process that is killed leaves all but its last buffer.
  (void)cuptiActivityFlushPeriod(500);
  return {};
}

}  // namespace

// Called by the CUDA driver at initialisation in every process where CUDA_INJECTION64_PATH names
// this library. Returns 1 (success) even when profiling cannot start: the application must run.
extern "C" GP_EXPORT int InitializeInjection(void) {
  static std::atomic<bool> once{false};
  if (once.exchange(true)) return 1;
  const char* dir = std::getenv("GRAPHPROF_PROFILE_DIR");
  if (dir == nullptr || *dir == '\0') return 1;
  g_dir = dir;
  set_profiled_pid(::getpid());
  if (const char* level = std::getenv("GRAPHPROF_PROFILE_LEVEL")) {
    if (std::strcmp(level, "none") == 0) g_level = 0;
    else if (std::strcmp(level, "graph") == 0) g_level = 1;
    else if (std::strcmp(level, "clock") == 0) g_level = -1;
    else g_level = 2;
  }
  if (const char* dot = std::getenv("GRAPHPROF_PROFILE_DOT")) g_dump_dot = std::strcmp(dot, "0") != 0;
  g_on = gp::inject::DevSwitches::parse(std::getenv("GRAPHPROF_INJECT_OFF"));
  if (const char* sample = std::getenv("GRAPHPROF_PROFILE_SAMPLE")) (void)gp::NodeSampling::parse(sample, g_sample_rule);
  const std::string path = g_dir + "/proc-" + std::to_string(::getpid()) + ".jsonl";
  if (!open_output(path)) {
    std::fprintf(stderr, "graphprof profile: cannot write %s: %s\n", path.c_str(), std::strerror(errno));
    return 1;
  }
  uint32_t version = 0;
  (void)cuptiGetVersion(&version);
  std::string line;
  appendf(line, "{\"t\":\"process\",\"pid\":%d,\"ppid\":%d,\"ts\":%llu,\"cupti\":%u,\"level\":%d,\"sample\":\"%s\",\"cmdline\":",
          static_cast<int>(::getpid()), static_cast<int>(::getppid()), static_cast<unsigned long long>(now_ns()), version,
          g_level, g_level >= 2 ? g_sample_rule.text().c_str() : "");
  append_json_string(line, process_command_line().c_str());
  line += "}\n";
  write_lines(line, true);
  gp::inject::write_rank_line();
  init_call_sites();
  write_lines(process_start_line(), true);
  if (g_on.any_off() || !g_on.unknown.empty())
    warn(std::string("developer switches GRAPHPROF_INJECT_OFF=") + std::getenv("GRAPHPROF_INJECT_OFF") +
         " left pieces of the injection out (for measuring their cost): this profile is incomplete" +
         (g_on.unknown.empty() ? "" : "; unknown names ignored: " + g_on.unknown));
  if (!g_on.cupti) return 1;
  const std::string why = start_cupti();
  if (!why.empty()) {
    write_error(why);
    std::fprintf(stderr, "graphprof profile: process %d is not profiled: %s\n", static_cast<int>(::getpid()), why.c_str());
    if (g_subscriber != nullptr) (void)cuptiUnsubscribe(g_subscriber);
    g_subscriber = nullptr;
    return 1;
  }
  on_exit(at_exit, nullptr);
  install_signal_handlers();
  return 1;
}
