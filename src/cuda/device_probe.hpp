// Device-state probe: how long a dependent kernel-to-kernel step takes on the device right now,
// by each of the two device methods of the timing passes.
#pragma once

#include "graphprof/core/report_sections.hpp"

namespace gp {

// Kernels in the probe's chain.
inline constexpr int kDeviceProbeKernels = 256;

// Median device time per kernel (ns) of a graph of kDeviceProbeKernels empty kernels <<<1,1>>> in
// a chain, made at the first probe of the process and kept, replayed 7 times back to back with an
// event between replays (the GPU pass's method) and 7 times queued behind the latch (latch.hpp), then
// released (the latched pass's method); about 1 ms in all. On the H200 a chain of empty kernels
// replays at about 0.50 or 0.68 µs per kernel depending on a state of the process's CUDA context
// that enough activity switches to the slower level and only a new context undoes; an exec made
// early shows it first (docs/findings.md, "Parity"). Throws CudaError. A latch that timed out
// leaves latched_ns NaN.
DeviceProbeReading measure_device_probe();

// Makes the probe's exec now (once per process; measure_device_probe makes it otherwise), so that
// it is older than any workload's exec: called before a result's first workload is set up.
void make_device_probe();

}  // namespace gp
