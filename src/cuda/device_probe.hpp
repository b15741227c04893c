// Device-state probe: how long a dependent kernel-to-kernel step takes on the device right now.
#pragma once

namespace gp {

// Kernels in the probe's chain.
inline constexpr int kDeviceProbeKernels = 256;

// Median device time per kernel (ns) of a graph of kDeviceProbeKernels empty kernels <<<1,1>>> in
// a chain, replayed back to back with an event between replays (about 1 ms in all). On the H200 a
// chain of 1000 empty kernels replays at 0.49 or 0.67 µs per kernel depending on a state that a
// CUDA process (graphprof's or NVIDIA's cudaGraphsPerfScaling) can enter while it runs; this probe
// tells which one a result was measured in (docs/findings.md, "Parity"). Throws CudaError.
double measure_device_probe_ns();

}  // namespace gp
