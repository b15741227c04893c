// What every measurement pass of one (workload, mode) shares: the workload instance, its stream,
// the mode's runner and the launch context (one PassContext per repetition and one for the trace
// pass), and the one way a pass recovers from a CUDA error; the batch rule is
// graphprof/batch_rule.hpp. The timing passes (runner.cpp) and the trace pass (trace_pass.cpp) use it.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>

#include "graphprof/core/batch_rule.hpp"
#include "graphprof/cuda/cuda_check.hpp"
#include "graphprof/cuda/handles.hpp"
#include "graphprof/cuda/workload.hpp"
#include "mode_runner.hpp"

namespace gp {

class PassContext {
 public:
  // A fresh workload instance set up with `params`, a new stream and the mode's runner.
  PassContext(const WorkloadEntry& entry, Mode mode, const Params& params);

  Workload& workload() { return *workload_; }
  ModeRunner& runner() { return *runner_; }
  cudaStream_t stream() const { return stream_.get(); }
  LaunchContext& launch_context() { return ctx_; }

  // The mode's one-off sequence (capture/build, instantiate, upload, first launch) `samples` times.
  void prepare(int samples, OneOffSamples& costs) { runner_->prepare(*workload_, stream(), samples, costs); }
  // The workload's input state restored, synchronised.
  void reset();
  // Enqueues one iteration (the iteration index counts on across passes).
  void iteration();
  void synchronize() const;
  // Runs one iteration alone, synchronised: how many launch calls it makes and how long it took.
  IterationShape time_one_iteration();

 private:
  std::unique_ptr<Workload> workload_;
  Stream stream_;
  std::unique_ptr<ModeRunner> runner_;
  LaunchContext ctx_;
  std::uint64_t iteration_ = 0;
};

// After a CudaError in a pass: clears the error state where it is not sticky, so the next mode
// starts clean. Returns true when the CUDA context is unusable (the error or a later synchronize
// is sticky): nothing more can run in this process.
bool recover_from_cuda_error(const CudaError& e);

}  // namespace gp
