// How many iterations one batch of a measurement pass queues: the one rule of the GPU, launch,
// latched and trace passes (src/cuda/runner.cpp, src/cuda/trace_pass.cpp). Host-only.
#pragma once
#include <cstddef>

namespace gp {

// One iteration timed alone (launch calls, then synchronize), before the batched passes.
struct IterationShape {
  std::size_t calls_per_iter = 1;  // launch API calls of one iteration (at least 1)
  double seconds = 0;              // host time of that iteration, synchronised; 0 = unknown
};

// Iterations per batch: about 1000 launch calls (well inside the launch queue, so a batch never
// blocks on a full queue), a batch at most a quarter of `budget_seconds` when the iteration's time
// is known, and 1 to 64 iterations.
int batch_size(const IterationShape& shape, double budget_seconds);

// Iterations per batch queued behind the latch: at most `batch`, about 256 launch calls (the host
// must never block while the latch holds the GPU), 1 to 32.
int latched_batch_size(int batch, std::size_t calls_per_iter);

}  // namespace gp
