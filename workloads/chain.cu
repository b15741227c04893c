// chain: N small kernels in a row, each doing real arithmetic on one buffer. With the default
// sizes every kernel finishes in a few microseconds, so eager mode is bound by launch overhead.
#include <cstring>
#include <string>
#include <vector>

#include "graphprof/cuda/handles.hpp"
#include "graphprof/cuda/workload.hpp"
#include "graphprof/core/error.hpp"

namespace gp {
namespace {

// One step of the chain: an affine update that depends on the step index, so a missing,
// repeated or reordered kernel changes the result.
__global__ void chain_step(float* x, int n, int step, long long spin_cycles) {
  // Optional extra device time per kernel (a busy wait on the SM clock): a controlled slowdown
  // that leaves the result, the graph's shape and the launch count unchanged. Used to check that
  // `compare` catches a slower kernel; 0 (the default) costs one compare.
  if (spin_cycles > 0) {
    const long long t0 = clock64();
    while (clock64() - t0 < spin_cycles) {
    }
  }
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    const float a = 1.0f - 1.0f / static_cast<float>(step + 3);
    const float b = 0.001f * static_cast<float>(step % 7);
    x[i] = fmaf(x[i], a, b + 1e-4f * static_cast<float>(i % 13));
  }
}

class Chain final : public Workload {
 public:
  void setup(const Params& p) override {
    kernels_ = static_cast<int>(p.get_int("kernels", 1, 100000));
    n_ = static_cast<int>(p.get_int("elements", 1, 1 << 28));
    const std::string& sync = p.get("sync_inside");
    if (sync == "0") sync_inside_ = SyncInside::kNone;
    else if (sync == "1" || sync == "stream") sync_inside_ = SyncInside::kStream;
    else if (sync == "event") sync_inside_ = SyncInside::kEvent;
    else if (sync == "query") sync_inside_ = SyncInside::kQuery;
    else throw usage_error("--param sync_inside=" + sync + ": expected 0, 1 (= stream), event or query");
    if (sync_inside_ == SyncInside::kEvent || sync_inside_ == SyncInside::kQuery) halfway_ = make_event(false);
    spin_cycles_ = p.get_int("spin_cycles", 0, 1LL << 40);
    buf_ = DeviceBuffer(sizeof(float) * static_cast<std::size_t>(n_));
    host_.assign(static_cast<std::size_t>(n_), 0.0f);
    for (int i = 0; i < n_; ++i) host_[static_cast<std::size_t>(i)] = 1.0f + static_cast<float>(i % 101) * 0.01f;
  }

  void reset(cudaStream_t s) override {
    GP_CUDA_CHECK(cudaMemcpyAsync(buf_.get(), host_.data(), buf_.bytes(), cudaMemcpyHostToDevice, s));
    GP_CUDA_CHECK(cudaStreamSynchronize(s));
  }

  void enqueue(LaunchContext& ctx) override {
    for (int k = 0; k < kernels_; ++k) {
      ctx.launch(chain_step, grid(), block(), 0, buf_.as<float>(), n_, k, spin_cycles_);
      // The deliberately capture-unsafe variants: the host waits for (or polls) the GPU in the
      // middle of the iteration. Recording the event is fine in a capture; waiting on it is not.
      if (sync_inside_ != SyncInside::kNone && k == kernels_ / 2) host_waits_halfway(ctx);
    }
  }

  void build_graph(cudaGraph_t g) override {
    cudaGraphNode_t prev = nullptr;
    float* x = buf_.as<float>();
    int n = n_;
    long long spin = spin_cycles_;
    for (int k = 0; k < kernels_; ++k) {
      int step = k;
      void* args[] = {&x, &n, &step, &spin};
      cudaKernelNodeParams p{};
      p.func = reinterpret_cast<void*>(chain_step);
      p.gridDim = grid();
      p.blockDim = block();
      p.sharedMemBytes = 0;
      p.kernelParams = args;
      cudaGraphNode_t node = nullptr;
      GP_CUDA_CHECK(cudaGraphAddKernelNode(&node, g, prev ? &prev : nullptr, prev ? 1 : 0, &p));
      prev = node;
    }
  }

  void host_waits_halfway(LaunchContext& ctx) {
    const cudaStream_t s = ctx.stream();
    const cudaEvent_t e = halfway_.get();
    switch (sync_inside_) {
      case SyncInside::kNone: return;
      case SyncInside::kStream: ctx.api("cudaStreamSynchronize", [s] { return cudaStreamSynchronize(s); }); return;
      case SyncInside::kEvent:
        ctx.api("cudaEventRecord", [e, s] { return cudaEventRecord(e, s); });
        ctx.api("cudaEventSynchronize", [e] { return cudaEventSynchronize(e); });
        return;
      case SyncInside::kQuery:
        ctx.api("cudaEventRecord", [e, s] { return cudaEventRecord(e, s); });
        // Not ready is an answer, not an error.
        ctx.api("cudaEventQuery", [e] {
          const cudaError_t r = cudaEventQuery(e);
          return r == cudaErrorNotReady ? cudaSuccess : r;
        });
        return;
    }
  }

  std::string checksum(cudaStream_t s) override {
    std::vector<float> out(static_cast<std::size_t>(n_));
    GP_CUDA_CHECK(cudaMemcpyAsync(out.data(), buf_.get(), buf_.bytes(), cudaMemcpyDeviceToHost, s));
    GP_CUDA_CHECK(cudaStreamSynchronize(s));
    return digest_bytes(out.data(), out.size() * sizeof(float));
  }

 private:
  dim3 block() const { return dim3(256); }
  dim3 grid() const { return dim3(static_cast<unsigned>((n_ + 255) / 256)); }

  int kernels_ = 0;
  int n_ = 0;
  enum class SyncInside { kNone, kStream, kEvent, kQuery };
  SyncInside sync_inside_ = SyncInside::kNone;
  Event halfway_;
  long long spin_cycles_ = 0;
  DeviceBuffer buf_;
  std::vector<float> host_;
};

}  // namespace

GP_REGISTER_WORKLOAD(Chain, WorkloadInfo{
    "chain",
    "N small kernels in a row on one buffer (launch-bound); the classic case for CUDA Graphs",
    {{"kernels", "100", "number of kernels per iteration"},
     {"elements", "4096", "floats in the buffer each kernel updates"},
     {"sync_inside", "0",
      "wait for the GPU from the host in the middle of an iteration, breaking stream capture on purpose: "
      "1 or stream = cudaStreamSynchronize, event = cudaEventRecord + cudaEventSynchronize, "
      "query = cudaEventRecord + cudaEventQuery",
      {"stream", "event", "query"}},
     {"spin_cycles", "0", "extra busy-wait per kernel in SM clock cycles: a controlled slowdown for testing regression gates"}}})

}  // namespace gp
