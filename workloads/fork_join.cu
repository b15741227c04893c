// fork-join: a root kernel, then W independent branches of D kernels each, then a join kernel
// that combines the branches. Eager and capture run each branch on its own stream and connect
// them with events; the explicit graph states the same DAG as node dependencies. Compared with
// chain at the same kernel count it shows what width costs (and saves) at launch.
#include <vector>

#include "graphprof/cuda/handles.hpp"
#include "graphprof/cuda/workload.hpp"
#include "graphprof/cuda/iteration_ops.hpp"
#include "graphprof/cuda/output_digest.hpp"

namespace gp {
namespace {

// Seed every branch's slice from the shared state; the branch index makes slices differ.
__global__ void fj_root(const float* x, float* branches, int n, int width) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    for (int b = 0; b < width; ++b) branches[static_cast<size_t>(b) * n + i] = x[i] + 0.01f * static_cast<float>(b);
}

// One step of branch `b`: an affine update depending on the step, so a lost, repeated or
// reordered kernel changes the result.
__global__ void fj_step(float* slice, int n, int branch, int step) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    const float a = 1.0f - 1.0f / static_cast<float>(step + branch + 4);
    slice[i] = fmaf(slice[i], a, 0.001f * static_cast<float>((step + 2 * branch) % 5));
  }
}

// Mean of the branches in a fixed order (deterministic), written back to the shared state.
__global__ void fj_join(float* x, const float* branches, int n, int width) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float s = 0.0f;
    for (int b = 0; b < width; ++b) s += branches[static_cast<size_t>(b) * n + i];
    x[i] = s / static_cast<float>(width);
  }
}

class ForkJoin final : public Workload {
 public:
  void setup(const Params& p) override {
    width_ = static_cast<int>(p.get_int("width", 1, 64));
    depth_ = static_cast<int>(p.get_int("depth", 1, 10000));
    n_ = static_cast<int>(p.get_int("elements", 1, 1 << 24));
    x_ = DeviceBuffer(sizeof(float) * static_cast<std::size_t>(n_));
    branches_ = DeviceBuffer(sizeof(float) * static_cast<std::size_t>(n_) * static_cast<std::size_t>(width_));
    init_.resize(static_cast<std::size_t>(n_));
    for (int i = 0; i < n_; ++i) init_[static_cast<std::size_t>(i)] = 0.5f + static_cast<float>(i % 61) * 0.02f;
    for (int b = 0; b < width_; ++b) {
      streams_.push_back(make_stream());
      joined_.push_back(make_event(false));
    }
    forked_ = make_event(false);
  }

  void reset(cudaStream_t s) override {
    GP_CUDA_CHECK(cudaMemcpyAsync(x_.get(), init_.data(), x_.bytes(), cudaMemcpyHostToDevice, s));
    GP_CUDA_CHECK(cudaMemsetAsync(branches_.get(), 0, branches_.bytes(), s));
    GP_CUDA_CHECK(cudaStreamSynchronize(s));
  }

  void enqueue(LaunchContext& ctx) override {
    cudaStream_t origin = ctx.stream();
    ctx.launch(fj_root, grid(), block(), 0, x_.as<float>(), branches_.as<float>(), n_, width_);
    cudaEvent_t fork = forked_.get();
    ctx.api("cudaEventRecord", [fork, origin] { return cudaEventRecord(fork, origin); });
    for (int b = 0; b < width_; ++b) {
      cudaStream_t bs = streams_[static_cast<std::size_t>(b)].get();
      ctx.api("cudaStreamWaitEvent", [bs, fork] { return cudaStreamWaitEvent(bs, fork, 0); });
      for (int d = 0; d < depth_; ++d) ctx.launch_on(bs, fj_step, grid(), block(), 0, slice(b), n_, b, d);
      cudaEvent_t done = joined_[static_cast<std::size_t>(b)].get();
      ctx.api("cudaEventRecord", [done, bs] { return cudaEventRecord(done, bs); });
      ctx.api("cudaStreamWaitEvent", [origin, done] { return cudaStreamWaitEvent(origin, done, 0); });
    }
    ctx.launch(fj_join, grid(), block(), 0, x_.as<float>(), branches_.as<float>(), n_, width_);
  }

  void build_graph(cudaGraph_t g) override {
    GraphOps ops(g);
    const cudaGraphNode_t root = ops.kernel(fj_root, grid(), block(), 0, x_.as<float>(), branches_.as<float>(), n_, width_);
    std::vector<cudaGraphNode_t> tails;
    for (int b = 0; b < width_; ++b) {
      ops.depend_on({root});
      for (int d = 0; d < depth_; ++d) ops.kernel(fj_step, grid(), block(), 0, slice(b), n_, b, d);
      tails.push_back(ops.last());
    }
    ops.depend_on(tails);
    ops.kernel(fj_join, grid(), block(), 0, x_.as<float>(), branches_.as<float>(), n_, width_);
  }

  std::string checksum(cudaStream_t s) override { return OutputDigest().device(x_.get(), x_.bytes()).compute(s); }

 private:
  dim3 block() const { return dim3(256); }
  dim3 grid() const { return dim3(static_cast<unsigned>((n_ + 255) / 256)); }
  float* slice(int b) const { return branches_.as<float>() + static_cast<std::size_t>(b) * static_cast<std::size_t>(n_); }

  int width_ = 0, depth_ = 0, n_ = 0;
  DeviceBuffer x_, branches_;
  std::vector<float> init_;
  std::vector<Stream> streams_;
  std::vector<Event> joined_;
  Event forked_;
};

}  // namespace

GP_REGISTER_WORKLOAD(ForkJoin, WorkloadInfo{
    "fork-join",
    "a root kernel, W parallel branches of D kernels on separate streams joined by events, a join kernel; "
    "the explicit graph has the same DAG as dependencies",
    {{"width", "8", "number of parallel branches (one stream each in eager and capture)"},
     {"depth", "8", "kernels per branch"},
     {"elements", "4096", "floats per branch each kernel updates"}}})

}  // namespace gp
