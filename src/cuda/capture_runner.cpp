// Capture mode: one iteration recorded with stream capture, then replayed as a graph.
#include <chrono>

#include "graphprof/trace/nvtx_range.hpp"
#include "mode_runner.hpp"

namespace gp {

namespace {

// Ends or aborts a capture before an exception leaves the scope, so the stream is usable again
// and the partial graph is freed.
class CaptureGuard {
 public:
  explicit CaptureGuard(cudaStream_t s) : s_(s) {
    GP_CUDA_CHECK(cudaStreamBeginCapture(s_, cudaStreamCaptureModeThreadLocal));
    active_ = true;
  }
  Graph end() {
    cudaGraph_t g = nullptr;
    active_ = false;
    GP_CUDA_CHECK(cudaStreamEndCapture(s_, &g));
    return Graph(g);
  }
  ~CaptureGuard() {
    if (!active_) return;
    cudaGraph_t g = nullptr;
    // Invalidated captures return an error here; that is expected while unwinding.
    (void)cudaStreamEndCapture(s_, &g);
    if (g) (void)cudaGraphDestroy(g);
    (void)cudaGetLastError();  // clear the sticky-free error so the next mode starts clean
  }
  CaptureGuard(const CaptureGuard&) = delete;
  CaptureGuard& operator=(const CaptureGuard&) = delete;

 private:
  cudaStream_t s_;
  bool active_ = false;
};

class CaptureRunner final : public GraphReplayRunner {
 protected:
  Graph make_graph_of(Workload& w, cudaStream_t stream, OneOffSamples& costs) override {
    LaunchContext ctx(stream);
    const NvtxRange range("capture");
    const auto t0 = std::chrono::steady_clock::now();
    CaptureGuard guard(stream);
    w.enqueue(ctx);
    Graph g = guard.end();
    costs["capture_time"].push_back(static_cast<double>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count()));
    return g;
  }
};

}  // namespace

std::unique_ptr<ModeRunner> make_capture_runner() { return std::make_unique<CaptureRunner>(); }

}  // namespace gp
