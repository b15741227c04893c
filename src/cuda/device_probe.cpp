// Device-state probe (device_probe.hpp): one chain of empty kernels per process, replayed as a
// graph back to back and behind a latch.
#include "device_probe.hpp"

#include <algorithm>
#include <vector>

#include "device_probe_kernel.hpp"
#include "event_batch.hpp"
#include "graphprof/cuda/handles.hpp"
#include "latch.hpp"

namespace gp {

namespace {
constexpr int kReplays = 7;

double median_per_kernel(std::vector<double> per_kernel) {
  for (double& t : per_kernel) t /= kDeviceProbeKernels;
  std::nth_element(per_kernel.begin(), per_kernel.begin() + kReplays / 2, per_kernel.end());
  return per_kernel[kReplays / 2];
}

// The probe's graph, exec, stream, latch and events, made at the first probe and kept for the
// process: on the H200 an exec made early in a process shows the slower device level no later
// than any made after it (a new exec can still replay at the faster level for a while after an
// old one has switched), so the oldest exec is the one that tells (docs/findings.md, "Parity").
struct Probe {
  Stream stream = make_stream();
  Graph graph = make_graph();
  GraphExec exec;
  Latch latch;
  EventBatch events{kReplays};

  Probe() {
    cudaGraphNode_t prev = nullptr;
    for (int k = 0; k < kDeviceProbeKernels; ++k) {
      cudaKernelNodeParams p{};
      p.func = device_probe_kernel();
      p.gridDim = dim3(1);
      p.blockDim = dim3(1);
      cudaGraphNode_t node = nullptr;
      GP_CUDA_CHECK(cudaGraphAddKernelNode(&node, graph.get(), prev ? &prev : nullptr, prev ? 1 : 0, &p));
      prev = node;
    }
    cudaGraphExec_t raw = nullptr;
    GP_CUDA_CHECK(cudaGraphInstantiate(&raw, graph.get(), 0));
    exec = GraphExec(raw);
    GP_CUDA_CHECK(cudaGraphUpload(exec.get(), stream.get()));
    GP_CUDA_CHECK(cudaGraphLaunch(exec.get(), stream.get()));  // the first launch is slower
    GP_CUDA_CHECK(cudaStreamSynchronize(stream.get()));
  }
};

Probe& the_probe() {
  // Never destroyed: its handles would outlive the CUDA context at exit.
  static Probe* probe = new Probe();
  return *probe;
}
}  // namespace

void make_device_probe() { (void)the_probe(); }

DeviceProbeReading measure_device_probe() {
  Probe& p = the_probe();
  const cudaStream_t s = p.stream.get();
  const auto replay = [&] { GP_CUDA_CHECK(cudaGraphLaunch(p.exec.get(), s)); };
  DeviceProbeReading r;
  std::vector<double> times;
  p.events.enqueue(s, kReplays, replay);
  GP_CUDA_CHECK(cudaStreamSynchronize(s));
  p.events.append_times(times);
  r.back_to_back_ns = median_per_kernel(times);

  // The latched pass's method: one replay at a time queued behind the latch, then released.
  times.clear();
  for (int i = 0; i < kReplays; ++i) {
    p.latch.hold(s, 0.25);
    p.events.enqueue(s, 1, replay);
    p.latch.release();
    GP_CUDA_CHECK(cudaStreamSynchronize(s));
    if (p.latch.timed_out()) return r;
    p.events.append_times(times);
  }
  r.latched_ns = median_per_kernel(times);
  return r;
}

}  // namespace gp
