// The Workload interface: one body of GPU work that graphprof runs in three modes.
//   setup(params)  may allocate and synchronise
//   reset(stream)  restores the inputs, so every mode's verify pass starts from the same state
//   enqueue(ctx)   one iteration, capture-safe (asynchronous calls only); serves eager and capture
//   build_graph(g) the same iteration built node by node (explicit "graph" mode)
//   checksum()     digest of the outputs after the verify pass; equal across modes
// Workloads live in workloads/, one .cu each, and register themselves with GP_REGISTER_WORKLOAD.
#pragma once
#include <cuda_runtime_api.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "graphprof/cuda/cuda_check.hpp"
#include "graphprof/cuda/handles.hpp"
#include "graphprof/mode.hpp"
#include "graphprof/params.hpp"

namespace gp {

// What enqueue() launches through. In the eager timing pass it records the host time of every
// launch API call; otherwise it only forwards the call. Workloads never read clocks themselves.
class LaunchContext {
 public:
  explicit LaunchContext(cudaStream_t stream) : stream_(stream) {}

  cudaStream_t stream() const noexcept { return stream_; }
  // Index of the iteration being enqueued (0-based, counted per run), for workloads whose
  // parameters change between iterations.
  std::uint64_t iteration() const noexcept { return iteration_; }
  void set_iteration(std::uint64_t i) noexcept { iteration_ = i; }

  // Where per-call host times (ns) go; nullptr disables timing.
  void record_calls_into(std::vector<double>* sink) noexcept { sink_ = sink; }
  std::size_t calls() const noexcept { return calls_; }
  void reset_call_count() noexcept { calls_ = 0; }

  // Launch `kernel` with cudaLaunchKernel on this context's stream (or `stream` if given).
  template <typename... KArgs, typename... Args>
  void launch(void (*kernel)(KArgs...), dim3 grid, dim3 block, std::size_t shared_bytes, Args&&... args) {
    launch_on(stream_, kernel, grid, block, shared_bytes, std::forward<Args>(args)...);
  }

  template <typename... KArgs, typename... Args>
  void launch_on(cudaStream_t stream, void (*kernel)(KArgs...), dim3 grid, dim3 block, std::size_t shared_bytes,
                 Args&&... args) {
    static_assert(sizeof...(KArgs) == sizeof...(Args), "argument count does not match the kernel");
    std::tuple<KArgs...> converted{static_cast<KArgs>(std::forward<Args>(args))...};
    std::apply(
        [&](auto&... a) {
          void* ptrs[sizeof...(KArgs) + 1] = {static_cast<void*>(&a)...};
          api("cudaLaunchKernel", [&] {
            return cudaLaunchKernel(reinterpret_cast<const void*>(kernel), grid, block, ptrs, shared_bytes, stream);
          });
        },
        converted);
  }

  // Any other enqueue-time API call (copies, memsets, event record/wait, host functions):
  // timed like a launch and checked. `f` returns cudaError_t.
  template <typename F>
  void api(const char* name, F&& f) {
    cudaError_t e;
    if (sink_ != nullptr) {
      const auto t0 = std::chrono::steady_clock::now();
      e = f();
      const auto t1 = std::chrono::steady_clock::now();
      sink_->push_back(static_cast<double>(std::chrono::duration_cast<std::chrono::nanoseconds>(t1 - t0).count()));
    } else {
      e = f();
    }
    ++calls_;
    if (e != cudaSuccess) throw CudaError(e, name, __FILE__, __LINE__);
  }

 private:
  cudaStream_t stream_;
  std::uint64_t iteration_ = 0;
  std::vector<double>* sink_ = nullptr;
  std::size_t calls_ = 0;
};

class Workload {
 public:
  virtual ~Workload() = default;
  virtual void setup(const Params& params) = 0;
  virtual void reset(cudaStream_t stream) = 0;
  virtual void enqueue(LaunchContext& ctx) = 0;
  // Explicit construction of one iteration; only called when supports(Mode::kGraph) is empty.
  virtual void build_graph(cudaGraph_t graph) = 0;
  // Empty when the mode is supported; otherwise the reason, shown to the user and recorded.
  virtual std::string unsupported_reason(Mode) const { return {}; }
  // Digest of the outputs (hex text). May synchronise.
  virtual std::string checksum(cudaStream_t stream) = 0;

  // Graph modes only: called before every replay with the graph the exec was instantiated from.
  // A workload whose parameters change per iteration (ctx.iteration()) applies the change here,
  // through ctx.api so its host time counts as launch time: it may update `exec` in place
  // (cudaGraphExecKernelNodeSetParams, cudaGraphExecUpdate) or replace it. Default: replay as is.
  virtual void before_replay(cudaGraph_t /*graph*/, GraphExec& /*exec*/, LaunchContext& /*ctx*/) {}
  // Figures only the workload can measure (graph memory, pool sizes, ...), recorded under
  // sections.workload of the mode's result at the end of the first repetition. May synchronise.
  virtual std::map<std::string, double> extra_metrics() { return {}; }
};

struct WorkloadInfo {
  std::string name;
  std::string description;
  std::vector<ParamSpec> params;
};

using WorkloadFactory = std::unique_ptr<Workload> (*)();

struct WorkloadEntry {
  WorkloadInfo info;
  WorkloadFactory create;
};

// Registration happens during static initialisation and touches no CUDA API.
bool register_workload(WorkloadInfo info, WorkloadFactory factory);
const std::vector<WorkloadEntry>& registered_workloads();
const WorkloadEntry* find_workload(const std::string& name);

// FNV-1a digest of a byte range, as 16 hex digits: the usual checksum of a workload's output.
std::string digest_bytes(const void* data, std::size_t bytes);

}  // namespace gp

#define GP_REGISTER_WORKLOAD(Type, ...)                                                            \
  namespace {                                                                                      \
  const bool gp_registered_##Type = ::gp::register_workload(                                       \
      __VA_ARGS__, []() -> std::unique_ptr<::gp::Workload> { return std::make_unique<Type>(); });  \
  }
