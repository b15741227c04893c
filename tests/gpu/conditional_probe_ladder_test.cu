// A ladder from a clean conditional-node probe (S00: one WHILE node, a body kernel that touches
// no memory, one pass) to the exact setup of the `while` workload as graphprof runs it, one
// difference per step. Each step is one TEST (Ladder.Snn_*) and adds one thing to the step before
// it; Single.* add one thing to S00 alone. As a plain test every step checks that the loop ran the
// passes it should. Under compute-sanitizer (tools/sanitize-conditional.sh runs each TEST in its
// own process) the first step that fails names the difference that makes the tool fail.
//
// Found on the H200 (compute-sanitizer 2025.3.1, driver 580.159; docs/development.md): S00 is
// clean, S01 already fails under memcheck and initcheck (error 700 or 716, no access reported)
// and is clean with count_passes left uninstrumented, so S01 is the minimal reproducer that
// scripts/sanitize-gpu.sh runs to decide whether wh_check must be left uninstrumented.
// Exit 77 without a GPU.
//
//   S00 probe          WHILE node alone; body: 1 block x 32 threads, no memory, ends on pass 1
//   S01 many passes    the body kernel counts passes in device memory; 39 passes per launch
//   S02 wide decider   the deciding kernel has wh_check's shape: 1 block x 1024 threads, a max
//                      reduction over 4096 floats in shared memory, thread 0 sets the handle
//   S03 relax node     a second body kernel before it (wh_relax: 16 blocks x 256 threads)
//   S04 init node      a kernel node before the WHILE node (wh_init) and the workload's rule:
//                      continue while the largest change > 0.001 (39 passes on this data)
//   S05 upload         cudaGraphUpload + synchronize before the first launch
//   S06 runner         graphprof's launch sequence: graph and exec rebuilt 5 times (build,
//                      instantiate, upload, sync, launch, sync), reset with memsets, 3 verify
//                      launches, 1 probe launch, 20 warm-up launches, a pass with an event
//                      between launches
//   S07 latch          + graphprof's latched pass (launches queued behind its latch kernel,
//                      which spins on mapped pinned memory)
//   S08 capture        S07 with the WHILE node inserted into a stream capture (capture mode)
//   S09 workload       the `while` workload object itself (build_graph), S07's sequence
//   S10 workload capt. the `while` workload object under stream capture, S07's sequence
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "../../src/cuda/latch.hpp"
#include "../../workloads/block_reduce.cuh"
#include "../../workloads/capture_append.cuh"
#include "graphprof/cuda/handles.hpp"
#include "graphprof/cuda/workload.hpp"
#include "graphprof/core/params.hpp"

namespace gp {
namespace {

constexpr int kElements = 4096;    // the workload's default vector length
constexpr int kPasses = 39;        // the fixed trip count of S01-S03 (what the workload runs by default)
constexpr int kWideThreads = 1024; // wh_check's block
constexpr float kDecay = 0.9f;

// S00: touches no memory, ends the loop on its first pass.
__global__ void end_the_loop(cudaGraphConditionalHandle handle) {
  if (threadIdx.x == 0) cudaGraphSetConditional(handle, 0);
}

// S01: counts the passes of this launch in counters[0] (back to 0 when the loop ends, so every
// launch runs `passes`) and of all launches in counters[1].
__global__ void count_passes(int* counters, int passes, cudaGraphConditionalHandle handle) {
  if (threadIdx.x == 0) {
    const int done = counters[0] + 1;
    counters[1] += 1;
    const bool go = done < passes;
    counters[0] = go ? done : 0;
    cudaGraphSetConditional(handle, go ? 1u : 0u);
  }
}

// wh_init: every launch starts from the same vector.
__global__ void init_vector(const float* x0, float* x, int n, int* counters) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = x0[i];
  if (i == 0) counters[0] = 0;
}

// wh_relax.
__global__ void relax(const float* x, float* y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    const float left = i > 0 ? x[i - 1] : 0.0f;
    const float right = i + 1 < n ? x[i + 1] : 0.0f;
    y[i] = kDecay * (0.25f * left + 0.5f * x[i] + 0.25f * right);
  }
}

// wh_check's shape: the largest change over the vector (block reduction), commit y to x, thread
// 0 counts the pass and decides. Continue while change > tolerance and the pass count is below
// max_passes. self_reset: counters[0] goes back to 0 when the loop ends (no init node does it).
__global__ void decide_wide(float* x, const float* y, int n, int* counters, float tolerance, int max_passes,
                            bool self_reset, cudaGraphConditionalHandle handle) {
  __shared__ float scratch[32];
  const float change = commit_and_max_change(x, y, n, scratch);
  if (threadIdx.x == 0) {
    const int done = counters[0] + 1;
    counters[1] += 1;
    const bool go = change > tolerance && done < max_passes;
    counters[0] = (go || !self_reset) ? done : 0;
    cudaGraphSetConditional(handle, go ? 1u : 0u);
  }
}

struct Rung {
  bool many_passes = false;      // S01
  bool wide = false;             // S02
  bool relax_node = false;       // S03
  bool init_node = false;        // S04 (and the workload's stopping rule)
  bool upload = false;           // S05
  bool runner_sequence = false;  // S06
  bool latch = false;            // S07
  bool capture = false;          // S08
  bool workload_object = false;  // S09, S10 (with capture)
  int passes = kPasses;          // S01-S03: passes per launch
};

void phase(const char* what) {
  std::printf("phase: %s\n", what);
  std::fflush(stdout);
}

class Ladder {
 public:
  explicit Ladder(const Rung& s) : s_(s), stream_(make_stream()) {
    if (s_.workload_object) {
      const WorkloadEntry* e = find_workload("while");
      if (e == nullptr) throw std::runtime_error("workload `while` is not registered");
      workload_ = e->create();
      workload_->setup(Params(e->info.params, {}, "while"));
      return;
    }
    const std::size_t bytes = sizeof(float) * kElements;
    x0_ = DeviceBuffer(bytes);
    x_ = DeviceBuffer(bytes);
    y_ = DeviceBuffer(bytes);
    counters_ = DeviceBuffer(2 * sizeof(int));
    std::vector<float> init(kElements);
    for (int i = 0; i < kElements; ++i) init[static_cast<std::size_t>(i)] = static_cast<float>((i * 37) % 101) * 0.01f;
    GP_CUDA_CHECK(cudaMemcpy(x0_.get(), init.data(), bytes, cudaMemcpyHostToDevice));
    // Without relax, y stays as it is: a nonzero y makes the first pass change x.
    GP_CUDA_CHECK(cudaMemcpy(y_.get(), init.data(), bytes, cudaMemcpyHostToDevice));
    GP_CUDA_CHECK(cudaMemset(x_.get(), 0, bytes));
    GP_CUDA_CHECK(cudaMemset(counters_.get(), 0, counters_.bytes()));
  }

  void run() {
    if (s_.runner_sequence) {
      runner_sequence();
    } else {
      build_and_instantiate();
      phase("3 launches");
      for (int i = 0; i < 3; ++i) launch();
      GP_CUDA_CHECK(cudaStreamSynchronize(stream_.get()));
    }
    phase("done");
  }

  // Passes the loop bodies ran, over all launches (from the counters, or the workload's steps).
  int passes_per_launch() {
    GP_CUDA_CHECK(cudaStreamSynchronize(stream_.get()));
    if (workload_) return static_cast<int>(workload_->extra_metrics().at("loop_steps"));
    int c[2] = {0, 0};
    GP_CUDA_CHECK(cudaMemcpy(c, counters_.get(), sizeof(c), cudaMemcpyDeviceToHost));
    if (c[1] % launches_ != 0) return -1;
    return c[1] / launches_;
  }

 private:
  __attribute__((noinline)) void build_and_instantiate() {
    phase(s_.capture ? "capture" : "build");
    exec_.reset();  // a graph with conditional nodes allows one exec
    graph_.reset();
    graph_ = s_.capture ? captured() : built();
    cudaGraphExec_t exec = nullptr;
    GP_CUDA_CHECK(cudaGraphInstantiate(&exec, graph_.get(), 0));
    exec_ = GraphExec(exec);
    if (s_.upload) {
      phase("upload");
      GP_CUDA_CHECK(cudaGraphUpload(exec_.get(), stream_.get()));
      GP_CUDA_CHECK(cudaStreamSynchronize(stream_.get()));
    }
  }

  void launch() {
    GP_CUDA_CHECK(cudaGraphLaunch(exec_.get(), stream_.get()));
    ++launches_;
  }

  Graph built() {
    Graph g = make_graph();
    if (workload_) {
      workload_->build_graph(g.get());
      return g;
    }
    cudaGraphNode_t init = nullptr;
    if (s_.init_node) init = add_kernel(g.get(), nullptr, 0, init_vector, grid(), dim3(256), x0_.as<float>(),
                                        x_.as<float>(), kElements, counters_.as<int>());
    add_loop(g.get(), init ? &init : nullptr, nullptr, init ? 1 : 0);
    return g;
  }

  // The workload's capture form: node added to the capturing graph after the stream's capture
  // dependencies, which then become the node.
  Graph captured() {
    cudaStream_t s = stream_.get();
    GP_CUDA_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
    if (workload_) {
      LaunchContext ctx(s);
      workload_->enqueue(ctx);
    } else {
      if (s_.init_node) {
        init_vector<<<grid(), 256, 0, s>>>(x0_.as<float>(), x_.as<float>(), kElements, counters_.as<int>());
        GP_CUDA_CHECK(cudaGetLastError());
      }
      append_to_capture(s, [this](cudaGraph_t g, const cudaGraphNode_t* deps, const cudaGraphEdgeData* edges,
                                  std::size_t n) { return add_loop(g, deps, edges, n); });
    }
    cudaGraph_t g = nullptr;
    GP_CUDA_CHECK(cudaStreamEndCapture(s, &g));
    return Graph(g);
  }

  cudaGraphNode_t add_loop(cudaGraph_t g, const cudaGraphNode_t* deps, const cudaGraphEdgeData* edges, std::size_t n) {
    cudaGraphConditionalHandle handle = 0;
    GP_CUDA_CHECK(cudaGraphConditionalHandleCreate(&handle, g, 1, cudaGraphCondAssignDefault));
    cudaGraphNodeParams p{};
    p.type = cudaGraphNodeTypeConditional;
    p.conditional.handle = handle;
    p.conditional.type = cudaGraphCondTypeWhile;
    p.conditional.size = 1;
    cudaGraphNode_t node = nullptr;
    GP_CUDA_CHECK(cudaGraphAddNode(&node, g, deps, edges, n, &p));
    cudaGraph_t body = p.conditional.phGraph_out[0];
    float* x = x_.as<float>();
    int* counters = counters_.as<int>();
    if (!s_.many_passes) {
      add_kernel(body, nullptr, 0, end_the_loop, dim3(1), dim3(32), handle);
    } else if (!s_.wide) {
      add_kernel(body, nullptr, 0, count_passes, dim3(1), dim3(32), counters, s_.passes, handle);
    } else {
      cudaGraphNode_t r = nullptr;
      if (s_.relax_node) r = add_kernel(body, nullptr, 0, relax, grid(), dim3(256), static_cast<const float*>(x),
                                        y_.as<float>(), kElements);
      // Fixed count (change > -1 always) until the init node takes over the workload's rule.
      const float tolerance = s_.init_node ? 0.001f : -1.0f;
      const int max_passes = s_.init_node ? 1000 : s_.passes;
      add_kernel(body, r ? &r : nullptr, r ? 1 : 0, decide_wide, dim3(1), dim3(kWideThreads), x,
                 static_cast<const float*>(y_.as<float>()), kElements, counters, tolerance, max_passes, !s_.init_node,
                 handle);
    }
    return node;
  }

  template <typename... KArgs, typename... Args>
  static cudaGraphNode_t add_kernel(cudaGraph_t g, const cudaGraphNode_t* deps, std::size_t ndeps,
                                    void (*k)(KArgs...), dim3 grid, dim3 block, Args... args) {
    static_assert(sizeof...(KArgs) == sizeof...(Args), "argument count does not match the kernel");
    void* ptrs[] = {static_cast<void*>(&args)...};
    cudaKernelNodeParams p{};
    p.func = reinterpret_cast<void*>(k);
    p.gridDim = grid;
    p.blockDim = block;
    p.kernelParams = ptrs;
    cudaGraphNode_t node = nullptr;
    GP_CUDA_CHECK(cudaGraphAddKernelNode(&node, g, deps, ndeps, &p));
    return node;
  }

  static dim3 grid() { return dim3((kElements + 255) / 256); }

  void reset() {
    if (workload_) {
      workload_->reset(stream_.get());
      return;
    }
    // What While::reset does: zero the buffers the iterations write, then synchronize.
    GP_CUDA_CHECK(cudaMemsetAsync(x_.get(), 0, x_.bytes(), stream_.get()));
    if (s_.relax_node) GP_CUDA_CHECK(cudaMemsetAsync(y_.get(), 0, y_.bytes(), stream_.get()));
    GP_CUDA_CHECK(cudaMemsetAsync(counters_.get(), 0, sizeof(int), stream_.get()));  // keep the total
    GP_CUDA_CHECK(cudaStreamSynchronize(stream_.get()));
  }

  // graphprof's run_repetition, in the order it calls CUDA (src/cuda/runner.cpp,
  // src/cuda/graph_replay_runner.cpp), with fixed counts instead of time-based ones.
  __attribute__((noinline)) void runner_sequence() {
    cudaStream_t s = stream_.get();
    phase("prepare (5 one-off sequences)");
    for (int i = 0; i < 5; ++i) {
      build_and_instantiate();
      launch();
      GP_CUDA_CHECK(cudaStreamSynchronize(s));
    }
    phase("verify");
    reset();
    GP_CUDA_CHECK(cudaStreamSynchronize(s));
    for (int i = 0; i < 3; ++i) launch();
    GP_CUDA_CHECK(cudaStreamSynchronize(s));
    phase("probe iteration");
    launch();
    GP_CUDA_CHECK(cudaStreamSynchronize(s));
    phase("warm-up");
    for (int i = 0; i < 20; ++i) {
      launch();
      if (i % 4 == 3) GP_CUDA_CHECK(cudaStreamSynchronize(s));
    }
    GP_CUDA_CHECK(cudaStreamSynchronize(s));
    phase("event pass");
    std::vector<Event> events;
    for (int i = 0; i <= 4; ++i) events.push_back(make_event(true));
    for (int batch = 0; batch < 3; ++batch) {
      GP_CUDA_CHECK(cudaEventRecord(events[0].get(), s));
      for (int i = 0; i < 4; ++i) {
        launch();
        GP_CUDA_CHECK(cudaEventRecord(events[static_cast<std::size_t>(i) + 1].get(), s));
      }
      GP_CUDA_CHECK(cudaEventSynchronize(events[4].get()));
      float ms = 0;
      for (int i = 0; i < 4; ++i)
        GP_CUDA_CHECK(cudaEventElapsedTime(&ms, events[static_cast<std::size_t>(i)].get(),
                                           events[static_cast<std::size_t>(i) + 1].get()));
    }
    if (!s_.latch) return;
    phase("latched pass");
    Latch latch;
    for (int batch = 0; batch < 3; ++batch) {
      latch.hold(s, 0.25);
      GP_CUDA_CHECK(cudaEventRecord(events[0].get(), s));
      for (int i = 0; i < 4; ++i) {
        launch();
        GP_CUDA_CHECK(cudaEventRecord(events[static_cast<std::size_t>(i) + 1].get(), s));
      }
      latch.release();
      GP_CUDA_CHECK(cudaEventSynchronize(events[4].get()));
    }
    phase("launch pass");
    for (int i = 0; i < 4; ++i) launch();
    GP_CUDA_CHECK(cudaStreamSynchronize(s));
  }

  Rung s_;
  Stream stream_;
  std::unique_ptr<Workload> workload_;
  DeviceBuffer x0_, x_, y_, counters_;
  Graph graph_;
  GraphExec exec_;
  int launches_ = 0;
};

// Runs the rung; returns the passes per launch (checked by the caller).
int run(const Rung& s) {
  Ladder l(s);
  l.run();
  return l.passes_per_launch();
}

// The data-dependent trip count of the workload's rule on its default data (39 on the H200; a
// float rounding difference could make it 38-40).
void expect_workload_trip_count(int passes) {
  EXPECT_GE(passes, 38);
  EXPECT_LE(passes, 40);
}

// The cumulative ladder.
Rung step(int n) {
  Rung s;
  s.many_passes = n >= 1;
  s.wide = n >= 2;
  s.relax_node = n >= 3;
  s.init_node = n >= 4;
  s.upload = n >= 5;
  s.runner_sequence = n >= 6;
  s.latch = n >= 7;
  s.capture = n >= 8 && n != 9;
  s.workload_object = n >= 9;
  return s;
}

TEST(Ladder, S00_Probe) { EXPECT_EQ(run(step(0)), 0) << "the probe touches no memory: no pass is counted"; }
TEST(Ladder, S01_ManyPasses) { EXPECT_EQ(run(step(1)), kPasses); }
TEST(Ladder, S02_WideDecider) { EXPECT_EQ(run(step(2)), kPasses); }
TEST(Ladder, S03_RelaxNode) { EXPECT_EQ(run(step(3)), kPasses); }
TEST(Ladder, S04_InitNode) { expect_workload_trip_count(run(step(4))); }
TEST(Ladder, S05_Upload) { expect_workload_trip_count(run(step(5))); }
TEST(Ladder, S06_RunnerSequence) { expect_workload_trip_count(run(step(6))); }
TEST(Ladder, S07_Latch) { expect_workload_trip_count(run(step(7))); }
TEST(Ladder, S08_Capture) { expect_workload_trip_count(run(step(8))); }
TEST(Ladder, S09_WorkloadObject) { expect_workload_trip_count(run(step(9))); }
TEST(Ladder, S10_WorkloadObjectCapture) { expect_workload_trip_count(run(step(10))); }

// One thing added to the probe alone (its body still touches no memory and ends on pass 1).
TEST(Single, Upload) {
  Rung s;
  s.upload = true;
  EXPECT_EQ(run(s), 0);
}
TEST(Single, Capture) {
  Rung s;
  s.capture = true;
  EXPECT_EQ(run(s), 0);
}
TEST(Single, RunnerSequenceAndLatch) {
  Rung s;
  s.upload = s.runner_sequence = s.latch = true;
  EXPECT_EQ(run(s), 0);
}
// S01's counting body under graphprof's whole launch sequence and latch (everything but the
// workload's kernels and graph): many passes in many launches.
TEST(Single, ManyPassesRunnerSequenceAndLatch) {
  Rung s;
  s.many_passes = s.upload = s.runner_sequence = s.latch = true;
  EXPECT_EQ(run(s), kPasses);
}
// S02's wide decider with one pass per launch: its shape without the repetition.
TEST(Single, WideDeciderOnePass) {
  Rung s;
  s.many_passes = s.wide = true;
  s.passes = 1;
  EXPECT_EQ(run(s), 1);
}

}  // namespace
}  // namespace gp
