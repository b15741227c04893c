// reduce: a user workload whose iteration is written once, as a template over an "ops" object
// (graphprof/cuda/iteration_ops.hpp): StreamOps issues it on the stream (eager, capture),
// GraphOps adds the same operations as graph nodes (graph mode). One iteration: clear the
// result, a block-wise sum of squares into partial sums, then one block adds the partials.
#include <graphprof/cuda/handles.hpp>
#include <graphprof/cuda/iteration_ops.hpp>
#include <graphprof/cuda/output_digest.hpp>
#include <graphprof/cuda/workload.hpp>

#include <vector>

namespace {

constexpr int kThreads = 256;

__device__ float block_sum(float v) {
  __shared__ float scratch[kThreads];
  scratch[threadIdx.x] = v;
  __syncthreads();
  for (int stride = kThreads / 2; stride > 0; stride /= 2) {
    if (static_cast<int>(threadIdx.x) < stride) scratch[threadIdx.x] += scratch[threadIdx.x + stride];
    __syncthreads();
  }
  return scratch[0];
}

__global__ void partial_sums(const float* x, int n, float* partial) {
  float s = 0;
  for (int i = blockIdx.x * kThreads + threadIdx.x; i < n; i += gridDim.x * kThreads) s += x[i] * x[i];
  const float total = block_sum(s);
  if (threadIdx.x == 0) partial[blockIdx.x] = total;
}

__global__ void final_sum(const float* partial, int count, float* out) {
  float s = 0;
  for (int i = threadIdx.x; i < count; i += kThreads) s += partial[i];
  const float total = block_sum(s);
  if (threadIdx.x == 0) *out += total;  // += : a missing memset would show in the checksum
}

class Reduce final : public gp::IterationWorkload<Reduce> {
 public:
  void setup(const gp::Params& p) override {
    n_ = static_cast<int>(p.get_int("elements", 1, 1 << 28));
    blocks_ = static_cast<int>(p.get_int("blocks", 1, 4096));
    x_ = gp::DeviceBuffer(sizeof(float) * static_cast<std::size_t>(n_));
    partial_ = gp::DeviceBuffer(sizeof(float) * static_cast<std::size_t>(blocks_));
    out_ = gp::DeviceBuffer(sizeof(float));
    std::vector<float> host(static_cast<std::size_t>(n_));
    for (int i = 0; i < n_; ++i) host[static_cast<std::size_t>(i)] = 0.01f * static_cast<float>(i % 97);
    GP_CUDA_CHECK(cudaMemcpy(x_.get(), host.data(), x_.bytes(), cudaMemcpyHostToDevice));
  }

  void reset(cudaStream_t s) override {
    GP_CUDA_CHECK(cudaMemsetAsync(out_.get(), 0xff, out_.bytes(), s));  // garbage the iteration must clear
    GP_CUDA_CHECK(cudaStreamSynchronize(s));
  }

  // The whole iteration, once, for both StreamOps and GraphOps.
  template <typename Ops>
  void iteration(Ops& ops) {
    ops.memset(out_.get(), 0, out_.bytes());
    ops.kernel(partial_sums, dim3(static_cast<unsigned>(blocks_)), dim3(kThreads), 0, x_.as<float>(), n_,
               partial_.as<float>());
    ops.kernel(final_sum, dim3(1), dim3(kThreads), 0, partial_.as<float>(), blocks_, out_.as<float>());
  }

  std::string checksum(cudaStream_t s) override { return gp::OutputDigest().device(out_.get(), out_.bytes()).compute(s); }

 private:
  int n_ = 0;
  int blocks_ = 0;
  gp::DeviceBuffer x_, partial_, out_;
};

}  // namespace

namespace gp {
GP_REGISTER_WORKLOAD(Reduce, WorkloadInfo{
    "reduce",
    "sum of squares in two kernels (block partial sums, then one block): an example plugin with an explicit graph",
    {{"elements", "1048576", "floats to reduce (1..2^28)"},
     {"blocks", "264", "blocks of the first kernel (1..4096); 264 = 2 per SM on an H200"}}})
}  // namespace gp
