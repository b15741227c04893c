// memcpy: many small copies and memsets mixed with kernels, all on one stream. Per chunk: a
// kernel, a host->device copy from pinned memory, a kernel, a memset, a kernel, a device->device
// copy and a device->host copy back to pinned memory. It answers whether a graph makes small
// copies cheaper to issue (one launch for all of them) or faster on the GPU. host_copies=0 turns
// the two host copies into device->device copies of the same size, to separate what host memory
// costs a graph from what copies cost in general.
#include <cstring>
#include <vector>

#include "graphprof/cuda/handles.hpp"
#include "graphprof/cuda/workload.hpp"
#include "graphprof/cuda/iteration_ops.hpp"
#include "graphprof/cuda/output_digest.hpp"

namespace gp {
namespace {

// out = out + in * a + c. It reads `out`, so a missing memset or copy before it changes the
// result; a < 2 keeps the values bounded however many iterations run.
__global__ void mc_scale(const float* in, float* out, int n, int chunk) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const float c = static_cast<float>(chunk % 8);
  if (i < n) out[i] = fmaf(in[i], 1.5f + 0.01f * c, out[i] + c);
}

// Feeds the next iteration: the device input drifts, so every iteration's copies carry new data.
__global__ void mc_feedback(float* in, const float* mirror, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) in[i] = 0.5f * in[i] + 0.25f * mirror[i];
}

class Memcpy final : public IterationWorkload<Memcpy> {
 public:
  void setup(const Params& p) override {
    copies_ = static_cast<int>(p.get_int("copies", 1, 100000));
    const long long bytes = p.get_int("bytes", 4, 1LL << 28);
    if (bytes % 4 != 0) throw usage_error("--param bytes=" + std::to_string(bytes) + ": expected a multiple of 4");
    n_ = static_cast<int>(bytes / 4);
    const std::size_t total = static_cast<std::size_t>(bytes) * static_cast<std::size_t>(copies_);
    host_copies_ = p.get_bool("host_copies");
    host_in_ = PinnedBuffer(total);
    host_out_ = PinnedBuffer(total);
    dev_in_ = DeviceBuffer(total);
    dev_out_ = DeviceBuffer(total);
    dev_mirror_ = DeviceBuffer(total);
    float* h = host_in_.as<float>();
    for (std::size_t i = 0; i < total / 4; ++i) h[i] = 0.25f + static_cast<float>(i % 97) * 0.01f;
    if (!host_copies_) {
      // Device stand-ins for the pinned buffers: same data in, same sizes out.
      staged_in_ = DeviceBuffer(total);
      staged_out_ = DeviceBuffer(total);
      GP_CUDA_CHECK(cudaMemcpy(staged_in_.get(), host_in_.get(), total, cudaMemcpyHostToDevice));
    }
  }

  void reset(cudaStream_t s) override {
    GP_CUDA_CHECK(cudaStreamSynchronize(s));
    std::memset(host_out_.get(), 0, host_out_.bytes());
    GP_CUDA_CHECK(cudaMemsetAsync(dev_in_.get(), 0, dev_in_.bytes(), s));
    GP_CUDA_CHECK(cudaMemsetAsync(dev_out_.get(), 0, dev_out_.bytes(), s));
    GP_CUDA_CHECK(cudaMemsetAsync(dev_mirror_.get(), 0, dev_mirror_.bytes(), s));
    if (!host_copies_) GP_CUDA_CHECK(cudaMemsetAsync(staged_out_.get(), 0, staged_out_.bytes(), s));
    GP_CUDA_CHECK(cudaStreamSynchronize(s));
  }

  std::string checksum(cudaStream_t s) override {
    OutputDigest d;
    d.device(dev_mirror_.get(), dev_mirror_.bytes());
    if (host_copies_) d.host(host_out_.get(), host_out_.bytes());
    else d.device(staged_out_.get(), staged_out_.bytes());
    return d.compute(s);
  }

  // One iteration, issued by IterationWorkload in every mode.
  template <typename Ops>
  void iteration(Ops& ops) {
    const std::size_t bytes = sizeof(float) * static_cast<std::size_t>(n_);
    const dim3 block(256), grid(static_cast<unsigned>((n_ + 255) / 256));
    float* source = host_copies_ ? host_in_.as<float>() : staged_in_.as<float>();
    float* sink = host_copies_ ? host_out_.as<float>() : staged_out_.as<float>();
    const cudaMemcpyKind to_device = host_copies_ ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToDevice;
    const cudaMemcpyKind to_host = host_copies_ ? cudaMemcpyDeviceToHost : cudaMemcpyDeviceToDevice;
    for (int c = 0; c < copies_; ++c) {
      const std::size_t off = static_cast<std::size_t>(c) * static_cast<std::size_t>(n_);
      float* in = dev_in_.as<float>() + off;
      float* out = dev_out_.as<float>() + off;
      float* mirror = dev_mirror_.as<float>() + off;
      // Mix the host input with what the device kept from the previous iteration.
      ops.kernel(mc_feedback, grid, block, 0, in, mirror, n_);
      ops.copy(mirror, source + off, bytes, to_device);
      ops.kernel(mc_scale, grid, block, 0, mirror, in, n_, c);
      ops.memset(out, 0, bytes);
      ops.kernel(mc_scale, grid, block, 0, in, out, n_, c);
      ops.copy(mirror, out, bytes, cudaMemcpyDeviceToDevice);
      ops.copy(sink + off, mirror, bytes, to_host);
    }
  }

 private:
  int copies_ = 0, n_ = 0;
  bool host_copies_ = true;
  PinnedBuffer host_in_, host_out_;
  DeviceBuffer dev_in_, dev_out_, dev_mirror_;
  DeviceBuffer staged_in_, staged_out_;  // only with host_copies=0
};

}  // namespace

GP_REGISTER_WORKLOAD(Memcpy, WorkloadInfo{
    "memcpy",
    "many small host<->device and device<->device copies and memsets mixed with kernels on one stream "
    "(pinned host memory); do graphs make small copies cheaper?",
    {{"copies", "16", "chunks per iteration; each chunk issues 3 copies, 1 memset and 3 kernels"},
     {"bytes", "4096", "bytes per copy (a multiple of 4)"},
     {"host_copies", "1",
      "1 = the first and last copy of a chunk go to/from pinned host memory; 0 = device-to-device instead"}}})

}  // namespace gp
