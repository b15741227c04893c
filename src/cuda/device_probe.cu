// Device-state probe (device_probe.hpp): a chain of empty kernels replayed as a graph.
#include "device_probe.hpp"

#include <algorithm>
#include <vector>

#include "event_batch.hpp"
#include "graphprof/cuda/handles.hpp"

namespace gp {

namespace {
__global__ void device_probe_empty() {}
constexpr int kReplays = 7;
}  // namespace

double measure_device_probe_ns() {
  Stream stream = make_stream();
  Graph graph = make_graph();
  cudaGraphNode_t prev = nullptr;
  for (int k = 0; k < kDeviceProbeKernels; ++k) {
    cudaKernelNodeParams p{};
    p.func = reinterpret_cast<void*>(device_probe_empty);
    p.gridDim = dim3(1);
    p.blockDim = dim3(1);
    cudaGraphNode_t node = nullptr;
    GP_CUDA_CHECK(cudaGraphAddKernelNode(&node, graph.get(), prev ? &prev : nullptr, prev ? 1 : 0, &p));
    prev = node;
  }
  cudaGraphExec_t raw = nullptr;
  GP_CUDA_CHECK(cudaGraphInstantiate(&raw, graph.get(), 0));
  const GraphExec exec(raw);
  GP_CUDA_CHECK(cudaGraphUpload(exec.get(), stream.get()));
  GP_CUDA_CHECK(cudaGraphLaunch(exec.get(), stream.get()));  // the first launch is slower
  EventBatch events(kReplays);
  events.enqueue(stream.get(), kReplays, [&] { GP_CUDA_CHECK(cudaGraphLaunch(exec.get(), stream.get())); });
  GP_CUDA_CHECK(cudaStreamSynchronize(stream.get()));
  std::vector<double> per_kernel;
  events.append_times(per_kernel);
  for (double& t : per_kernel) t /= kDeviceProbeKernels;
  std::nth_element(per_kernel.begin(), per_kernel.begin() + kReplays / 2, per_kernel.end());
  return per_kernel[kReplays / 2];
}

}  // namespace gp
