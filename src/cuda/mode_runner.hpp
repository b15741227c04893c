// Internal seam between the measurement passes (runner.cpp) and the three modes.
#pragma once
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "graphprof/cuda/handles.hpp"
#include "graphprof/cuda/workload.hpp"

namespace gp {

// One-off costs in ns, one vector per cost ("capture_time", "instantiate_time", ...).
using OneOffSamples = std::map<std::string, std::vector<double>>;

class ModeRunner {
 public:
  virtual ~ModeRunner() = default;
  // Everything the mode needs before the first timed iteration; records one-off costs.
  virtual void prepare(Workload& w, cudaStream_t stream, int samples, OneOffSamples& costs) = 0;
  // Enqueue one iteration. The launch API call(s) go through ctx so their host time is recorded.
  virtual void launch(Workload& w, LaunchContext& ctx) = 0;
  // The graph being replayed (nullptr in eager mode), for the DOT dump and node counts.
  virtual cudaGraph_t graph() const { return nullptr; }
};

// The runner of a measured mode (eager, capture, graph); kApp has none (internal error).
std::unique_ptr<ModeRunner> make_mode_runner(Mode m);
std::unique_ptr<ModeRunner> make_eager_runner();
std::unique_ptr<ModeRunner> make_capture_runner();
std::unique_ptr<ModeRunner> make_graph_runner();

// Shared by the capture and explicit modes: instantiate, upload and first launch, timed.
class GraphReplayRunner : public ModeRunner {
 public:
  void prepare(Workload& w, cudaStream_t stream, int samples, OneOffSamples& costs) final;
  void launch(Workload& w, LaunchContext& ctx) final;
  cudaGraph_t graph() const final { return graph_.get(); }

 protected:
  // Produce the graph of one iteration; returns the one-off cost's name ("capture_time" or
  // "build_time") and appends its host time in ns to costs[name].
  virtual Graph make_graph_of(Workload& w, cudaStream_t stream, OneOffSamples& costs) = 0;

 private:
  Graph graph_;
  GraphExec exec_;
};

}  // namespace gp
