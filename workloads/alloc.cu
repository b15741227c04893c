// alloc: stream-ordered allocation inside the iteration. Each of B temporary buffers is allocated
// (cudaMallocAsync; captured as a memory allocation node; an explicit alloc node in graph mode),
// filled by a kernel, folded into the output by a second kernel and freed (cudaFreeAsync / free
// node). Graph allocations come from a separate per-device graph memory pool whose physical
// memory the graph keeps between launches; extra_metrics() reports that pool, the default
// stream-ordered pool and the change in free device memory, per mode.
#include <string>
#include <vector>

#include "graphprof/cuda/handles.hpp"
#include "graphprof/cuda/workload.hpp"
#include "graphprof/cuda/iteration_ops.hpp"
#include "graphprof/cuda/output_digest.hpp"

namespace gp {
namespace {

// tmp = in * (buffer + 1) + small index pattern: every temporary holds different data.
__global__ void alloc_fill(const float* in, float* tmp, int n, int buffer) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) tmp[i] = fmaf(in[i], static_cast<float>(buffer + 1), 0.001f * static_cast<float>(i % 7));
}

// out = (out + tmp) / 2: bounded however many iterations run; order of buffers matters.
__global__ void alloc_fold(float* out, const float* tmp, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 0.5f * (out[i] + tmp[i]);
}

unsigned long long graph_mem(int device, cudaGraphMemAttributeType attr) {
  unsigned long long v = 0;  // the attribute's value type is cuuint64_t
  GP_CUDA_CHECK(cudaDeviceGetGraphMemAttribute(device, attr, &v));
  return v;
}

unsigned long long pool_attr(cudaMemPool_t pool, cudaMemPoolAttr attr) {
  unsigned long long v = 0;  // the *Mem* attributes are cuuint64_t
  GP_CUDA_CHECK(cudaMemPoolGetAttribute(pool, attr, &v));
  return v;
}

class Alloc final : public IterationWorkload<Alloc> {
 public:
  void setup(const Params& p) override {
    buffers_ = static_cast<int>(p.get_int("buffers", 1, 4096));
    const long long bytes = p.get_int("bytes", 4, 1LL << 32);
    if (bytes % 4 != 0) throw usage_error("--param bytes=" + std::to_string(bytes) + ": expected a multiple of 4");
    bytes_ = static_cast<std::size_t>(bytes);
    n_ = static_cast<int>(bytes / 4);
    GP_CUDA_CHECK(cudaGetDevice(&device_));
    in_ = DeviceBuffer(bytes_);
    out_ = DeviceBuffer(bytes_);
    init_.resize(static_cast<std::size_t>(n_));
    for (int i = 0; i < n_; ++i) init_[static_cast<std::size_t>(i)] = 0.1f + static_cast<float>(i % 89) * 0.01f;

    // Start every mode from the same memory state: give back what earlier modes' graphs and
    // pools kept, and restart the high-water marks (only 0 may be written to them).
    GP_CUDA_CHECK(cudaDeviceSynchronize());
    GP_CUDA_CHECK(cudaDeviceGraphMemTrim(device_));
    GP_CUDA_CHECK(cudaDeviceGetDefaultMemPool(&pool_, device_));
    GP_CUDA_CHECK(cudaMemPoolTrimTo(pool_, 0));
    unsigned long long zero = 0;
    GP_CUDA_CHECK(cudaDeviceSetGraphMemAttribute(device_, cudaGraphMemAttrUsedMemHigh, &zero));
    GP_CUDA_CHECK(cudaDeviceSetGraphMemAttribute(device_, cudaGraphMemAttrReservedMemHigh, &zero));
    GP_CUDA_CHECK(cudaMemPoolSetAttribute(pool_, cudaMemPoolAttrUsedMemHigh, &zero));
    GP_CUDA_CHECK(cudaMemPoolSetAttribute(pool_, cudaMemPoolAttrReservedMemHigh, &zero));
    std::size_t total = 0;
    GP_CUDA_CHECK(cudaMemGetInfo(&free_at_setup_, &total));
  }

  void reset(cudaStream_t s) override {
    GP_CUDA_CHECK(cudaMemcpyAsync(in_.get(), init_.data(), bytes_, cudaMemcpyHostToDevice, s));
    GP_CUDA_CHECK(cudaMemsetAsync(out_.get(), 0, bytes_, s));
    GP_CUDA_CHECK(cudaStreamSynchronize(s));
  }

  std::string checksum(cudaStream_t s) override { return OutputDigest().device(out_.get(), bytes_).compute(s); }

  std::map<std::string, double> extra_metrics() override {
    GP_CUDA_CHECK(cudaDeviceSynchronize());
    std::size_t free_now = 0, total = 0;
    GP_CUDA_CHECK(cudaMemGetInfo(&free_now, &total));
    auto d = [](unsigned long long v) { return static_cast<double>(v); };
    return {
        {"allocated_bytes_per_iter", static_cast<double>(bytes_) * buffers_},
        {"graph_mem_used_current_bytes", d(graph_mem(device_, cudaGraphMemAttrUsedMemCurrent))},
        {"graph_mem_used_high_bytes", d(graph_mem(device_, cudaGraphMemAttrUsedMemHigh))},
        {"graph_mem_reserved_current_bytes", d(graph_mem(device_, cudaGraphMemAttrReservedMemCurrent))},
        {"graph_mem_reserved_high_bytes", d(graph_mem(device_, cudaGraphMemAttrReservedMemHigh))},
        {"pool_used_high_bytes", d(pool_attr(pool_, cudaMemPoolAttrUsedMemHigh))},
        {"pool_reserved_current_bytes", d(pool_attr(pool_, cudaMemPoolAttrReservedMemCurrent))},
        {"pool_reserved_high_bytes", d(pool_attr(pool_, cudaMemPoolAttrReservedMemHigh))},
        // Positive: this much more device memory is in use than right after setup.
        {"device_mem_delta_bytes", static_cast<double>(free_at_setup_) - static_cast<double>(free_now)},
    };
  }

  // One iteration, issued by IterationWorkload in every mode.
  template <typename Ops>
  void iteration(Ops& ops) {
    const dim3 block(256), grid(static_cast<unsigned>((n_ + 255) / 256));
    for (int b = 0; b < buffers_; ++b) {
      auto* tmp = static_cast<float*>(ops.alloc(bytes_, device_));
      ops.kernel(alloc_fill, grid, block, 0, in_.as<float>(), tmp, n_, b);
      ops.kernel(alloc_fold, grid, block, 0, out_.as<float>(), tmp, n_);
      ops.free(tmp);
    }
  }

 private:
  int buffers_ = 0, n_ = 0, device_ = 0;
  std::size_t bytes_ = 0, free_at_setup_ = 0;
  cudaMemPool_t pool_ = nullptr;
  DeviceBuffer in_, out_;
  std::vector<float> init_;
};

}  // namespace

GP_REGISTER_WORKLOAD(Alloc, WorkloadInfo{
    "alloc",
    "stream-ordered allocation inside the iteration: cudaMallocAsync/cudaFreeAsync (captured as memory "
    "nodes; explicit alloc/free nodes in graph mode) around two kernels per buffer; reports graph-pool, "
    "default-pool and device memory use per mode",
    {{"buffers", "4", "temporary buffers allocated, used and freed one after another per iteration"},
     {"bytes", "1048576", "size of each temporary buffer (a multiple of 4)"}}})

}  // namespace gp
