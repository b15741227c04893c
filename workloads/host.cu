// host: host callbacks between kernels. Each stage runs a kernel, copies its result to pinned host
// memory, runs a host function on it (cudaLaunchHostFunc in eager and capture, a host node in the
// explicit graph) and copies the host's answer back for the next stage's kernel. This is the
// shape of host-side decisions inside GPU work (sampling, bookkeeping), which stalls the stream
// for a round trip in every mode; the question is what the graph still saves around it.
#include <cstring>
#include <vector>

#include "graphprof/cuda/handles.hpp"
#include "graphprof/cuda/workload.hpp"
#include "graphprof/cuda/iteration_ops.hpp"
#include "graphprof/cuda/output_digest.hpp"

namespace gp {
namespace {

// x = 0.5 x + feedback + stage-dependent offset; reads the host's answer of the previous stage.
// With the host's factors below, every component shrinks per stage, so values stay bounded.
__global__ void host_stage(float* x, const float* feedback, int n, int stage) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = fmaf(x[i], 0.5f, feedback[i] + 0.01f * static_cast<float>(stage % 9));
}

// What one host function works on: the stage's copy of the device data and its answer.
struct HostStage {
  float* in = nullptr;  // written by the device->host copy, read by the host function
  float* out = nullptr;
  int n = 0;
};

// Runs on a CUDA driver thread: no CUDA calls allowed. Centres the data on its mean and adds a
// running sum, element by element in a fixed order, so the answer is deterministic.
void CUDART_CB host_centre(void* user_data) {
  const auto* st = static_cast<const HostStage*>(user_data);
  double mean = 0.0;
  for (int i = 0; i < st->n; ++i) mean += st->in[i];
  mean /= st->n > 0 ? st->n : 1;
  float running = 0.0f;
  for (int i = 0; i < st->n; ++i) {
    const float centred = st->in[i] - static_cast<float>(mean);
    running = 0.5f * running + 0.01f * centred;
    st->out[i] = 0.25f * centred + running;
  }
}

class Host final : public IterationWorkload<Host> {
 public:
  void setup(const Params& p) override {
    stages_ = static_cast<int>(p.get_int("stages", 1, 10000));
    n_ = static_cast<int>(p.get_int("elements", 1, 1 << 22));
    const std::size_t stage_bytes = sizeof(float) * static_cast<std::size_t>(n_);
    const std::size_t all = stage_bytes * static_cast<std::size_t>(stages_);
    x_ = DeviceBuffer(stage_bytes);
    feedback_ = DeviceBuffer(stage_bytes);
    host_in_ = PinnedBuffer(all);
    host_out_ = PinnedBuffer(all);
    // Fixed addresses for the host functions' arguments: the vector is never resized again.
    stage_args_.resize(static_cast<std::size_t>(stages_));
    for (int s = 0; s < stages_; ++s) {
      HostStage& a = stage_args_[static_cast<std::size_t>(s)];
      a.in = host_in_.as<float>() + static_cast<std::size_t>(s) * static_cast<std::size_t>(n_);
      a.out = host_out_.as<float>() + static_cast<std::size_t>(s) * static_cast<std::size_t>(n_);
      a.n = n_;
    }
    init_.resize(static_cast<std::size_t>(n_));
    for (int i = 0; i < n_; ++i) init_[static_cast<std::size_t>(i)] = static_cast<float>(i % 53) * 0.05f - 1.0f;
  }

  void reset(cudaStream_t s) override {
    GP_CUDA_CHECK(cudaStreamSynchronize(s));
    std::memset(host_in_.get(), 0, host_in_.bytes());
    std::memset(host_out_.get(), 0, host_out_.bytes());
    GP_CUDA_CHECK(cudaMemcpyAsync(x_.get(), init_.data(), x_.bytes(), cudaMemcpyHostToDevice, s));
    GP_CUDA_CHECK(cudaMemsetAsync(feedback_.get(), 0, feedback_.bytes(), s));
    GP_CUDA_CHECK(cudaStreamSynchronize(s));
  }

  std::string checksum(cudaStream_t s) override {
    return OutputDigest().device(x_.get(), x_.bytes()).host(host_out_.get(), host_out_.bytes()).compute(s);
  }

  // One iteration, issued by IterationWorkload in every mode.
  template <typename Ops>
  void iteration(Ops& ops) {
    const std::size_t bytes = x_.bytes();
    const dim3 block(256), grid(static_cast<unsigned>((n_ + 255) / 256));
    for (int s = 0; s < stages_; ++s) {
      HostStage* a = &stage_args_[static_cast<std::size_t>(s)];
      ops.kernel(host_stage, grid, block, 0, x_.as<float>(), feedback_.as<float>(), n_, s);
      ops.copy(a->in, x_.get(), bytes, cudaMemcpyDeviceToHost);
      ops.host(host_centre, a);
      ops.copy(feedback_.get(), a->out, bytes, cudaMemcpyHostToDevice);
    }
  }

 private:
  int stages_ = 0, n_ = 0;
  DeviceBuffer x_, feedback_;
  PinnedBuffer host_in_, host_out_;
  std::vector<HostStage> stage_args_;
  std::vector<float> init_;
};

}  // namespace

GP_REGISTER_WORKLOAD(Host, WorkloadInfo{
    "host",
    "kernels separated by host callbacks (cudaLaunchHostFunc / host nodes) that work on pinned copies of the "
    "device data and send their answer back",
    {{"stages", "8", "kernel -> copy to host -> host function -> copy to device, repeated this many times"},
     {"elements", "1024", "floats per stage (the host function's work is linear in this)"}}})

}  // namespace gp
