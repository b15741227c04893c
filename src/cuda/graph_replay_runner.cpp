// What capture and explicit modes share: instantiate, upload, first launch, replay.
#include <chrono>
#include <optional>

#include "graphprof/trace/nvtx_range.hpp"
#include "mode_runner.hpp"

namespace gp {

namespace {
double ns_since(std::chrono::steady_clock::time_point t0) {
  return static_cast<double>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count());
}
}  // namespace

void GraphReplayRunner::prepare(Workload& w, cudaStream_t stream, int samples, OneOffSamples& costs) {
  // Repeat the whole one-off sequence so its costs get a median too; keep the last graph.
  for (int i = 0; i < samples; ++i) {
    exec_.reset();  // graphs with allocation nodes allow only one live exec
    graph_.reset();
    graph_ = make_graph_of(w, stream, costs);

    std::optional<NvtxRange> phase(std::in_place, "instantiate");
    auto t0 = std::chrono::steady_clock::now();
    cudaGraphExec_t exec = nullptr;
    GP_CUDA_CHECK(cudaGraphInstantiate(&exec, graph_.get(), 0));
    costs["instantiate_time"].push_back(ns_since(t0));
    exec_ = GraphExec(exec);

    // Upload: the call alone (what NVIDIA's cudaGraphsPerfScaling times), and to its completion.
    phase.emplace("upload");
    t0 = std::chrono::steady_clock::now();
    GP_CUDA_CHECK(cudaGraphUpload(exec_.get(), stream));
    costs["upload_call_time"].push_back(ns_since(t0));
    GP_CUDA_CHECK(cudaStreamSynchronize(stream));
    costs["upload_time"].push_back(ns_since(t0));

    // The first launch after upload is still far slower than later ones (seen on the H200).
    phase.emplace("first launch");
    t0 = std::chrono::steady_clock::now();
    GP_CUDA_CHECK(cudaGraphLaunch(exec_.get(), stream));
    GP_CUDA_CHECK(cudaStreamSynchronize(stream));
    costs["first_launch_time"].push_back(ns_since(t0));
  }
}

void GraphReplayRunner::launch(Workload& w, LaunchContext& ctx) {
  w.before_replay(graph_.get(), exec_, ctx);  // per-iteration parameter changes (the update workload)
  cudaGraphExec_t exec = exec_.get();
  cudaStream_t s = ctx.stream();
  ctx.api("cudaGraphLaunch", [exec, s] { return cudaGraphLaunch(exec, s); });
}

}  // namespace gp
