// scaling: the graph topologies of NVIDIA's cuda-samples cudaGraphsPerfScaling, so graphprof and
// that sample measure the same graphs (tools/experiments/parity-perfscaling.sh puts them side by side).
// An iteration is `width` independent chains of `length` kernels <<<1, 1>>>; with `entry` a single
// kernel runs first and every chain starts after it. As in the sample, chain 0 runs on the origin
// stream and chain i on stream i, forked by an event recorded on the origin stream and joined back
// by an event recorded on each stream i: the join creates no node, so the graph has `width` sink
// nodes and, without `entry`, `width` root nodes. With `work=0` (the default) the kernels are empty,
// exactly like the sample's `empty()`; `work=1` makes each kernel update its chain's value, so
// the output digest proves that every kernel ran once and in order. `churn` (a diagnostic) creates,
// uses once and destroys `churn_count` CUDA objects of one kind before the workload's own, to find
// which history of a process changes later replays (docs/findings.md, "Parity").
#include <string>
#include <vector>

#include "graphprof/core/error.hpp"

#include "graphprof/cuda/handles.hpp"
#include "graphprof/cuda/workload.hpp"
#include "graphprof/cuda/iteration_ops.hpp"
#include "graphprof/cuda/output_digest.hpp"

namespace gp {
namespace {

__global__ void scaling_empty() {}

// Step `step` of one chain: an affine update, so a lost, repeated or reordered kernel changes it.
__global__ void scaling_step(float* value, int step) {
  *value = fmaf(*value, 1.0f - 1.0f / static_cast<float>(step + 3), 0.001f * static_cast<float>(step % 7));
}

// The entry kernel touches every chain's value, so each chain must start after it.
__global__ void scaling_entry(float* values, int width) {
  for (int b = 0; b < width; ++b) values[b] = values[b] * 0.5f + 1.0f;
}

class Scaling final : public Workload {
  // Defined before their first use: their return type is deduced (void, or the node added).
  template <class Ops>
  auto entry_kernel(Ops& ops) {
    if (work_) return ops.kernel(scaling_entry, dim3(1), dim3(1), 0, values_.as<float>(), width_);
    return ops.kernel(scaling_empty, dim3(1), dim3(1), 0);
  }
  template <class Ops>
  void step_kernel(Ops& ops, int branch, int step) {
    if (work_) ops.kernel(scaling_step, dim3(1), dim3(1), 0, values_.as<float>() + branch, step);
    else ops.kernel(scaling_empty, dim3(1), dim3(1), 0);
  }

 public:
  void setup(const Params& p) override {
    length_ = static_cast<int>(p.get_int("length", 1, 100000));
    width_ = static_cast<int>(p.get_int("width", 1, 64));
    entry_ = p.get_bool("entry");
    work_ = p.get_bool("work");
    values_ = DeviceBuffer(sizeof(float) * static_cast<std::size_t>(width_));
    init_.resize(static_cast<std::size_t>(width_));
    for (int b = 0; b < width_; ++b) init_[static_cast<std::size_t>(b)] = 1.0f + 0.25f * static_cast<float>(b);
    churn(p.get("churn"), static_cast<int>(p.get_int("churn_count", 1, 1000)));
    for (int b = 1; b < width_; ++b) streams_.push_back(make_stream());
    fork_ = make_event(false);
    join_ = make_event(false);
  }

  void reset(cudaStream_t s) override {
    GP_CUDA_CHECK(cudaMemcpyAsync(values_.get(), init_.data(), values_.bytes(), cudaMemcpyHostToDevice, s));
    GP_CUDA_CHECK(cudaStreamSynchronize(s));
  }

  // The sample's createParallelChain(), call for call (one fork event, one join event reused).
  void enqueue(LaunchContext& ctx) override {
    StreamOps ops(ctx);
    const cudaStream_t origin = ctx.stream();
    if (entry_) entry_kernel(ops);
    const cudaEvent_t fork = fork_.get(), join = join_.get();
    ctx.api("cudaEventRecord", [=] { return cudaEventRecord(fork, origin); });
    for (const Stream& s : streams_) {
      const cudaStream_t bs = s.get();
      ctx.api("cudaStreamWaitEvent", [=] { return cudaStreamWaitEvent(bs, fork, 0); });
    }
    for (int b = 0; b < width_; ++b) {
      ops.use_stream(b == 0 ? origin : streams_[static_cast<std::size_t>(b) - 1].get());
      for (int j = 0; j < length_; ++j) step_kernel(ops, b, j);
    }
    for (const Stream& s : streams_) {
      const cudaStream_t bs = s.get();
      ctx.api("cudaEventRecord", [=] { return cudaEventRecord(join, bs); });
      ctx.api("cudaStreamWaitEvent", [=] { return cudaStreamWaitEvent(origin, join, 0); });
    }
  }

  // The same DAG as the captured graph: optional entry node, `width` chains, no join node.
  void build_graph(cudaGraph_t g) override {
    GraphOps ops(g);
    const cudaGraphNode_t root = entry_ ? entry_kernel(ops) : nullptr;
    for (int b = 0; b < width_; ++b) {
      ops.depend_on(root != nullptr ? std::vector<cudaGraphNode_t>{root} : std::vector<cudaGraphNode_t>{});
      for (int j = 0; j < length_; ++j) step_kernel(ops, b, j);
    }
  }

  // What one repetition of the measurement leaves behind in the process, one kind at a time;
  // stream 0 (legacy) runs the kinds that need a stream, so only `streams*` create one.
  void churn(const std::string& kind, int count) {
    static const char* const kinds = "none, streams, streams_kept, pinned, events, malloc, legacy or graphs";
    if (kind == "none") return;
    for (int i = 0; i < count; ++i) {
      if (kind == "streams" || kind == "streams_kept") {
        Stream s = make_stream();
        scaling_empty<<<1, 1, 0, s.get()>>>();
        GP_CUDA_CHECK(cudaGetLastError());
        GP_CUDA_CHECK(cudaStreamSynchronize(s.get()));
        if (kind == "streams_kept") kept_.push_back(std::move(s));
      } else if (kind == "pinned") {
        void* p = nullptr;
        GP_CUDA_CHECK(cudaHostAlloc(&p, 2 * sizeof(int), cudaHostAllocMapped));
        GP_CUDA_CHECK(cudaFreeHost(p));
      } else if (kind == "events") {
        Event e = make_event(true);
        GP_CUDA_CHECK(cudaEventRecord(e.get(), nullptr));
        GP_CUDA_CHECK(cudaEventSynchronize(e.get()));
      } else if (kind == "malloc") {
        DeviceBuffer b(sizeof(float));
      } else if (kind == "legacy") {
        scaling_empty<<<1, 1>>>();
        GP_CUDA_CHECK(cudaGetLastError());
        GP_CUDA_CHECK(cudaDeviceSynchronize());
      } else if (kind == "graphs") {
        Graph g = make_graph();
        build_graph(g.get());
        cudaGraphExec_t raw = nullptr;
        GP_CUDA_CHECK(cudaGraphInstantiate(&raw, g.get(), 0));
        GraphExec exec(raw);
        GP_CUDA_CHECK(cudaGraphUpload(exec.get(), nullptr));
        GP_CUDA_CHECK(cudaGraphLaunch(exec.get(), nullptr));
        GP_CUDA_CHECK(cudaDeviceSynchronize());
      } else {
        throw usage_error("--param churn=" + kind + ": expected " + kinds);
      }
    }
  }

  std::string checksum(cudaStream_t s) override { return OutputDigest().device(values_.get(), values_.bytes()).compute(s); }

 private:
  int length_ = 0, width_ = 0;
  bool entry_ = false, work_ = false;
  DeviceBuffer values_;
  std::vector<float> init_;
  std::vector<Stream> streams_;  // streams 1 .. width-1; chain 0 runs on the origin stream
  Event fork_, join_;
  std::vector<Stream> kept_;  // churn=streams_kept: alive until the workload goes
};

}  // namespace

GP_REGISTER_WORKLOAD(Scaling, WorkloadInfo{
    "scaling",
    "the topologies of NVIDIA's cudaGraphsPerfScaling sample: width chains of length empty kernels <<<1,1>>>, "
    "optionally after one entry kernel",
    {{"length", "100", "kernels per chain"},
     {"width", "1", "parallel chains (chain i > 0 on its own stream in eager and capture)"},
     {"entry", "0", "1 = one entry kernel before the fork that every chain depends on (the sample's pattern 1)"},
     {"work", "0", "0 = empty kernels as in the sample; 1 = each kernel updates its chain's value (checks order)"},
     {"churn", "none",
      "diagnostic: before the measurement create, use once and destroy churn_count CUDA objects of one kind: none, "
      "streams, streams_kept (kept alive), pinned (mapped host memory), events, malloc, legacy (a kernel on stream 0) "
      "or graphs (this graph instantiated, uploaded and launched on stream 0)"},
     {"churn_count", "1", "how many objects churn makes"}}})

}  // namespace gp
