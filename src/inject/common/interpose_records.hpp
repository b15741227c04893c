// The host-only part of the interposer (runtime_interpose.cpp, docs/profile.md "--observe
// interpose"): the record lines it writes, in the injection library's format (the top of
// src/profile/profile_records.cpp), and its book of graph launches per exec. No CUDA here: the
// CPU tests check that these lines read back as the injection's lines do
// (tests/unit/interpose_records_test.cpp). The lx, clock, capture_begin, capture_end and upload
// lines are the injection's own too (launch_watch.hpp and graphprof_inject.cpp write them with
// these functions).
//
// Times are CLOCK_REALTIME in ns, the clock CUPTI's records and the injection's lines use on
// Linux, so lines of both kinds (and the process line) are on one time axis. Correlation ids are
// the interposer's own counter: the analysis only joins lines of one process with each other.
#pragma once
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <utility>
#include <unordered_map>
#include <vector>

#include "record_lines.hpp"

namespace gp::interpose {

// The calls the interposer records, named as the injection names CUPTI's API records (CUPTI's
// name without its version suffix), so the analysis treats them alike. cuda.h renames some of
// these identifiers by macro (cuMemAlloc -> cuMemAlloc_v2) where it is included: no two may then
// meet (the recorded names are the strings below).
enum class Api : std::uint8_t {
  cudaLaunchKernel, cudaLaunchKernel_ptsz, __cudaLaunchKernel, __cudaLaunchKernel_ptsz, cudaLaunchKernelExC,
  cudaLaunchKernelExC_ptsz, cudaLaunchCooperativeKernel, cudaLaunchCooperativeKernel_ptsz, cudaGraphLaunch,
  cudaGraphLaunch_ptsz, cudaDeviceSynchronize, cudaStreamSynchronize, cudaStreamSynchronize_ptsz, cudaEventSynchronize,
  cudaMemcpy, cudaMemcpy2D, cudaMemset, cudaMalloc, cudaFree, cudaMallocHost, cudaFreeHost, cudaStreamQuery,
  cudaEventQuery, cudaGraphInstantiate, cudaGraphInstantiateWithFlags, cudaGraphInstantiateWithParams,
  cudaGraphInstantiateWithParams_ptsz, cudaGraphUpload, cudaGraphUpload_ptsz, cudaStreamBeginCapture,
  cudaStreamBeginCapture_ptsz, cudaStreamEndCapture, cudaStreamEndCapture_ptsz, cudaGraphExecUpdate,
  cudaGraphExecKernelNodeSetParams, cudaGraphExecNodeSetParams, cudaGraphExecMemcpyNodeSetParams,
  cudaGraphExecMemsetNodeSetParams, cudaGraphExecHostNodeSetParams, cudaGraphExecChildGraphNodeSetParams,
  cudaMemcpyAsync, cudaMemcpyAsync_ptsz, cudaMemcpy2DAsync, cudaMemcpy2DAsync_ptsz, cudaMemsetAsync, cudaMemsetAsync_ptsz,
  cudaLaunchHostFunc, cudaLaunchHostFunc_ptsz, cudaMallocAsync, cudaMallocAsync_ptsz, cudaFreeAsync, cudaFreeAsync_ptsz,
  cudaMallocFromPoolAsync, cudaMallocFromPoolAsync_ptsz, cudaMallocManaged,
  // driver API
  cuLaunchKernel, cuLaunchKernel_ptsz, cuLaunchKernelEx, cuLaunchKernelEx_ptsz, cuLaunchCooperativeKernel,
  cuLaunchCooperativeKernel_ptsz, cuGraphLaunch, cuGraphLaunch_ptsz, cuCtxSynchronize, cuStreamSynchronize,
  cuStreamSynchronize_ptsz, cuEventSynchronize, cuGraphInstantiateWithFlags, cuGraphInstantiateWithParams,
  cuGraphInstantiateWithParams_ptsz, cuGraphExecUpdate, cuGraphExecKernelNodeSetParams, cuGraphExecNodeSetParams,
  cuMemAlloc, cuMemFree, cuMemCreate,
  // driver API reached through cuGetProcAddress and dlsym (a static runtime, CuPy, XLA, Triton)
  cuStreamBeginCapture, cuStreamBeginCapture_ptsz, cuStreamEndCapture, cuStreamEndCapture_ptsz,
  cuGraphInstantiate_legacy,  // recorded as "cuGraphInstantiate" (cuda.h renames that identifier)
  cuGraphUpload, cuGraphUpload_ptsz, cuGraphExecMemcpyNodeSetParams, cuGraphExecMemsetNodeSetParams,
  cuGraphExecHostNodeSetParams, cuGraphExecChildGraphNodeSetParams, cuMemcpyAsync, cuMemcpyAsync_ptsz, cuMemcpyHtoDAsync,
  cuMemcpyHtoDAsync_ptsz, cuMemcpyDtoHAsync, cuMemcpyDtoHAsync_ptsz, cuMemcpyDtoDAsync, cuMemcpyDtoDAsync_ptsz,
  cuMemsetD8Async, cuMemsetD8Async_ptsz, cuMemsetD32Async, cuMemsetD32Async_ptsz, cuLaunchHostFunc, cuLaunchHostFunc_ptsz,
  cuMemcpyHtoD, cuMemcpyDtoH, cuMemAllocAsync, cuMemAllocAsync_ptsz, cuMemFreeAsync, cuMemFreeAsync_ptsz,
  cuMemAllocFromPoolAsync, cuMemAllocFromPoolAsync_ptsz, cuStreamQuery, cuStreamQuery_ptsz, cuEventQuery,
  kCount
};

const char* api_name(Api a);

inline bool is_driver(Api a) { return a >= Api::cuLaunchKernel; }

// Random sampling of calls, 1 in `every` on average, shared by the call sites' sample
// (call_site.cpp) and the interposer's timing of itself (interpose_api.cpp): after each sampled
// call, the number of calls to skip is drawn from the geometric distribution of mean every - 1
// (xorshift64*, seeded per thread from `seed` when `state` is 0), so no loop period can line up
// with the sample.
inline std::uint64_t geometric_gap(std::uint64_t& state, std::uint64_t seed, double every) {
  if (state == 0) state = (seed * 0x9e3779b97f4a7c15ull) | 1u;
  state ^= state >> 12;
  state ^= state << 25;
  state ^= state >> 27;
  const double u = static_cast<double>((state * 0x2545f4914f6cdd1dull) >> 11) * (1.0 / 9007199254740992.0);
  return every <= 1 ? 0 : static_cast<std::uint64_t>(__builtin_log1p(-u) / __builtin_log1p(-1.0 / every));
}

// What the injection library takes at a call besides its record (call_site.hpp): nothing; an eager
// call's site (launch, copy, memset, host function; sampled); a synchronising call's site (the
// GIL never taken for it); an allocation's site (neither); a capture's or an instantiation's site.
enum class SiteKind : int { kNone = 0, kEager = 1, kSync = 2, kAlloc = 3, kGraph = 4 };

SiteKind site_kind(Api a);

// The ledger samples' kinds, as gp::inject::Sample numbers them (graphprof_inject.cpp checks).
namespace ledger_at {
enum : int { kNoSample = 0, kCaptureBegin = 1, kCaptureEnd = 2, kInstantiateBegin = 3, kInstantiateEnd = 4, kUploadBegin = 5, kUploadEnd = 6 };
}  // namespace ledger_at

// What the injection library does for the interposer (runtime_interpose.cpp calls these; the
// injection hands them over in graphprof_interpose_begin). Plain C types only: the two libraries
// share no CUDA header and do not link each other.
struct Hooks {
  // At a call's entry, before the real call: its site (SiteKind as int; `api` its recorded name).
  void (*site)(const char* api, std::uint32_t correlation, int kind) = nullptr;
  // A ledger sample (gp::inject::Sample as int) around call `correlation`.
  void (*sample)(int at, std::uint32_t correlation) = nullptr;
  // The memory nodes of a graph just instantiated (the mem_nodes line).
  void (*memory_nodes)(void* graph, std::uint32_t graph_id, std::uint32_t exec_id) = nullptr;
};

// The memory ledger's allocation (op 1) or free (op 2), in the line CUPTI's MEMORY2 records are
// written as (mk 3: device memory; pt, pa: the pool, 0 where not known).
std::string memory_op_line(int op, int memory_kind, std::uint64_t bytes, std::uint64_t address, std::uint64_t ts,
                                  std::uint32_t co, std::uint32_t stream, bool is_async, int pool_type, std::uint64_t pool_address);

// cuMemCreate's physical allocation of `bytes` (the vmm line).
std::string vmm_line(std::uint32_t co, std::uint64_t ts, std::uint64_t bytes);

// One recorded call, kept in binary until the writer formats it.
struct ApiCall {
  Api api = Api::cudaLaunchKernel;
  int result = 0;
  std::uint32_t thread = 0, correlation = 0;
  std::uint64_t start_ns = 0, end_ns = 0;
};

using gp::records::append_u64;

// The `a` line of a call ("cb" 0: interposed calls have no CUPTI callback id; the analysis goes by
// the name). A driver error is a CUresult, a runtime error a cudaError_t, both written as the
// unsigned value CUPTI's records carry.
void append_api_line(std::string& s, const ApiCall& c, std::uint32_t pid);

std::string capture_begin_line(std::uint32_t stream, int mode, std::uint32_t co, int r);

std::string capture_end_line(std::uint32_t stream, std::uint32_t graph, std::uint32_t co, int r);

std::string upload_line(std::uint32_t exec, std::uint32_t co);

// The graph id a DOT dump of cuGraphDebugDotPrint carries: its "subgraph cluster_<G>" (the same
// id CUPTI gives the graph, which names its nodes graph_<G>_node_<i>); 0 when there is none.
std::uint32_t dot_graph_id(const std::string& text);

// The exec's pending correlation ids as an lx line (emptied): which launch ran which exec.
std::string lx_line(std::uint32_t exec_id, std::vector<std::uint32_t>& correlations);

// An exec's clock line: launches, first and last launch call's start, the return of the first
// synchronising call after the last (0: none).
std::string clock_line(std::uint32_t exec_id, std::uint64_t n, std::uint64_t first, std::uint64_t last,
                              std::uint64_t settled);

// Lines {"t":KIND,"co":[...],"ns":[...]} of (correlation id, value) pairs, `batch` pairs a line
// (the interposer's ic and gl lines); `pairs` is emptied.
template <typename V>
std::string correlated_lines(const char* kind, std::vector<std::pair<std::uint32_t, V>>& pairs, std::size_t batch) {
  std::string s;
  gp::records::write_correlated(s, kind, pairs, batch);
  return s;
}

// Graph launches per exec, as the injection's launch callbacks keep them (launch_watch.hpp): the
// count, the first and last launch call's start, the return of the first synchronising call after
// the last launch, and which launch (correlation id) ran which exec (lx lines, in batches).
// Not thread-safe: the caller holds a lock.
class LaunchBook {
 public:
  static constexpr std::size_t kBatch = 4096;

  // A new exec made at `handle` (an earlier exec at the same address was destroyed: its launches
  // stay in the book).
  void instantiated(const void* handle, std::uint32_t exec_id);

  // A launch of `handle`; returns an lx line when a batch is full (else empty). An exec whose
  // instantiation was not seen is kept under exec id 0.
  std::string launched(const void* handle, std::uint32_t correlation, std::uint64_t now_ns);

  // A synchronising call returned at `now_ns`: every exec launched since the previous one is settled.
  void synchronised(std::uint64_t now_ns);

  // An exec changed in place: a SetParams call on one of its nodes (`set_params`) or an exec
  // update. Counted per exec, written as ux lines (cumulative: the reader keeps the largest).
  void changed(const void* handle, bool set_params);

  // Launches of execs whose instantiation the interposer did not see.
  std::uint64_t unseen_launches() const;

  // The lx lines of the launches not yet written (the periodic flush: a killed process loses at
  // most what came after it).
  std::string pending_lines();

  // The pending lx lines and one clock line per exec that was launched (at the end).
  std::string final_lines();

 private:
  struct Exec {
    std::uint32_t exec_id = 0;
    std::uint64_t launches = 0, first_ns = 0, last_ns = 0, settled_ns = 0;
    bool unsettled = false;
    std::vector<std::uint32_t> correlations;
    std::uint64_t set_params = 0, updates = 0;
    bool changes_written = true;
  };

  Exec& exec_at(const void* handle);  // the book's entry of `handle` (exec id 0 where not seen)
  static std::string ux_line(Exec& e);

  std::vector<Exec> execs_;
  std::unordered_map<const void*, std::size_t> by_handle_;
  std::vector<std::size_t> unsettled_;
};

}  // namespace gp::interpose
