// saxpy: a user workload written against graphprof's public API (docs/api.md). One iteration is a
// chain of `kernels` dependent saxpy steps, y = a*x + y, over `elements` floats.
//   enqueue      launches the chain on the stream (eager mode; captured in capture mode)
//   build_graph  adds the same kernels as graph nodes (graph mode)
// Built with -DSAXPY_SLOW_CYCLES=N (CMake option EXAMPLES_SLOW) every kernel also busy-waits N SM
// clock cycles: a deliberately slower version with the same result, to try `graphprof compare`.
#include <graphprof/cuda/handles.hpp>
#include <graphprof/cuda/output_digest.hpp>
#include <graphprof/cuda/workload.hpp>

#include <vector>

#ifndef SAXPY_SLOW_CYCLES
#define SAXPY_SLOW_CYCLES 0
#endif

namespace {

__global__ void saxpy_step(float* y, const float* x, float a, int n) {
  if (SAXPY_SLOW_CYCLES > 0) {
    const long long t0 = clock64();
    while (clock64() - t0 < SAXPY_SLOW_CYCLES) {
    }
  }
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

class Saxpy final : public gp::Workload {
 public:
  void setup(const gp::Params& p) override {
    kernels_ = static_cast<int>(p.get_int("kernels", 1, 10000));  // ranges are checked here
    n_ = static_cast<int>(p.get_int("elements", 1, 1 << 28));
    a_ = static_cast<float>(p.get_double("a", -10.0, 10.0));
    const auto bytes = sizeof(float) * static_cast<std::size_t>(n_);
    x_ = gp::DeviceBuffer(bytes);
    y_ = gp::DeviceBuffer(bytes);
    x0_.resize(static_cast<std::size_t>(n_));
    for (int i = 0; i < n_; ++i) x0_[static_cast<std::size_t>(i)] = 0.001f * static_cast<float>(i % 1000);
  }

  // Inputs back to their initial values, so every mode's verify pass computes the same output.
  void reset(cudaStream_t s) override {
    GP_CUDA_CHECK(cudaMemcpyAsync(x_.get(), x0_.data(), x_.bytes(), cudaMemcpyHostToDevice, s));
    GP_CUDA_CHECK(cudaMemsetAsync(y_.get(), 0, y_.bytes(), s));
    GP_CUDA_CHECK(cudaStreamSynchronize(s));
  }

  // Capture-safe: asynchronous launches only, all through the context (which times them).
  void enqueue(gp::LaunchContext& ctx) override {
    for (int k = 0; k < kernels_; ++k) ctx.launch(saxpy_step, grid(), block(), 0, y_.as<float>(), x_.as<float>(), a_, n_);
  }

  void build_graph(cudaGraph_t g) override {
    float* y = y_.as<float>();
    const float* x = x_.as<float>();
    float a = a_;
    int n = n_;
    void* args[] = {&y, &x, &a, &n};
    cudaKernelNodeParams params{};
    params.func = reinterpret_cast<void*>(saxpy_step);
    params.gridDim = grid();
    params.blockDim = block();
    params.kernelParams = args;
    cudaGraphNode_t prev = nullptr;
    for (int k = 0; k < kernels_; ++k) {
      cudaGraphNode_t node = nullptr;
      GP_CUDA_CHECK(cudaGraphAddKernelNode(&node, g, prev ? &prev : nullptr, prev ? 1 : 0, &params));
      prev = node;
    }
  }

  std::string checksum(cudaStream_t s) override { return gp::OutputDigest().device(y_.get(), y_.bytes()).compute(s); }

 private:
  dim3 block() const { return dim3(256); }
  dim3 grid() const { return dim3(static_cast<unsigned>((n_ + 255) / 256)); }

  int kernels_ = 0;
  int n_ = 0;
  float a_ = 0;
  gp::DeviceBuffer x_, y_;  // teardown: RAII members free themselves
  std::vector<float> x0_;
};

}  // namespace

namespace gp {
GP_REGISTER_WORKLOAD(Saxpy, WorkloadInfo{
    "saxpy",
    "a chain of dependent saxpy kernels (y = a*x + y): an example plugin",
    {{"kernels", "20", "saxpy kernels per iteration (1..10000)"},
     {"elements", "1048576", "floats in x and y (1..2^28)"},
     {"a", "0.5", "the scalar a (-10..10)"}}})
}  // namespace gp
