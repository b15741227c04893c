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

#include <dlfcn.h>
#include <execinfo.h>
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

#include "activity_records.hpp"
#include "call_site.hpp"
#include "dev_switches.hpp"
#include "exit_path.hpp"
#include "graphprof/core/copy_kind.hpp"
#include "inject_output.hpp"
#include "inject_state.hpp"
#include "interpose_records.hpp"
#include "launch_watch.hpp"
#include "ledger_samples.hpp"
#include "nvtx_steps.hpp"
#include "observe_choice.hpp"
#include "process_identity.hpp"
#include "record_lines.hpp"
#include "recorded_apis.hpp"

#define GP_EXPORT __attribute__((visibility("default")))

namespace {

using namespace gp::inject;

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
  gp::records::write(line, gp::records::ExecLine{exec_id, graph_id, nodes, edges, t_correlation, now_ns(), dot, dotv});
  line += memory_nodes_line(graph, graph_id, exec_id);
  write_lines(line, true);
}

void on_runtime_callback(CUpti_CallbackId cbid, const CUpti_CallbackData* cd) {
  if (cd->callbackSite == CUPTI_API_ENTER) {
    t_correlation = cd->correlationId;
    // Which exec an upload is of (a launch's: launch_watch.hpp).
    if (cbid == CUPTI_RUNTIME_TRACE_CBID_cudaGraphUpload_v10000 || cbid == CUPTI_RUNTIME_TRACE_CBID_cudaGraphUpload_ptsz_v10000) {
      static_assert(offsetof(cudaGraphUpload_v10000_params, graphExec) == 0, "exec first");
      const auto* p = static_cast<const cudaGraphUpload_v10000_params*>(cd->functionParams);
      uint32_t exec = 0;
      if (p != nullptr && p->graphExec != nullptr &&
          cuptiGetGraphExecId(reinterpret_cast<CUgraphExec>(p->graphExec), &exec) == CUPTI_SUCCESS) {
        write_lines(gp::interpose::upload_line(exec, cd->correlationId), false);
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
    line = gp::interpose::capture_begin_line(p ? stream_id_of(cd->context, p->stream) : 0, p ? static_cast<int>(p->mode) : -1,
                                             cd->correlationId, ret);
  } else {
    const auto* p = static_cast<const cudaStreamEndCapture_v10000_params*>(cd->functionParams);
    uint32_t graph = 0;
    // Only a successful capture filled *pGraph; after a failed one it may be whatever the caller left.
    if (ret == 0 && p != nullptr && p->pGraph != nullptr && *p->pGraph != nullptr &&
        cuptiGetGraphId(reinterpret_cast<CUgraph>(*p->pGraph), &graph) != CUPTI_SUCCESS)
      graph = 0;
    line = gp::interpose::capture_end_line(p ? stream_id_of(cd->context, p->stream) : 0, graph, cd->correlationId, ret);
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
  gp::records::write(line, gp::records::CuptiNoticeLine{kind, cupti_error(sd->notification.result),
                                                        sd->notification.message != nullptr ? sd->notification.message : ""});
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
    on_api_event(ApiEvent{driver, cbid, cd->callbackSite == CUPTI_API_ENTER, cd->correlationId, cd->functionName, cd->functionParams});
    if (driver && is_site_driver_callback(cbid)) return;
    if (gp::inject::on_sync_callback(driver, cbid, cd) || gp::inject::on_launch_callback(driver, cbid, cd)) return;  // launch_watch.hpp
  }
  if (domain == CUPTI_CB_DOMAIN_DRIVER_API) {
    // Only cuDeviceGetCount is left in this domain: the ownership probe. The application's own
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
    gp::records::write(line, gp::records::NodeCloneLine{clone, original});
    write_lines(line, false);
    return;
  }
  uint32_t exec = 0, graph = 0;
  if (gd->graphExec == nullptr || cuptiGetGraphExecId(gd->graphExec, &exec) != CUPTI_SUCCESS) return;
  if (gd->graph == nullptr || cuptiGetGraphId(gd->graph, &graph) != CUPTI_SUCCESS) return;
  dump_graph(gd->graph, graph, exec);
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
  if (g_level < 0) {  // clock: the launch and synchronisation callbacks alone
    gp::inject::enable_launch_callbacks(g_subscriber);
    return {};
  }
  gp::inject::keep_launch_correlations(g_level == 0);  // which exec each launch ran: lx lines (launch_watch.hpp)
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
  // Graph launches counted and timed per exec, the synchronisations after them (launch_watch.hpp;
  // at --trace none also which exec a launch ran, which nothing else tells), and node sampling's switch.
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
  if (g_on.api_filter && g_on.runtime && g_on.driver)
    g_api_selected = gp::inject::enable_recorded_apis(ledger_recorded_ids(false), ledger_recorded_ids(true));
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

// --observe interpose (docs/profile.md): the preloaded interposer (runtime_interpose.cpp) records
// the process at --trace none instead of CUPTI, where it can see the calls. Its functions are found
// with dlsym: the two libraries do not link each other.
using InterposeReadyFn = int (*)();
using InterposeWriteFn = int (*)(const char*, std::size_t, int);
using InterposeBeginFn = int (*)(InterposeWriteFn, const char*, int, const gp::interpose::Hooks*);
using InterposeEndFn = void (*)(int);

int interpose_write(const char* data, std::size_t size, int flush) {
  return write_lines(std::string(data, size), flush != 0) ? 1 : 0;
}

// What the injection does for the interposer: the call sites and the ledger's samples and memory
// nodes, as it does in its CUPTI callbacks.
static_assert(static_cast<int>(gp::inject::Sample::kCaptureBegin) == gp::interpose::ledger_at::kCaptureBegin &&
                  static_cast<int>(gp::inject::Sample::kUploadEnd) == gp::interpose::ledger_at::kUploadEnd,
              "the interposer numbers the ledger samples as gp::inject::Sample does");
static_assert(static_cast<int>(gp::interpose::SiteKind::kEager) == gp::inject::kSiteEager &&
                  static_cast<int>(gp::interpose::SiteKind::kGraph) == gp::inject::kSiteGraph,
              "the interposer numbers the site kinds as call_site.hpp does");
void interposed_sample(int at, std::uint32_t co) {
  gp::inject::take_sample(static_cast<gp::inject::Sample>(at), co);
}
void interposed_memory_nodes(void* graph, std::uint32_t graph_id, std::uint32_t exec_id) {
  const std::string line = gp::inject::memory_nodes_line(graph, graph_id, exec_id);
  if (!line.empty()) write_lines(line, false);
}

// Whether CUDA is being initialised from the shared runtime: the driver calls InitializeInjection
// inside cuInit, on the stack of the call that started CUDA. A statically linked runtime's frames
// are in the program (or the library that carries it), not in a libcudart.so.
bool initialised_from_shared_runtime(std::string& modules) {
  void* frames[64];
  const int n = backtrace(frames, 64);
  for (int i = 0; i < n; ++i) {
    Dl_info info{};
    if (dladdr(frames[i], &info) == 0 || info.dli_fname == nullptr) continue;
    const char* base = std::strrchr(info.dli_fname, '/');
    base = base != nullptr ? base + 1 : info.dli_fname;
    if (std::strncmp(base, "libcudart.so", 12) == 0) return true;
    if (modules.find(base) == std::string::npos) modules += std::string(modules.empty() ? "" : ", ") + base;
  }
  return false;
}

gp::inject::ObserveChoice choose_observer_here() {
  gp::inject::ObserveFacts f;
  f.level = g_level;
  const char* observe = std::getenv("GRAPHPROF_PROFILE_OBSERVE");
  f.asked = observe != nullptr && std::strcmp(observe, "interpose") == 0;
  if (!f.asked) return {};
  const auto ready = reinterpret_cast<InterposeReadyFn>(dlsym(RTLD_DEFAULT, "graphprof_interpose_ready"));
  f.interposer_loaded = ready != nullptr && dlsym(RTLD_DEFAULT, "graphprof_interpose_begin") != nullptr &&
                        dlsym(RTLD_DEFAULT, "graphprof_interpose_end") != nullptr;
  f.interposer_ready = f.interposer_loaded && ready() == 1;
  using SeesDlsymFn = int (*)();
  const auto sees = reinterpret_cast<SeesDlsymFn>(dlsym(RTLD_DEFAULT, "graphprof_interpose_sees_dlsym"));
  f.driver_lookups = f.interposer_loaded && sees != nullptr && sees() == 1;
  std::string modules;  // of the initialising call's stack, said when none is the shared runtime
  f.shared_runtime_caller = f.interposer_ready && initialised_from_shared_runtime(modules);
  gp::inject::ObserveChoice c = gp::inject::choose_observer(f);
  if (f.interposer_ready && !f.shared_runtime_caller) {
    const std::string stack = " (the stack of CUDA's initialisation: " + modules + ")";
    (c.interpose ? c.why_at : c.why_not) += stack;
  }
  return c;
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
  init_call_sites();
  const gp::inject::ObserveChoice observe = choose_observer_here();
  // Interposed, the library makes no CUPTI call at all (not even for the version or the clock).
  uint32_t version = 0;
  if (!observe.interpose) (void)cuptiGetVersion(&version);
  gp::records::ProcessLine process;
  process.pid = static_cast<int>(::getpid());
  process.ppid = static_cast<int>(::getppid());
  process.ts = observe.interpose ? realtime_ns() : now_ns();
  process.cupti = version;
  process.level = g_level;
  process.sample = g_level >= 2 ? g_sample_rule.text() : "";
  process.observed = observe.interpose ? "interpose" : "cupti";
  process.cmdline = process_command_line();
  if (observe.interpose) {
    process.observed_at = observe.at;
    process.observed_at_why = observe.why_at;
  }
  if (!observe.why_not.empty()) process.observe_note = "not interposed: " + observe.why_not;
  std::string line;
  gp::records::write(line, process);
  write_lines(line, true);
  gp::inject::write_rank_line();
  gp::inject::init_step_ranges();
  write_lines(process_start_line(), true);
  if (g_on.any_off() || !g_on.unknown.empty())
    warn(std::string("developer switches GRAPHPROF_INJECT_OFF=") + std::getenv("GRAPHPROF_INJECT_OFF") +
         " left pieces of the injection out (for measuring their cost): this profile is incomplete" +
         (g_on.unknown.empty() ? "" : "; unknown names ignored: " + g_on.unknown));
  if (observe.interpose) {
    const auto begin = reinterpret_cast<InterposeBeginFn>(dlsym(RTLD_DEFAULT, "graphprof_interpose_begin"));
    const auto end = reinterpret_cast<InterposeEndFn>(dlsym(RTLD_DEFAULT, "graphprof_interpose_end"));
    gp::interpose::Hooks hooks;
    hooks.site = gp::inject::on_interposed_call;
    hooks.sample = interposed_sample;
    hooks.memory_nodes = interposed_memory_nodes;
    if (begin(interpose_write, g_dir.c_str(), g_dump_dot ? 1 : 0, &hooks) != 1) {
      write_error("the interposer could not start its writer thread: this process is not profiled");
      return 1;
    }
    g_interposer_end = end;
    on_exit(at_exit, nullptr);
    install_signal_handlers();
    return 1;
  }
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
