// update: a chain of kernels whose scalar arguments change every iteration, as when a step size,
// a position or a pointer moves between replays. Eager mode simply launches with the new values.
// A graph replays fixed values, so before every replay the graph modes apply the change with the
// strategy chosen by --param strategy:
//   setparams      cudaGraphExecKernelNodeSetParams on every kernel node of the exec
//   update         re-capture (capture mode) or rebuild (graph mode) + cudaGraphExecUpdate
//   reinstantiate  re-capture or rebuild + cudaGraphInstantiate of a new exec
// All calls go through the LaunchContext, so launch_cpu_per_iter is the host cost of the
// strategy plus the launch; sweeping `kernels` shows how each strategy scales with graph size.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "graphprof/cuda/handles.hpp"
#include "graphprof/cuda/workload.hpp"
#include "graphprof/cuda/iteration_ops.hpp"
#include "graphprof/cuda/output_digest.hpp"

namespace gp {
namespace {

// One step: x = x * a(step) + shift, where shift is the argument that changes every iteration.
__global__ void upd_step(float* x, int n, int step, float shift) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    const float a = 1.0f - 1.0f / static_cast<float>(step + 3);
    x[i] = fmaf(x[i], a, shift + 1e-4f * static_cast<float>(i % 11));
  }
}

// The per-iteration parameter of kernel `step`: a function of the iteration index only, so every
// mode passes the same values for iterations 0, 1, 2 of the verify pass.
float shift_of(std::uint64_t iteration, int step) {
  return 0.001f * static_cast<float>((iteration + static_cast<std::uint64_t>(step)) % 11);
}

enum class Strategy { kSetParams, kUpdate, kReinstantiate };

class Update final : public Workload {
 public:
  void setup(const Params& p) override {
    kernels_ = static_cast<int>(p.get_int("kernels", 1, 100000));
    n_ = static_cast<int>(p.get_int("elements", 1, 1 << 26));
    const std::string& s = p.get("strategy");
    if (s == "setparams") strategy_ = Strategy::kSetParams;
    else if (s == "update") strategy_ = Strategy::kUpdate;
    else if (s == "reinstantiate") strategy_ = Strategy::kReinstantiate;
    else throw usage_error("--param strategy=" + s + ": expected setparams, update or reinstantiate");
    x_ = DeviceBuffer(sizeof(float) * static_cast<std::size_t>(n_));
    init_.resize(static_cast<std::size_t>(n_));
    for (int i = 0; i < n_; ++i) init_[static_cast<std::size_t>(i)] = 1.0f + static_cast<float>(i % 37) * 0.02f;
  }

  void reset(cudaStream_t s) override {
    GP_CUDA_CHECK(cudaMemcpyAsync(x_.get(), init_.data(), x_.bytes(), cudaMemcpyHostToDevice, s));
    GP_CUDA_CHECK(cudaStreamSynchronize(s));
  }

  void enqueue(LaunchContext& ctx) override {
    StreamOps ops(ctx);
    iteration(ops, ctx.iteration());
  }

  void build_graph(cudaGraph_t g) override {
    built_explicitly_ = true;  // only the explicit mode calls build_graph: rebuild, don't re-capture
    GraphOps ops(g);
    iteration(ops, 0);
  }

  void before_replay(cudaGraph_t graph, GraphExec& exec, LaunchContext& ctx) override {
    const std::uint64_t it = ctx.iteration();
    switch (strategy_) {
      case Strategy::kSetParams: {
        find_chain(graph);
        for (int k = 0; k < kernels_; ++k) {
          float* x = x_.as<float>();
          int n = n_, step = k;
          float shift = shift_of(it, k);
          void* args[] = {&x, &n, &step, &shift};
          cudaKernelNodeParams p{};
          p.func = reinterpret_cast<void*>(upd_step);
          p.gridDim = grid();
          p.blockDim = block();
          p.kernelParams = args;
          cudaGraphExec_t e = exec.get();
          cudaGraphNode_t node = chain_[static_cast<std::size_t>(k)];
          ctx.api("cudaGraphExecKernelNodeSetParams", [&] { return cudaGraphExecKernelNodeSetParams(e, node, &p); });
        }
        break;
      }
      case Strategy::kUpdate: {
        Graph fresh = remake(ctx);
        cudaGraphExecUpdateResultInfo info{};
        cudaGraphExec_t e = exec.get();
        ctx.api("cudaGraphExecUpdate", [&] { return cudaGraphExecUpdate(e, fresh.get(), &info); });
        ctx.api("cudaGraphDestroy", [&] {
          fresh.reset();
          return cudaSuccess;
        });
        break;
      }
      case Strategy::kReinstantiate: {
        Graph fresh = remake(ctx);
        cudaGraphExec_t e = nullptr;
        ctx.api("cudaGraphInstantiate", [&] { return cudaGraphInstantiate(&e, fresh.get(), 0); });
        GraphExec replaced(e);
        std::swap(exec, replaced);  // `replaced` now owns the old exec
        ctx.api("cudaGraphExecDestroy", [&] {
          replaced.reset();  // an exec still in flight is freed when it completes
          return cudaSuccess;
        });
        ctx.api("cudaGraphDestroy", [&] {
          fresh.reset();
          return cudaSuccess;
        });
        break;
      }
    }
  }

  std::string checksum(cudaStream_t s) override { return OutputDigest().device(x_.get(), x_.bytes()).compute(s); }

 private:
  dim3 block() const { return dim3(256); }
  dim3 grid() const { return dim3(static_cast<unsigned>((n_ + 255) / 256)); }

  template <typename Ops>
  void iteration(Ops& ops, std::uint64_t it) {
    for (int k = 0; k < kernels_; ++k) ops.kernel(upd_step, grid(), block(), 0, x_.as<float>(), n_, k, shift_of(it, k));
  }

  // The graph of the current iteration, made the way the running mode made the original.
  Graph remake(LaunchContext& ctx) {
    if (built_explicitly_) {
      cudaGraph_t g = nullptr;
      ctx.api("cudaGraphCreate", [&] { return cudaGraphCreate(&g, 0); });
      Graph fresh(g);
      // The node additions are timed as one call: the explicit counterpart of a re-capture.
      ctx.api("cudaGraphAddKernelNode", [&] {
        GraphOps ops(g);
        iteration(ops, ctx.iteration());
        return cudaSuccess;
      });
      return fresh;
    }
    cudaStream_t s = ctx.stream();
    ctx.api("cudaStreamBeginCapture", [s] { return cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal); });
    cudaGraph_t g = nullptr;
    try {
      enqueue(ctx);
    } catch (...) {
      // Leave the stream usable: end the broken capture and drop its partial graph.
      (void)cudaStreamEndCapture(s, &g);
      if (g != nullptr) (void)cudaGraphDestroy(g);
      (void)cudaGetLastError();
      throw;
    }
    ctx.api("cudaStreamEndCapture", [&] { return cudaStreamEndCapture(s, &g); });
    return Graph(g);
  }

  // The kernel nodes of `graph` in chain order (root first), found once per graph: the exec's
  // nodes are addressed through the nodes of the graph it was instantiated from.
  void find_chain(cudaGraph_t graph) {
    if (graph == chain_of_ && !chain_.empty()) return;
    chain_.clear();
    std::size_t count = 0;
    GP_CUDA_CHECK(cudaGraphGetRootNodes(graph, nullptr, &count));
    if (count != 1) throw internal_error("update: expected a chain with one root node, found " + std::to_string(count));
    cudaGraphNode_t node = nullptr;
    GP_CUDA_CHECK(cudaGraphGetRootNodes(graph, &node, &count));
    for (;;) {
      chain_.push_back(node);
      std::size_t next = 0;
      GP_CUDA_CHECK(cudaGraphNodeGetDependentNodes(node, nullptr, nullptr, &next));
      if (next == 0) break;
      if (next != 1) throw internal_error("update: expected a chain, a node has " + std::to_string(next) + " successors");
      GP_CUDA_CHECK(cudaGraphNodeGetDependentNodes(node, &node, nullptr, &next));
    }
    if (chain_.size() != static_cast<std::size_t>(kernels_))
      throw internal_error("update: the graph has " + std::to_string(chain_.size()) + " nodes, expected " +
                           std::to_string(kernels_));
    chain_of_ = graph;
  }

  int kernels_ = 0, n_ = 0;
  Strategy strategy_ = Strategy::kSetParams;
  bool built_explicitly_ = false;
  DeviceBuffer x_;
  std::vector<float> init_;
  cudaGraph_t chain_of_ = nullptr;
  std::vector<cudaGraphNode_t> chain_;
};

}  // namespace

GP_REGISTER_WORKLOAD(Update, WorkloadInfo{
    "update",
    "a chain of kernels whose arguments change every iteration; graph modes apply the change before each replay "
    "with the chosen strategy (exec kernel-node set-params, re-capture/rebuild + exec update, or re-instantiate)",
    {{"kernels", "32", "kernels in the chain (the graph size the update strategies scale with)"},
     {"elements", "4096", "floats each kernel updates"},
     {"strategy", "setparams",
      "setparams | update | reinstantiate: how capture and graph modes apply the new arguments (eager ignores it)"}}})

}  // namespace gp
