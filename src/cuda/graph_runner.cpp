// Explicit mode: one iteration built node by node with cudaGraphAdd*Node, then replayed.
#include <chrono>

#include "graphprof/trace/nvtx_range.hpp"
#include "mode_runner.hpp"

namespace gp {

namespace {
class ExplicitGraphRunner final : public GraphReplayRunner {
 protected:
  Graph make_graph_of(Workload& w, cudaStream_t, OneOffSamples& costs) override {
    const NvtxRange range("build graph");
    const auto t0 = std::chrono::steady_clock::now();
    Graph g = make_graph();
    w.build_graph(g.get());
    costs["build_time"].push_back(static_cast<double>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count()));
    return g;
  }
};
}  // namespace

std::unique_ptr<ModeRunner> make_graph_runner() { return std::make_unique<ExplicitGraphRunner>(); }

}  // namespace gp
