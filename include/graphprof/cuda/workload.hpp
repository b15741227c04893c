// The Workload interface: one body of GPU work that graphprof runs in three modes. This is the
// public workload API (docs/api.md): bundled workloads (workloads/*.cu) and user plugins
// (graphprof run --load libX.so) are written against it in the same way.
//   setup(params)  may allocate and synchronise; the parameters were declared with defaults
//   reset(stream)  restores the inputs, so every mode's verify pass starts from the same state
//   enqueue(ctx)   one iteration, capture-safe (asynchronous calls only); serves eager and capture
//   build_graph(g) optional: the same iteration built node by node (explicit "graph" mode);
//                  a workload without it reports graph mode as "not provided"
//   checksum()     digest of the outputs after the verify pass; equal across modes
//   teardown       the destructor (RAII members: DeviceBuffer, Stream, ...)
// Registration is one line, GP_REGISTER_WORKLOAD(Type, WorkloadInfo{...}), inside namespace gp.
#pragma once
#include <cuda_runtime_api.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "graphprof/cuda/cuda_check.hpp"
#include "graphprof/cuda/handles.hpp"
#include "graphprof/core/mode.hpp"
#include "graphprof/core/params.hpp"

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
  void record_calls_into(std::vector<double>* sink) noexcept {
    if (sink == nullptr) record_calls_with(nullptr, nullptr);
    else record_calls_with(&append_to_vector, sink);
  }
  // The same with a plain function and its argument, so the sink can cross a C boundary
  // (plugins, graphprof/cuda/plugin_abi.h); `fn` nullptr disables timing.
  using CallSink = void (*)(void* user, double ns);
  void record_calls_with(CallSink fn, void* user) noexcept {
    sink_fn_ = fn;
    sink_user_ = user;
  }
  CallSink call_sink() const noexcept { return sink_fn_; }
  void* call_sink_user() const noexcept { return sink_user_; }
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
    if (sink_fn_ != nullptr) {
      const auto t0 = std::chrono::steady_clock::now();
      e = f();
      const auto t1 = std::chrono::steady_clock::now();
      sink_fn_(sink_user_, static_cast<double>(std::chrono::duration_cast<std::chrono::nanoseconds>(t1 - t0).count()));
    } else {
      e = f();
    }
    ++calls_;
    if (e != cudaSuccess) throw CudaError(e, name, __FILE__, __LINE__);
  }
  // Adds calls made on another LaunchContext for this iteration (the plugin boundary).
  void add_calls(std::size_t n) noexcept { calls_ += n; }

 private:
  static void append_to_vector(void* user, double ns) { static_cast<std::vector<double>*>(user)->push_back(ns); }

  cudaStream_t stream_;
  std::uint64_t iteration_ = 0;
  CallSink sink_fn_ = nullptr;
  void* sink_user_ = nullptr;
  std::size_t calls_ = 0;
};

class Workload {
 public:
  virtual ~Workload() = default;
  virtual void setup(const Params& params) = 0;
  virtual void reset(cudaStream_t stream) = 0;
  virtual void enqueue(LaunchContext& ctx) = 0;
  // Explicit construction of one iteration (graph mode); only called when unsupported_reason
  // (Mode::kGraph) is empty. Optional: GP_REGISTER_WORKLOAD notices a class that does not
  // override it, and graph mode is then recorded as unsupported ("not provided").
  virtual void build_graph(cudaGraph_t /*graph*/) { throw Error(ExitCode::kInternal, "build_graph: not provided"); }
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

using WorkloadFactory = std::function<std::unique_ptr<Workload>()>;

// Where a workload comes from when it is not bundled: the plugin library it was loaded from.
struct PluginOrigin {
  std::string library;       // path as given to --load
  std::string name;          // the plugin's own name and version (graphprof_add_workload VERSION)
  std::string version;
  std::string file_fnv1a64;  // digest of the library file, so reports tell two builds apart
  unsigned api_major = 0, api_minor = 0;
};

struct WorkloadEntry {
  WorkloadInfo info;
  WorkloadFactory create;
  bool provides_graph = true;                  // false: the class has no build_graph of its own
  std::shared_ptr<const PluginOrigin> plugin;  // nullptr for bundled workloads
};

// The reason graph mode is unavailable when a workload has no build_graph.
inline constexpr const char* kGraphNotProvided =
    "not provided: the workload has no build_graph (explicit graph construction); eager and capture still run";

// Registration happens during static initialisation and touches no CUDA API.
bool register_workload(WorkloadInfo info, WorkloadFactory factory, bool provides_graph = true);
bool register_workload(WorkloadEntry entry);
const std::vector<WorkloadEntry>& registered_workloads();
const WorkloadEntry* find_workload(const std::string& name);

// True when Type (or a base between it and Workload) overrides build_graph.
template <typename Type>
constexpr bool overrides_build_graph() {
  return !std::is_same_v<decltype(&Type::build_graph), void (Workload::*)(cudaGraph_t)>;
}

// FNV-1a digest of a byte range, as 16 hex digits: the usual checksum of a workload's output.
std::string digest_bytes(const void* data, std::size_t bytes);

}  // namespace gp

#define GP_REGISTER_WORKLOAD(Type, ...)                                                           \
  namespace {                                                                                     \
  const bool gp_registered_##Type = ::gp::register_workload(                                      \
      __VA_ARGS__, []() -> std::unique_ptr<::gp::Workload> { return std::make_unique<Type>(); },  \
      ::gp::overrides_build_graph<Type>());                                                       \
  }
