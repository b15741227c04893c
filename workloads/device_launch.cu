// device-launch: device graph launch (CUDA 12+). A "work" graph of `kernels` small kernels is
// instantiated with cudaGraphInstantiateFlagDeviceLaunch and uploaded once in setup. An iteration
// runs it `launches` times in a row:
//   eager    the host-launched equivalent: `launches` host calls cudaGraphLaunch(work, stream)
//            (a device graph may only be launched from the device by a kernel that is itself part
//            of a graph, so there is no plain-launch form of a device launch)
//   capture  one kernel <<<1,1>>> captured into a graph; when replayed it calls cudaGraphLaunch
//            from the device (fire-and-forget or tail launch), and the work graph's last node
//            relaunches the work graph itself (tail launch of cudaGetCurrentGraphExec()) until
//            `launches` runs are done: the host issues one cudaGraphLaunch per iteration
//   graph    the same launcher kernel added with cudaGraphAddKernelNode
// The device-side cudaGraphLaunch is a compiler builtin: no relocatable device code and no
// cudadevrt are needed (built here without -rdc for sm_80 and sm_90).
#include <string>
#include <vector>

#include "graphprof/cuda/handles.hpp"
#include "graphprof/cuda/workload.hpp"
#include "graphprof/core/error.hpp"
#include "graphprof/cuda/iteration_ops.hpp"
#include "graphprof/cuda/output_digest.hpp"

namespace gp {
namespace {

// One step of the work graph: an affine update depending on the step (bounded: |a| < 1).
__global__ void dl_step(float* x, int n, int step) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = fmaf(x[i], 1.0f - 1.0f / static_cast<float>(step + 3), 0.001f * static_cast<float>(step % 5));
}

// Last node of the work graph: while runs remain, enqueue this graph again as a tail launch (it
// starts when the current run has completed). Launched from the host, `remaining` is 0.
__global__ void dl_relaunch(int* remaining, int* status) {
  if (*remaining > 0) {
    *remaining -= 1;
    __threadfence();
    const cudaError_t e = cudaGraphLaunch(cudaGetCurrentGraphExec(), cudaStreamGraphTailLaunch);
    if (e != cudaSuccess) *status = static_cast<int>(e);
  }
}

// The launcher: the only node of the host graph in capture and graph modes.
__global__ void dl_launch(cudaGraphExec_t work, int* remaining, int* status, int launches, int tail) {
  *remaining = launches - 1;
  __threadfence();  // the work graph's last node reads it
  const cudaError_t e = cudaGraphLaunch(work, tail != 0 ? cudaStreamGraphTailLaunch : cudaStreamGraphFireAndForget);
  if (e != cudaSuccess) *status = static_cast<int>(e);
}

class DeviceLaunch final : public Workload {
 public:
  void setup(const Params& p) override {
    kernels_ = static_cast<int>(p.get_int("kernels", 1, 10000));
    launches_ = static_cast<int>(p.get_int("launches", 1, 10000));
    n_ = static_cast<int>(p.get_int("elements", 1, 1 << 24));
    const std::string& via = p.get("via");
    if (via == "fire-and-forget") tail_ = 0;
    else if (via == "tail") tail_ = 1;
    else throw usage_error("--param via=" + via + ": expected fire-and-forget or tail");

    x_ = DeviceBuffer(sizeof(float) * static_cast<std::size_t>(n_));
    control_ = DeviceBuffer(2 * sizeof(int));  // [0] runs remaining, [1] first device launch error
    init_.resize(static_cast<std::size_t>(n_));
    for (int i = 0; i < n_; ++i) init_[static_cast<std::size_t>(i)] = 1.0f + static_cast<float>(i % 89) * 0.01f;

    work_graph_ = make_graph();
    GraphOps ops(work_graph_.get());
    for (int k = 0; k < kernels_; ++k) ops.kernel(dl_step, grid(), dim3(256), 0, x_.as<float>(), n_, k);
    ops.kernel(dl_relaunch, dim3(1), dim3(1), 0, remaining(), status());
    cudaGraphExec_t exec = nullptr;
    GP_CUDA_CHECK(cudaGraphInstantiateWithFlags(&exec, work_graph_.get(), cudaGraphInstantiateFlagDeviceLaunch));
    work_ = GraphExec(exec);
    // A device graph must be uploaded before the device may launch it.
    Stream s = make_stream();
    GP_CUDA_CHECK(cudaGraphUpload(work_.get(), s.get()));
    GP_CUDA_CHECK(cudaStreamSynchronize(s.get()));
  }

  void reset(cudaStream_t s) override {
    GP_CUDA_CHECK(cudaMemcpyAsync(x_.get(), init_.data(), x_.bytes(), cudaMemcpyHostToDevice, s));
    GP_CUDA_CHECK(cudaMemsetAsync(control_.get(), 0, control_.bytes(), s));
    GP_CUDA_CHECK(cudaStreamSynchronize(s));
  }

  void enqueue(LaunchContext& ctx) override {
    cudaStreamCaptureStatus capturing = cudaStreamCaptureStatusNone;
    GP_CUDA_CHECK(cudaStreamIsCapturing(ctx.stream(), &capturing));
    if (capturing == cudaStreamCaptureStatusActive) {
      ctx.launch(dl_launch, dim3(1), dim3(1), 0, work_.get(), remaining(), status(), launches_, tail_);
      return;
    }
    const cudaGraphExec_t work = work_.get();
    const cudaStream_t s = ctx.stream();
    for (int r = 0; r < launches_; ++r) ctx.api("cudaGraphLaunch", [=] { return cudaGraphLaunch(work, s); });
  }

  void build_graph(cudaGraph_t g) override {
    GraphOps(g).kernel(dl_launch, dim3(1), dim3(1), 0, work_.get(), remaining(), status(), launches_, tail_);
  }

  std::string checksum(cudaStream_t s) override {
    int control[2] = {0, 0};
    GP_CUDA_CHECK(cudaMemcpyAsync(control, control_.get(), sizeof(control), cudaMemcpyDeviceToHost, s));
    GP_CUDA_CHECK(cudaStreamSynchronize(s));
    // A failed device-side launch leaves no trace on the host: report it as the failing call.
    if (control[1] != 0)
      throw CudaError(static_cast<cudaError_t>(control[1]), "cudaGraphLaunch (from the device)", __FILE__, __LINE__);
    return OutputDigest().device(x_.get(), x_.bytes()).compute(s);
  }

  std::map<std::string, double> extra_metrics() override {
    return {{"work_graph_nodes", static_cast<double>(kernels_ + 1)},
            {"work_graph_runs_per_iter", static_cast<double>(launches_)}};
  }

 private:
  dim3 grid() const { return dim3(static_cast<unsigned>((n_ + 255) / 256)); }
  int* remaining() const { return control_.as<int>(); }
  int* status() const { return control_.as<int>() + 1; }

  int kernels_ = 0, launches_ = 0, n_ = 0, tail_ = 0;
  DeviceBuffer x_, control_;
  std::vector<float> init_;
  Graph work_graph_;
  GraphExec work_;
};

}  // namespace

GP_REGISTER_WORKLOAD(DeviceLaunch, WorkloadInfo{
    "device-launch",
    "a graph launched from the device (cudaGraphInstantiateFlagDeviceLaunch): one launcher kernel runs a work graph "
    "`launches` times via device-side cudaGraphLaunch; eager launches the same device graph from the host",
    {{"kernels", "10", "kernels in the work graph (plus one node that relaunches it)"},
     {"launches", "10", "runs of the work graph per iteration"},
     {"elements", "4096", "floats each kernel updates"},
     {"via", "fire-and-forget",
      "how the launcher starts the work graph: fire-and-forget (runs beside the launcher) or tail (after it)"}}})

}  // namespace gp
