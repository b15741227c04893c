// The device-state probe's empty kernel (device_probe_kernel.cu), for device_probe.cpp's graph.
#pragma once

namespace gp {

// The kernel's entry point, as a kernel node's func takes it.
void* device_probe_kernel();

}  // namespace gp
