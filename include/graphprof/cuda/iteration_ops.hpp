// One description of an iteration, two ways to issue it. A workload writes its iteration once as
// a template over an "ops" object; StreamOps issues each operation on a stream through the
// LaunchContext (eager and capture modes), GraphOps adds the same operation as a node with
// cudaGraphAdd*Node (explicit mode). Operations issued one after another on StreamOps run in
// stream order, so GraphOps chains each node after the previous one unless told otherwise: the
// explicit graph then has exactly the dependencies the stream gives the captured graph.
#pragma once
#include <cuda_runtime_api.h>

#include <cstddef>
#include <tuple>
#include <utility>
#include <vector>

#include "graphprof/cuda/cuda_check.hpp"
#include "graphprof/cuda/workload.hpp"

namespace gp {

class StreamOps {
 public:
  explicit StreamOps(LaunchContext& ctx) : ctx_(ctx), stream_(ctx.stream()) {}

  cudaStream_t stream() const noexcept { return stream_; }
  // Later operations go to `s` (fork-join branches); the context's stream by default.
  void use_stream(cudaStream_t s) noexcept { stream_ = s; }
  LaunchContext& context() noexcept { return ctx_; }

  template <typename... KArgs, typename... Args>
  void kernel(void (*k)(KArgs...), dim3 grid, dim3 block, std::size_t shared_bytes, Args&&... args) {
    ctx_.launch_on(stream_, k, grid, block, shared_bytes, std::forward<Args>(args)...);
  }

  void copy(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind) {
    cudaStream_t s = stream_;
    ctx_.api("cudaMemcpyAsync", [=] { return cudaMemcpyAsync(dst, src, bytes, kind, s); });
  }

  void memset(void* dst, unsigned char value, std::size_t bytes) {
    cudaStream_t s = stream_;
    ctx_.api("cudaMemsetAsync", [=] { return cudaMemsetAsync(dst, value, bytes, s); });
  }

  void host(cudaHostFn_t fn, void* user_data) {
    cudaStream_t s = stream_;
    ctx_.api("cudaLaunchHostFunc", [=] { return cudaLaunchHostFunc(s, fn, user_data); });
  }

  // Stream-ordered allocation from the device's default pool (a memory allocation node when
  // captured). `device` is unused here; GraphOps needs it.
  void* alloc(std::size_t bytes, int /*device*/) {
    void* p = nullptr;
    cudaStream_t s = stream_;
    ctx_.api("cudaMallocAsync", [&p, bytes, s] { return cudaMallocAsync(&p, bytes, s); });
    return p;
  }

  void free(void* p) {
    cudaStream_t s = stream_;
    ctx_.api("cudaFreeAsync", [p, s] { return cudaFreeAsync(p, s); });
  }

 private:
  LaunchContext& ctx_;
  cudaStream_t stream_;
};

class GraphOps {
 public:
  explicit GraphOps(cudaGraph_t g) : g_(g) {}

  cudaGraph_t graph() const noexcept { return g_; }
  // The node added last (nullptr before the first).
  cudaGraphNode_t last() const noexcept { return last_; }
  // The next node depends on exactly these nodes (then chaining resumes from it).
  void depend_on(std::vector<cudaGraphNode_t> deps) { deps_ = std::move(deps); }

  template <typename... KArgs, typename... Args>
  cudaGraphNode_t kernel(void (*k)(KArgs...), dim3 grid, dim3 block, std::size_t shared_bytes, Args&&... args) {
    static_assert(sizeof...(KArgs) == sizeof...(Args), "argument count does not match the kernel");
    // The same conversions LaunchContext::launch applies, so both modes pass identical values.
    std::tuple<KArgs...> converted{static_cast<KArgs>(std::forward<Args>(args))...};
    cudaGraphNode_t node = nullptr;
    std::apply(
        [&](auto&... a) {
          void* ptrs[sizeof...(KArgs) + 1] = {static_cast<void*>(&a)...};
          cudaKernelNodeParams p{};
          p.func = reinterpret_cast<void*>(k);
          p.gridDim = grid;
          p.blockDim = block;
          p.sharedMemBytes = static_cast<unsigned>(shared_bytes);
          p.kernelParams = ptrs;  // copied by the call, so the stack array may go away
          GP_CUDA_CHECK(cudaGraphAddKernelNode(&node, g_, deps_data(), deps_.size(), &p));
        },
        converted);
    return added(node);
  }

  cudaGraphNode_t copy(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind) {
    cudaGraphNode_t node = nullptr;
    GP_CUDA_CHECK(cudaGraphAddMemcpyNode1D(&node, g_, deps_data(), deps_.size(), dst, src, bytes, kind));
    return added(node);
  }

  cudaGraphNode_t memset(void* dst, unsigned char value, std::size_t bytes) {
    cudaMemsetParams p{};
    p.dst = dst;
    p.value = value;
    p.elementSize = 1;  // what cudaMemsetAsync does
    p.width = bytes;
    p.height = 1;
    p.pitch = bytes;  // unused when height is 1
    cudaGraphNode_t node = nullptr;
    GP_CUDA_CHECK(cudaGraphAddMemsetNode(&node, g_, deps_data(), deps_.size(), &p));
    return added(node);
  }

  cudaGraphNode_t host(cudaHostFn_t fn, void* user_data) {
    cudaHostNodeParams p{};
    p.fn = fn;
    p.userData = user_data;
    cudaGraphNode_t node = nullptr;
    GP_CUDA_CHECK(cudaGraphAddHostNode(&node, g_, deps_data(), deps_.size(), &p));
    return added(node);
  }

  // A memory allocation node on `device`; returns the address the graph will use.
  void* alloc(std::size_t bytes, int device) {
    cudaMemAllocNodeParams p{};
    p.poolProps.allocType = cudaMemAllocationTypePinned;
    p.poolProps.handleTypes = cudaMemHandleTypeNone;
    p.poolProps.location.type = cudaMemLocationTypeDevice;
    p.poolProps.location.id = device;
    p.bytesize = bytes;
    cudaGraphNode_t node = nullptr;
    GP_CUDA_CHECK(cudaGraphAddMemAllocNode(&node, g_, deps_data(), deps_.size(), &p));
    added(node);
    return p.dptr;
  }

  void free(void* p) {
    cudaGraphNode_t node = nullptr;
    GP_CUDA_CHECK(cudaGraphAddMemFreeNode(&node, g_, deps_data(), deps_.size(), p));
    added(node);
  }

 private:
  const cudaGraphNode_t* deps_data() const noexcept { return deps_.empty() ? nullptr : deps_.data(); }
  cudaGraphNode_t added(cudaGraphNode_t node) {
    last_ = node;
    deps_.assign(1, node);
    return node;
  }

  cudaGraph_t g_;
  std::vector<cudaGraphNode_t> deps_;
  cudaGraphNode_t last_ = nullptr;
};

// Base of a workload whose whole iteration is `template <class Ops> void iteration(Ops&)`
// (public in Derived): eager and capture issue it on the stream, the explicit mode as nodes.
template <typename Derived>
class IterationWorkload : public Workload {
 public:
  void enqueue(LaunchContext& ctx) override {
    StreamOps ops(ctx);
    static_cast<Derived*>(this)->iteration(ops);
  }
  void build_graph(cudaGraph_t g) override {
    GraphOps ops(g);
    static_cast<Derived*>(this)->iteration(ops);
  }
};

}  // namespace gp
