// A plugin workload without build_graph: graph mode must be recorded as "not provided" while
// eager and capture run (tests/plugin/plugin_tests.cmake).
#include <graphprof/cuda/handles.hpp>
#include <graphprof/cuda/output_digest.hpp>
#include <graphprof/cuda/workload.hpp>

namespace {

__global__ void increment(int* x, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += i % 5 + 1;
}

class NoGraph final : public gp::Workload {
 public:
  void setup(const gp::Params& p) override {
    n_ = static_cast<int>(p.get_int("elements", 1, 1 << 20));
    buf_ = gp::DeviceBuffer(sizeof(int) * static_cast<std::size_t>(n_));
  }
  void reset(cudaStream_t s) override {
    GP_CUDA_CHECK(cudaMemsetAsync(buf_.get(), 0, buf_.bytes(), s));
    GP_CUDA_CHECK(cudaStreamSynchronize(s));
  }
  void enqueue(gp::LaunchContext& ctx) override {
    ctx.launch(increment, dim3(static_cast<unsigned>((n_ + 127) / 128)), dim3(128), 0, buf_.as<int>(), n_);
  }
  std::string checksum(cudaStream_t s) override { return gp::OutputDigest().device(buf_.get(), buf_.bytes()).compute(s); }

 private:
  int n_ = 0;
  gp::DeviceBuffer buf_;
};

}  // namespace

namespace gp {
GP_REGISTER_WORKLOAD(NoGraph, WorkloadInfo{"no_graph", "one kernel, no explicit graph (test plugin)",
                                           {{"elements", "1024", "ints incremented per iteration"}}})
}  // namespace gp
