// The interposer's host-only part: its record lines and its book of graph launches
// (interpose_records.hpp).
#include "interpose_records.hpp"

#include <cstdio>
#include <cstring>

namespace gp::interpose {

const char* api_name(Api a) {
  static const char* const kNames[] = {
      "cudaLaunchKernel", "cudaLaunchKernel_ptsz", "__cudaLaunchKernel", "__cudaLaunchKernel_ptsz", "cudaLaunchKernelExC",
      "cudaLaunchKernelExC_ptsz", "cudaLaunchCooperativeKernel", "cudaLaunchCooperativeKernel_ptsz", "cudaGraphLaunch",
      "cudaGraphLaunch_ptsz", "cudaDeviceSynchronize", "cudaStreamSynchronize", "cudaStreamSynchronize_ptsz",
      "cudaEventSynchronize", "cudaMemcpy", "cudaMemcpy2D", "cudaMemset", "cudaMalloc", "cudaFree", "cudaMallocHost",
      "cudaFreeHost", "cudaStreamQuery", "cudaEventQuery", "cudaGraphInstantiate", "cudaGraphInstantiateWithFlags",
      "cudaGraphInstantiateWithParams", "cudaGraphInstantiateWithParams_ptsz", "cudaGraphUpload", "cudaGraphUpload_ptsz",
      "cudaStreamBeginCapture", "cudaStreamBeginCapture_ptsz", "cudaStreamEndCapture", "cudaStreamEndCapture_ptsz",
      "cudaGraphExecUpdate", "cudaGraphExecKernelNodeSetParams", "cudaGraphExecNodeSetParams",
      "cudaGraphExecMemcpyNodeSetParams", "cudaGraphExecMemsetNodeSetParams", "cudaGraphExecHostNodeSetParams",
      "cudaGraphExecChildGraphNodeSetParams", "cudaMemcpyAsync", "cudaMemcpyAsync_ptsz", "cudaMemcpy2DAsync",
      "cudaMemcpy2DAsync_ptsz", "cudaMemsetAsync", "cudaMemsetAsync_ptsz", "cudaLaunchHostFunc", "cudaLaunchHostFunc_ptsz",
      "cudaMallocAsync", "cudaMallocAsync_ptsz", "cudaFreeAsync", "cudaFreeAsync_ptsz", "cudaMallocFromPoolAsync",
      "cudaMallocFromPoolAsync_ptsz", "cudaMallocManaged", "cuLaunchKernel", "cuLaunchKernel_ptsz", "cuLaunchKernelEx",
      "cuLaunchKernelEx_ptsz", "cuLaunchCooperativeKernel", "cuLaunchCooperativeKernel_ptsz", "cuGraphLaunch",
      "cuGraphLaunch_ptsz", "cuCtxSynchronize", "cuStreamSynchronize", "cuStreamSynchronize_ptsz", "cuEventSynchronize",
      "cuGraphInstantiateWithFlags", "cuGraphInstantiateWithParams", "cuGraphInstantiateWithParams_ptsz",
      "cuGraphExecUpdate", "cuGraphExecKernelNodeSetParams", "cuGraphExecNodeSetParams", "cuMemAlloc", "cuMemFree",
      "cuMemCreate", "cuStreamBeginCapture", "cuStreamBeginCapture_ptsz", "cuStreamEndCapture", "cuStreamEndCapture_ptsz",
      "cuGraphInstantiate", "cuGraphUpload", "cuGraphUpload_ptsz", "cuGraphExecMemcpyNodeSetParams",
      "cuGraphExecMemsetNodeSetParams", "cuGraphExecHostNodeSetParams", "cuGraphExecChildGraphNodeSetParams", "cuMemcpyAsync",
      "cuMemcpyAsync_ptsz", "cuMemcpyHtoDAsync", "cuMemcpyHtoDAsync_ptsz", "cuMemcpyDtoHAsync", "cuMemcpyDtoHAsync_ptsz",
      "cuMemcpyDtoDAsync", "cuMemcpyDtoDAsync_ptsz", "cuMemsetD8Async", "cuMemsetD8Async_ptsz", "cuMemsetD32Async",
      "cuMemsetD32Async_ptsz", "cuLaunchHostFunc", "cuLaunchHostFunc_ptsz", "cuMemcpyHtoD", "cuMemcpyDtoH", "cuMemAllocAsync",
      "cuMemAllocAsync_ptsz", "cuMemFreeAsync", "cuMemFreeAsync_ptsz", "cuMemAllocFromPoolAsync",
      "cuMemAllocFromPoolAsync_ptsz", "cuStreamQuery", "cuStreamQuery_ptsz", "cuEventQuery"};
  static_assert(sizeof kNames / sizeof kNames[0] == static_cast<std::size_t>(Api::kCount), "one name per call");
  return kNames[static_cast<std::size_t>(a)];
}

SiteKind site_kind(Api a) {
  switch (a) {
    case Api::cudaLaunchKernel: case Api::cudaLaunchKernel_ptsz: case Api::__cudaLaunchKernel:
    case Api::__cudaLaunchKernel_ptsz: case Api::cudaLaunchKernelExC: case Api::cudaLaunchKernelExC_ptsz:
    case Api::cudaLaunchCooperativeKernel: case Api::cudaLaunchCooperativeKernel_ptsz: case Api::cudaMemcpy:
    case Api::cudaMemcpy2D: case Api::cudaMemset: case Api::cudaMemcpyAsync: case Api::cudaMemcpyAsync_ptsz:
    case Api::cudaMemcpy2DAsync: case Api::cudaMemcpy2DAsync_ptsz: case Api::cudaMemsetAsync: case Api::cudaMemsetAsync_ptsz:
    case Api::cudaLaunchHostFunc: case Api::cudaLaunchHostFunc_ptsz: case Api::cuLaunchKernel: case Api::cuLaunchKernel_ptsz:
    case Api::cuLaunchKernelEx: case Api::cuLaunchKernelEx_ptsz: case Api::cuLaunchCooperativeKernel:
    case Api::cuLaunchCooperativeKernel_ptsz: case Api::cuMemcpyAsync: case Api::cuMemcpyAsync_ptsz:
    case Api::cuMemcpyHtoDAsync: case Api::cuMemcpyHtoDAsync_ptsz: case Api::cuMemcpyDtoHAsync: case Api::cuMemcpyDtoHAsync_ptsz:
    case Api::cuMemcpyDtoDAsync: case Api::cuMemcpyDtoDAsync_ptsz: case Api::cuMemsetD8Async: case Api::cuMemsetD8Async_ptsz:
    case Api::cuMemsetD32Async: case Api::cuMemsetD32Async_ptsz: case Api::cuLaunchHostFunc: case Api::cuLaunchHostFunc_ptsz:
    case Api::cuMemcpyHtoD: case Api::cuMemcpyDtoH:
      return SiteKind::kEager;
    case Api::cudaDeviceSynchronize: case Api::cudaStreamSynchronize: case Api::cudaStreamSynchronize_ptsz:
    case Api::cudaEventSynchronize: case Api::cuCtxSynchronize: case Api::cuStreamSynchronize:
    case Api::cuStreamSynchronize_ptsz: case Api::cuEventSynchronize:
      return SiteKind::kSync;
    case Api::cudaMalloc: case Api::cudaMallocAsync: case Api::cudaMallocAsync_ptsz: case Api::cudaMallocFromPoolAsync:
    case Api::cudaMallocFromPoolAsync_ptsz: case Api::cudaMallocManaged: case Api::cuMemAlloc: case Api::cuMemCreate:
    case Api::cuMemAllocAsync: case Api::cuMemAllocAsync_ptsz: case Api::cuMemAllocFromPoolAsync:
    case Api::cuMemAllocFromPoolAsync_ptsz:
      return SiteKind::kAlloc;
    case Api::cudaStreamBeginCapture: case Api::cudaStreamBeginCapture_ptsz: case Api::cudaGraphInstantiate:
    case Api::cudaGraphInstantiateWithFlags: case Api::cudaGraphInstantiateWithParams:
    case Api::cudaGraphInstantiateWithParams_ptsz: case Api::cuGraphInstantiateWithFlags:
    case Api::cuGraphInstantiateWithParams: case Api::cuGraphInstantiateWithParams_ptsz: case Api::cuStreamBeginCapture:
    case Api::cuStreamBeginCapture_ptsz: case Api::cuGraphInstantiate_legacy:
      return SiteKind::kGraph;
    default:
      return SiteKind::kNone;
  }
}

std::string memory_op_line(int op, int memory_kind, std::uint64_t bytes, std::uint64_t address, std::uint64_t ts,
                           std::uint32_t co, std::uint32_t stream, bool is_async, int pool_type, std::uint64_t pool_address) {
  std::string s;
  records::write(s, records::MemoryOpLine{op, memory_kind, bytes, address, ts, co, stream, is_async, pool_type, pool_address});
  return s;
}

std::string vmm_line(std::uint32_t co, std::uint64_t ts, std::uint64_t bytes) {
  std::string s;
  records::write(s, records::VmmLine{co, ts, bytes});
  return s;
}

void append_api_line(std::string& s, const ApiCall& c, std::uint32_t pid) {
  records::ApiLine a;
  a.name = api_name(c.api);
  a.driver = is_driver(c.api);
  a.start = c.start_ns;
  a.end = c.end_ns < c.start_ns ? c.start_ns : c.end_ns;
  a.process = pid;
  a.thread = c.thread;
  a.correlation = c.correlation;
  a.result = static_cast<std::uint32_t>(c.result);
  records::write(s, a);
}

std::string capture_begin_line(std::uint32_t stream, int mode, std::uint32_t co, int r) {
  std::string s;
  records::CaptureLine c;
  c.stream = stream;
  c.mode = mode;
  c.correlation = co;
  c.result = r;
  records::write(s, c);
  return s;
}

std::string capture_end_line(std::uint32_t stream, std::uint32_t graph, std::uint32_t co, int r) {
  std::string s;
  records::CaptureLine c;
  c.begin = false;
  c.stream = stream;
  c.graph = graph;
  c.correlation = co;
  c.result = r;
  records::write(s, c);
  return s;
}

std::string upload_line(std::uint32_t exec, std::uint32_t co) {
  std::string s;
  records::write(s, records::ExecCallLine{exec, co});
  return s;
}

std::uint32_t dot_graph_id(const std::string& text) {
  const char* key = "cluster_";
  const std::size_t at = text.find(key);
  if (at == std::string::npos) return 0;
  std::uint64_t id = 0;
  std::size_t i = at + std::strlen(key), digits = 0;
  for (; i < text.size() && text[i] >= '0' && text[i] <= '9' && digits < 10; ++i, ++digits) id = id * 10 + static_cast<std::uint64_t>(text[i] - '0');
  return digits == 0 || id > 0xffffffffull ? 0 : static_cast<std::uint32_t>(id);
}

std::string lx_line(std::uint32_t exec_id, std::vector<std::uint32_t>& correlations) {
  std::string s;
  if (correlations.empty()) return s;
  s.reserve(32 + 11 * correlations.size());
  records::write(s, records::ExecLaunchesLine{exec_id, correlations.data(), correlations.size()});
  correlations.clear();
  return s;
}

std::string clock_line(std::uint32_t exec_id, std::uint64_t n, std::uint64_t first, std::uint64_t last, std::uint64_t settled) {
  std::string s;
  records::write(s, records::ClockLine{exec_id, n, first, last, settled});
  return s;
}

void LaunchBook::instantiated(const void* handle, std::uint32_t exec_id) {
  auto it = by_handle_.find(handle);
  if (it != by_handle_.end()) by_handle_.erase(it);
  Exec e;
  e.exec_id = exec_id;
  execs_.push_back(std::move(e));
  by_handle_[handle] = execs_.size() - 1;
}

LaunchBook::Exec& LaunchBook::exec_at(const void* handle) {
  auto it = by_handle_.find(handle);
  if (it == by_handle_.end()) {
    execs_.emplace_back();
    it = by_handle_.emplace(handle, execs_.size() - 1).first;
  }
  return execs_[it->second];
}

std::string LaunchBook::launched(const void* handle, std::uint32_t correlation, std::uint64_t now_ns) {
  Exec& e = exec_at(handle);
  if (e.launches == 0) e.first_ns = now_ns;
  ++e.launches;
  e.last_ns = now_ns;
  e.settled_ns = 0;
  if (!e.unsettled) {
    e.unsettled = true;
    unsettled_.push_back(static_cast<std::size_t>(&e - execs_.data()));
  }
  e.correlations.push_back(correlation);
  return e.correlations.size() >= kBatch ? lx_line(e.exec_id, e.correlations) : std::string();
}

void LaunchBook::synchronised(std::uint64_t now_ns) {
  for (std::size_t i : unsettled_) {
    execs_[i].settled_ns = now_ns;
    execs_[i].unsettled = false;
  }
  unsettled_.clear();
}

void LaunchBook::changed(const void* handle, bool set_params) {
  Exec& e = exec_at(handle);
  ++(set_params ? e.set_params : e.updates);
  e.changes_written = false;
}

std::uint64_t LaunchBook::unseen_launches() const {
  std::uint64_t n = 0;
  for (const Exec& e : execs_)
    if (e.exec_id == 0) n += e.launches;
  return n;
}

std::string LaunchBook::pending_lines() {
  std::string s;
  for (Exec& e : execs_) {
    if (!e.correlations.empty()) s += lx_line(e.exec_id, e.correlations);
    s += ux_line(e);
  }
  return s;
}

std::string LaunchBook::final_lines() {
  std::string s;
  for (Exec& e : execs_) {
    s += ux_line(e);
    if (e.launches == 0) continue;
    s += lx_line(e.exec_id, e.correlations);
    s += clock_line(e.exec_id, e.launches, e.first_ns, e.last_ns, e.settled_ns);
  }
  return s;
}

// {"t":"ux","exec":ID,"sp":N,"up":M}: the exec's SetParams calls and exec updates so far (where
// changed since the last line).
std::string LaunchBook::ux_line(Exec& e) {
  if (e.changes_written || e.exec_id == 0) return std::string();
  e.changes_written = true;
  std::string s;
  records::write(s, records::ExecChangesLine{e.exec_id, e.set_params, e.updates});
  return s;
}

}  // namespace gp::interpose
