// Device time per iteration from CUDA events: an event before the first iteration of a batch and
// one after each iteration, all on the stream the iterations are queued on back to back. The GPU
// and latched passes (runner.cpp), the trace pass (trace_pass.cpp) and the device probe
// (device_probe.cpp) take their figures this one way, so they compare directly.
#pragma once
#include <cstddef>
#include <vector>

#include "graphprof/cuda/handles.hpp"

namespace gp {

class EventBatch {
 public:
  // Timing events for batches of up to `max_iterations` iterations.
  explicit EventBatch(int max_iterations) {
    for (int i = 0; i <= max_iterations; ++i) events_.push_back(make_event(true));
  }

  // Queues `n` iterations (`iteration()` enqueues one) with an event before the first and after each.
  template <typename Iteration>
  void enqueue(cudaStream_t stream, int n, Iteration&& iteration) {
    GP_CUDA_CHECK(cudaEventRecord(events_[0].get(), stream));
    for (int i = 0; i < n; ++i) {
      iteration();
      GP_CUDA_CHECK(cudaEventRecord(events_[static_cast<std::size_t>(i) + 1].get(), stream));
    }
    n_ = n;
  }

  // Waits until the batch's last iteration has run.
  void wait() const { GP_CUDA_CHECK(cudaEventSynchronize(events_[static_cast<std::size_t>(n_)].get())); }

  // Appends each iteration's time between its two events, in ns (after wait()).
  void append_times(std::vector<double>& out) const {
    for (int i = 0; i < n_; ++i) {
      float ms = 0;
      GP_CUDA_CHECK(cudaEventElapsedTime(&ms, events_[static_cast<std::size_t>(i)].get(),
                                         events_[static_cast<std::size_t>(i) + 1].get()));
      out.push_back(static_cast<double>(ms) * 1e6);
    }
  }

 private:
  std::vector<Event> events_;
  int n_ = 0;
};

}  // namespace gp
