// The CUDA calls whose sites and ledger samples the injection library takes, by CUPTI callback id
// (call_site_ids.hpp).
#include "call_site_ids.hpp"

#include <cupti_driver_cbid.h>
#include <cupti_runtime_cbid.h>

#include <algorithm>
#include <iterator>

#include "call_site.hpp"

namespace gp::inject {

namespace {

constexpr std::uint32_t kRuntimeSites[] = {
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000,
    CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000,
    CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_ptsz_v13000,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_v9000,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_ptsz_v9000,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchHostFunc_v10000,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchHostFunc_ptsz_v10000,
    CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_ptds_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_ptsz_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy2D_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy2D_ptds_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy2DAsync_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy2DAsync_ptsz_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyPeer_v4000,
    CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyPeerAsync_v4000,
    CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyToSymbol_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyToSymbolAsync_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyFromSymbol_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyFromSymbolAsync_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaMemset_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaMemset_ptds_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_ptsz_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaMemset2DAsync_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_ptsz_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaEventSynchronize_v3020,
};

// Synchronising calls: the GIL is not taken for them, only read where the thread holds it. A
// thread may make them while it holds a lock that a thread holding the GIL waits for (PyTorch's
// caching allocator synchronises events under its mutex; a tensor freed with the GIL held takes
// that mutex): taking the GIL there would deadlock.
constexpr std::uint32_t kRuntimeSyncs[] = {
    CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_ptsz_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaEventSynchronize_v3020,
};

// Calls whose site names a graph (capture, instantiation) and around which the ledger samples
// memory. graphprof_inject.cpp enables these callbacks itself; they are listed for classification.
constexpr std::uint32_t kRuntimeGraphSites[] = {
    CUPTI_RUNTIME_TRACE_CBID_cudaStreamBeginCapture_v10000,
    CUPTI_RUNTIME_TRACE_CBID_cudaStreamBeginCapture_ptsz_v10000,
    CUPTI_RUNTIME_TRACE_CBID_cudaGraphInstantiate_v10000,
    CUPTI_RUNTIME_TRACE_CBID_cudaGraphInstantiate_v12000,
    CUPTI_RUNTIME_TRACE_CBID_cudaGraphInstantiateWithFlags_v11040,
    CUPTI_RUNTIME_TRACE_CBID_cudaGraphInstantiateWithParams_v12000,
    CUPTI_RUNTIME_TRACE_CBID_cudaGraphInstantiateWithParams_ptsz_v12000,
};

constexpr std::uint32_t kRuntimeLedgerOnly[] = {
    CUPTI_RUNTIME_TRACE_CBID_cudaStreamEndCapture_v10000,
    CUPTI_RUNTIME_TRACE_CBID_cudaStreamEndCapture_ptsz_v10000,
    CUPTI_RUNTIME_TRACE_CBID_cudaGraphUpload_v10000,
    CUPTI_RUNTIME_TRACE_CBID_cudaGraphUpload_ptsz_v10000,
};

// Device allocations: their sites name what the memory ledger's allocations were made by (in a
// graph's capture, or before it). The GIL is never taken for them: PyTorch's caching allocator
// allocates under its own mutex, which a thread holding the GIL may wait for (a tensor freed), so
// Python frames come only where the thread already holds the GIL.
constexpr std::uint32_t kRuntimeAllocs[] = {
    CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaMallocAsync_v11020,
    CUPTI_RUNTIME_TRACE_CBID_cudaMallocAsync_ptsz_v11020,
    CUPTI_RUNTIME_TRACE_CBID_cudaMallocFromPoolAsync_v11020,
    CUPTI_RUNTIME_TRACE_CBID_cudaMallocFromPoolAsync_ptsz_v11020,
    CUPTI_RUNTIME_TRACE_CBID_cudaMallocManaged_v6000,
};
// cuMemCreate (PyTorch's expandable segments) is also a ledger call (its size); cuMemAlloc_v2 made
// inside a runtime allocation takes no second site.
constexpr std::uint32_t kDriverAllocs[] = {CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2, CUPTI_DRIVER_TRACE_CBID_cuMemCreate};

constexpr std::uint32_t kDriverSites[] = {
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,           CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx,         CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel, CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz,
};

template <std::size_t N>
bool in(const std::uint32_t (&list)[N], std::uint32_t cbid) {
  return std::find(std::begin(list), std::end(list), cbid) != std::end(list);
}

}  // namespace

SiteCallKind kind_of(bool driver, std::uint32_t cbid) {
  if (driver) {
    if (in(kDriverSites, cbid)) return SiteCallKind::kSite;
    if (in(kDriverAllocs, cbid)) return SiteCallKind::kAlloc;
    return SiteCallKind::kNone;
  }
  if (in(kRuntimeSites, cbid)) return SiteCallKind::kSite;
  if (in(kRuntimeAllocs, cbid)) return SiteCallKind::kAlloc;
  if (in(kRuntimeGraphSites, cbid)) return SiteCallKind::kSiteAndLedger;
  if (in(kRuntimeLedgerOnly, cbid)) return SiteCallKind::kLedger;
  return SiteCallKind::kNone;
}

bool is_runtime_sync(std::uint32_t cbid) { return in(kRuntimeSyncs, cbid); }

Sample sample_of(bool enter, std::uint32_t cbid) {
  switch (cbid) {
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamBeginCapture_v10000:
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamBeginCapture_ptsz_v10000:
      return enter ? Sample::kCaptureBegin : Sample::kNone;
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamEndCapture_v10000:
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamEndCapture_ptsz_v10000:
      return enter ? Sample::kNone : Sample::kCaptureEnd;
    case CUPTI_RUNTIME_TRACE_CBID_cudaGraphUpload_v10000:
    case CUPTI_RUNTIME_TRACE_CBID_cudaGraphUpload_ptsz_v10000:
      return enter ? Sample::kUploadBegin : Sample::kUploadEnd;
    default:
      return enter ? Sample::kInstantiateBegin : Sample::kInstantiateEnd;
  }
}

std::vector<std::uint32_t> site_callback_ids(bool driver) {
  std::vector<std::uint32_t> out;
  if (driver) {
    if (call_sites_enabled()) {
      out.assign(std::begin(kDriverSites), std::end(kDriverSites));
      out.insert(out.end(), std::begin(kDriverAllocs), std::end(kDriverAllocs));
    } else {
      out.push_back(CUPTI_DRIVER_TRACE_CBID_cuMemCreate);
    }
    return out;
  }
  if (call_sites_enabled()) {
    out.assign(std::begin(kRuntimeSites), std::end(kRuntimeSites));
    out.insert(out.end(), std::begin(kRuntimeAllocs), std::end(kRuntimeAllocs));
  }
  return out;  // capture, instantiate and upload callbacks are enabled by graphprof_inject.cpp
}

std::vector<std::uint32_t> ledger_recorded_ids(bool driver) {
  std::vector<std::uint32_t> out = site_callback_ids(driver);
  if (driver) {
    for (std::uint32_t cb : {CUPTI_DRIVER_TRACE_CBID_cuGraphExecUpdate, CUPTI_DRIVER_TRACE_CBID_cuGraphExecUpdate_v2,
                             CUPTI_DRIVER_TRACE_CBID_cuGraphExecKernelNodeSetParams, CUPTI_DRIVER_TRACE_CBID_cuGraphExecKernelNodeSetParams_v2,
                             CUPTI_DRIVER_TRACE_CBID_cuMemCreate, CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2})
      out.push_back(cb);
    return out;
  }
  for (std::uint32_t cb : {CUPTI_RUNTIME_TRACE_CBID_cudaGraphExecUpdate_v10020, CUPTI_RUNTIME_TRACE_CBID_cudaGraphExecKernelNodeSetParams_v10010,
                           CUPTI_RUNTIME_TRACE_CBID_cudaGraphExecNodeSetParams_v12020, CUPTI_RUNTIME_TRACE_CBID_cudaGraphExecMemcpyNodeSetParams_v10020,
                           CUPTI_RUNTIME_TRACE_CBID_cudaGraphExecMemsetNodeSetParams_v10020, CUPTI_RUNTIME_TRACE_CBID_cudaGraphExecHostNodeSetParams_v10020,
                           CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020, CUPTI_RUNTIME_TRACE_CBID_cudaMallocAsync_v11020,
                           CUPTI_RUNTIME_TRACE_CBID_cudaMallocAsync_ptsz_v11020, CUPTI_RUNTIME_TRACE_CBID_cudaMallocFromPoolAsync_v11020,
                           CUPTI_RUNTIME_TRACE_CBID_cudaMallocFromPoolAsync_ptsz_v11020, CUPTI_RUNTIME_TRACE_CBID_cudaMallocManaged_v6000})
    out.push_back(cb);
  return out;
}

bool is_site_driver_callback(std::uint32_t cbid) { return kind_of(true, cbid) != SiteCallKind::kNone; }

}  // namespace gp::inject
