// How many iterations one batch of a measurement pass queues: the one rule of the GPU, launch,
// latched and trace passes (src/cuda/runner.cpp, src/cuda/trace_pass.cpp). Host-only.
#pragma once
#include <chrono>
#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "graphprof/core/stats.hpp"

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

// The one-off sequences (capture or build, instantiate, upload, first launch) of a repetition: at
// least this many, so a first and a repeated figure exist however short the budget.
inline constexpr int kMinOneOffSequences = 2;

// One-off samples in ns per cost key, in sequence order (the runner's OneOffSamples). Moves the
// first sequence's instantiate_time, upload_time and upload_call_time samples to
// `<key>_first`, leaving the repeated ones under `key` (NVIDIA's cudaGraphsPerfScaling prints
// trials after an unprinted warm-up trial); a key with fewer than two samples stays as it is.
void split_first_one_off(std::map<std::string, std::vector<double>>& costs);

// --time-limit inside one mode: the rule of a pass that starts `seconds_left` before the limit
// with `passes_left` passes of the mode still to run (itself included). Its budget is its share
// of the time left (at least 10 ms) and never more than the rule's own; min_seconds follows. So
// a mode begun just before the limit ends near it, instead of running each pass for a full
// --budget (several passes per mode).
StoppingRule rule_within_time_left(const StoppingRule& rule, double seconds_left, int passes_left);

// --time-limit SECONDS as a moment on the steady clock, and the time left until it. Once the time
// left is zero or less nothing new starts (a workload/mode, a repetition, an isolated child): the
// one rule of run, sweep and profile.
using Deadline = std::chrono::steady_clock::time_point;
Deadline deadline_after(double seconds);
double seconds_left(Deadline deadline);

}  // namespace gp
