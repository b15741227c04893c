// while: a loop whose trip count only the GPU knows. A damped smoothing of a vector runs until
// the largest change of a step falls below a tolerance (or a step cap is reached).
//   eager    the host drives the loop: per step two kernels, a copy of the "continue" flag to
//            pinned memory and a stream synchronize to read it (a host round trip per step)
//   capture  the loop is a conditional WHILE node inserted into the stream capture (handle on the
//            capturing graph, node added with cudaGraphAddNode, capture dependencies moved past it)
//   graph    the same WHILE node in an explicitly built graph
// In both graph modes a kernel in the loop body decides whether to continue with
// cudaGraphSetConditional, so a whole solve is one launch with no host round trips.
#include <cuda_runtime.h>

#include <string>
#include <vector>

#include "block_reduce.cuh"
#include "capture_append.cuh"
#include "graphprof/cuda/handles.hpp"
#include "graphprof/cuda/workload.hpp"
#include "graphprof/cuda/iteration_ops.hpp"
#include "graphprof/cuda/output_digest.hpp"

namespace gp {
namespace {

constexpr float kDecay = 0.9f;
constexpr int kCheckThreads = 1024;

// Every solve starts from the same vector, so every iteration runs the same number of steps.
__global__ void wh_init(const float* x0, float* x, int n, int* steps) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = x0[i];
  if (i == 0) *steps = 0;
}

// One step: y = decay * (x[i-1]/4 + x[i]/2 + x[i+1]/4), zero outside the vector.
__global__ void wh_relax(const float* x, float* y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    const float left = i > 0 ? x[i - 1] : 0.0f;
    const float right = i + 1 < n ? x[i + 1] : 0.0f;
    y[i] = kDecay * (0.25f * left + 0.5f * x[i] + 0.25f * right);
  }
}

// One block: the largest change of the step (max is exact, so the result is order-independent),
// commit y to x, count the step and decide whether to continue. kGraph: tell the WHILE node.
template <bool kGraph>
__global__ void wh_check(float* x, const float* y, int n, int* steps, int* flag, float tolerance, int max_steps,
                         cudaGraphConditionalHandle handle) {
  __shared__ float scratch[32];
  const float change = commit_and_max_change(x, y, n, scratch);
  if (threadIdx.x == 0) {
    const int done = *steps + 1;
    *steps = done;
    const unsigned go = (change > tolerance && done < max_steps) ? 1u : 0u;
    *flag = static_cast<int>(go);
    if constexpr (kGraph) cudaGraphSetConditional(handle, go);
  }
}

class While final : public Workload {
 public:
  void setup(const Params& p) override {
    n_ = static_cast<int>(p.get_int("elements", 1, 1 << 24));
    tolerance_ = static_cast<float>(p.get_double("tolerance", 0.0, 1.0));
    max_steps_ = static_cast<int>(p.get_int("max_steps", 1, 1000000));
    x0_ = DeviceBuffer(sizeof(float) * static_cast<std::size_t>(n_));
    x_ = DeviceBuffer(sizeof(float) * static_cast<std::size_t>(n_));
    y_ = DeviceBuffer(sizeof(float) * static_cast<std::size_t>(n_));
    counters_ = DeviceBuffer(2 * sizeof(int));  // [0] steps of the last solve, [1] continue flag
    host_flag_ = PinnedBuffer(sizeof(int));
    std::vector<float> init(static_cast<std::size_t>(n_));
    for (int i = 0; i < n_; ++i) init[static_cast<std::size_t>(i)] = static_cast<float>((i * 37) % 101) * 0.01f;
    GP_CUDA_CHECK(cudaMemcpy(x0_.get(), init.data(), x0_.bytes(), cudaMemcpyHostToDevice));
  }

  void reset(cudaStream_t s) override {
    GP_CUDA_CHECK(cudaMemsetAsync(x_.get(), 0, x_.bytes(), s));
    GP_CUDA_CHECK(cudaMemsetAsync(y_.get(), 0, y_.bytes(), s));
    GP_CUDA_CHECK(cudaMemsetAsync(counters_.get(), 0, counters_.bytes(), s));
    GP_CUDA_CHECK(cudaStreamSynchronize(s));
  }

  void enqueue(LaunchContext& ctx) override {
    // The host-driven loop synchronizes, which a capture forbids; under capture the loop becomes
    // a WHILE node instead. Only the capture mode ever calls enqueue on a capturing stream.
    cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
    GP_CUDA_CHECK(cudaStreamIsCapturing(ctx.stream(), &status));
    StreamOps ops(ctx);
    ops.kernel(wh_init, grid(), block(), 0, x0_.as<float>(), x_.as<float>(), n_, steps());
    if (status == cudaStreamCaptureStatusActive) {
      capture_loop(ctx);
      return;
    }
    int* host_flag = host_flag_.as<int>();
    for (;;) {
      ops.kernel(wh_relax, grid(), block(), 0, x_.as<float>(), y_.as<float>(), n_);
      ops.kernel(wh_check<false>, dim3(1), dim3(kCheckThreads), 0, x_.as<float>(), y_.as<float>(), n_, steps(), flag(),
                 tolerance_, max_steps_, cudaGraphConditionalHandle{0});
      ops.copy(host_flag, flag(), sizeof(int), cudaMemcpyDeviceToHost);
      // The wait is not a launch call, so it stays out of the launch timings (it is in wall time).
      GP_CUDA_CHECK(cudaStreamSynchronize(ctx.stream()));
      if (*host_flag == 0) break;
    }
  }

  void build_graph(cudaGraph_t g) override {
    GraphOps ops(g);
    const cudaGraphNode_t init =
        ops.kernel(wh_init, grid(), block(), 0, x0_.as<float>(), x_.as<float>(), n_, steps());
    add_loop(g, &init, nullptr, 1);
  }

  std::string checksum(cudaStream_t s) override {
    return OutputDigest().device(x_.get(), x_.bytes()).device(steps(), sizeof(int)).compute(s);
  }

  std::map<std::string, double> extra_metrics() override {
    int last_steps = 0;
    GP_CUDA_CHECK(cudaDeviceSynchronize());
    GP_CUDA_CHECK(cudaMemcpy(&last_steps, steps(), sizeof(int), cudaMemcpyDeviceToHost));
    return {{"loop_steps", static_cast<double>(last_steps)}};
  }

 private:
  dim3 block() const { return dim3(256); }
  dim3 grid() const { return dim3(static_cast<unsigned>((n_ + 255) / 256)); }
  int* steps() const { return counters_.as<int>(); }
  int* flag() const { return counters_.as<int>() + 1; }

  // Adds the WHILE node after `deps` in `g` and fills its body; returns the node. The handle
  // starts at 1 on every launch (do-while, like the host loop) and the body's check kernel sets it.
  cudaGraphNode_t add_loop(cudaGraph_t g, const cudaGraphNode_t* deps, const cudaGraphEdgeData* edge_data,
                           std::size_t ndeps) {
    cudaGraphConditionalHandle handle = 0;
    GP_CUDA_CHECK(cudaGraphConditionalHandleCreate(&handle, g, 1, cudaGraphCondAssignDefault));
    cudaGraphNodeParams p{};  // reserved fields must be zero
    p.type = cudaGraphNodeTypeConditional;
    p.conditional.handle = handle;
    p.conditional.type = cudaGraphCondTypeWhile;
    p.conditional.size = 1;
    cudaGraphNode_t node = nullptr;
    GP_CUDA_CHECK(cudaGraphAddNode(&node, g, deps, edge_data, ndeps, &p));
    GraphOps body(p.conditional.phGraph_out[0]);
    body.kernel(wh_relax, grid(), block(), 0, x_.as<float>(), y_.as<float>(), n_);
    body.kernel(wh_check<true>, dim3(1), dim3(kCheckThreads), 0, x_.as<float>(), y_.as<float>(), n_, steps(), flag(),
                tolerance_, max_steps_, handle);
    return node;
  }

  // Stream-capture form: the WHILE node joins the graph being captured (capture_append.cuh).
  void capture_loop(LaunchContext& ctx) {
    append_to_capture(ctx.stream(), [this](cudaGraph_t g, const cudaGraphNode_t* deps, const cudaGraphEdgeData* edges,
                                           std::size_t n) { return add_loop(g, deps, edges, n); });
  }

  int n_ = 0, max_steps_ = 0;
  float tolerance_ = 0.0f;
  DeviceBuffer x0_, x_, y_, counters_;
  PinnedBuffer host_flag_;
};

}  // namespace

GP_REGISTER_WORKLOAD(While, WorkloadInfo{
    "while",
    "a loop with a data-dependent trip count: host-driven with a flag read-back and synchronize per step (eager) "
    "against a conditional WHILE node whose body decides on the device (capture: node inserted during stream "
    "capture; graph: explicit)",
    {{"elements", "4096", "length of the vector the loop smooths"},
     {"tolerance", "0.001", "stop when the largest change of a step is at most this"},
     {"max_steps", "1000", "stop after this many steps whatever the change"}}})

}  // namespace gp
