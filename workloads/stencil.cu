// stencil: Jacobi sweeps of the 2-D Laplace equation on a small grid (fixed boundary: the top
// edge held at 1, the others at 0), with a convergence norm every few sweeps computed by a
// deterministic two-kernel reduction. Many small launches, as in iterative solvers.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "block_reduce.cuh"
#include "graphprof/cuda/handles.hpp"
#include "graphprof/cuda/workload.hpp"
#include "graphprof/cuda/iteration_ops.hpp"
#include "graphprof/cuda/output_digest.hpp"

namespace gp {
namespace {

constexpr int kTile = 16;
constexpr int kReduceBlocks = 64;
constexpr int kReduceThreads = 256;

// One sweep: every interior point becomes the mean of its four neighbours; the boundary is copied.
__global__ void jacobi_sweep(const float* src, float* dst, int n) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= n || y >= n) return;
  const int i = y * n + x;
  if (x == 0 || y == 0 || x == n - 1 || y == n - 1) {
    dst[i] = src[i];
  } else {
    dst[i] = 0.25f * (src[i - 1] + src[i + 1] + src[i - n] + src[i + n]);
  }
}

// Sum of squared changes between two sweeps, per block. The grid is fixed (kReduceBlocks), so
// every element lands in the same thread and the same tree in every mode.
__global__ void residual_partial(const float* a, const float* b, int cells, float* partials) {
  __shared__ float scratch[32];
  float s = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < cells; i += gridDim.x * blockDim.x) {
    const float d = b[i] - a[i];
    s = fmaf(d, d, s);
  }
  s = block_reduce(s, scratch, SumOp{}, 0.0f);
  if (threadIdx.x == 0) partials[blockIdx.x] = s;
}

// Final step of the norm, one block: norms[slot] = sqrt(sum of the partial sums).
__global__ void residual_final(const float* partials, int count, float* norms, int slot) {
  __shared__ float scratch[32];
  float s = 0.0f;
  for (int i = threadIdx.x; i < count; i += blockDim.x) s += partials[i];
  s = block_reduce(s, scratch, SumOp{}, 0.0f);
  if (threadIdx.x == 0) norms[slot] = sqrtf(s);
}

class Stencil final : public IterationWorkload<Stencil> {
 public:
  void setup(const Params& p) override {
    n_ = static_cast<int>(p.get_int("size", 3, 8192));
    sweeps_ = static_cast<int>(p.get_int("sweeps", 2, 100000));
    if (sweeps_ % 2 != 0)
      throw usage_error("--param sweeps=" + std::to_string(sweeps_) +
                        ": expected an even number (the sweeps alternate between two buffers and every iteration "
                        "must end where it started)");
    norm_every_ = static_cast<int>(p.get_int("norm_every", 1, 100000));
    const std::size_t cells = static_cast<std::size_t>(n_) * static_cast<std::size_t>(n_);
    a_ = DeviceBuffer(cells * sizeof(float));
    b_ = DeviceBuffer(cells * sizeof(float));
    partials_ = DeviceBuffer(kReduceBlocks * sizeof(float));
    slots_ = std::max(1, sweeps_ / norm_every_);
    norms_ = DeviceBuffer(static_cast<std::size_t>(slots_) * sizeof(float));
    init_.assign(cells, 0.0f);
    for (int x = 0; x < n_; ++x) init_[static_cast<std::size_t>(x)] = 1.0f;  // row 0 = top edge
  }

  void reset(cudaStream_t s) override {
    GP_CUDA_CHECK(cudaMemcpyAsync(a_.get(), init_.data(), a_.bytes(), cudaMemcpyHostToDevice, s));
    GP_CUDA_CHECK(cudaMemcpyAsync(b_.get(), init_.data(), b_.bytes(), cudaMemcpyHostToDevice, s));
    GP_CUDA_CHECK(cudaMemsetAsync(norms_.get(), 0, norms_.bytes(), s));
    GP_CUDA_CHECK(cudaMemsetAsync(partials_.get(), 0, partials_.bytes(), s));
    GP_CUDA_CHECK(cudaStreamSynchronize(s));
  }

  std::string checksum(cudaStream_t s) override {
    return OutputDigest().device(a_.get(), a_.bytes()).device(norms_.get(), norms_.bytes()).compute(s);
  }

  // One iteration, issued by IterationWorkload in every mode.
  template <typename Ops>
  void iteration(Ops& ops) {
    const dim3 block(kTile, kTile);
    const dim3 grid(static_cast<unsigned>((n_ + kTile - 1) / kTile), static_cast<unsigned>((n_ + kTile - 1) / kTile));
    const int cells = n_ * n_;
    int slot = 0;
    for (int k = 0; k < sweeps_; ++k) {
      const float* src = (k % 2 == 0) ? a_.as<float>() : b_.as<float>();
      float* dst = (k % 2 == 0) ? b_.as<float>() : a_.as<float>();
      ops.kernel(jacobi_sweep, grid, block, 0, src, dst, n_);
      if ((k + 1) % norm_every_ == 0 && slot < slots_) {
        ops.kernel(residual_partial, dim3(kReduceBlocks), dim3(kReduceThreads), 0, src, dst, cells,
                   partials_.as<float>());
        ops.kernel(residual_final, dim3(1), dim3(kReduceThreads), 0, partials_.as<float>(), kReduceBlocks,
                   norms_.as<float>(), slot);
        ++slot;
      }
    }
  }

 private:
  int n_ = 0, sweeps_ = 0, norm_every_ = 0, slots_ = 0;
  DeviceBuffer a_, b_, partials_, norms_;
  std::vector<float> init_;
};

}  // namespace

GP_REGISTER_WORKLOAD(Stencil, WorkloadInfo{
    "stencil",
    "Jacobi sweeps of a 2-D Laplace problem on a small grid with a convergence norm (deterministic two-kernel "
    "reduction) every few sweeps; many small launches",
    {{"size", "256", "grid edge in points (size x size floats)"},
     {"sweeps", "20", "Jacobi sweeps per iteration (even: the sweeps alternate between two buffers)"},
     {"norm_every", "2", "compute the residual norm after every this many sweeps (2 kernels each)"}}})

}  // namespace gp
