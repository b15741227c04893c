// The GPU graphprof measures on: discovery, facts for the report, and the no-GPU diagnosis.
#pragma once
#include "graphprof/core/report.hpp"

namespace gp {

// Throws gp::Error(kEnvironment) with a one-line explanation (the CUDA error, and which
// commands work without a GPU) when no usable device or driver is present.
void require_gpu(int ordinal = 0);

// Number of visible devices; throws like require_gpu() when there is none.
int device_count();

// Facts about device `ordinal` (name, CC, SMs, clocks, driver/runtime/CUPTI versions).
GpuInfo query_gpu(int ordinal = 0);

// The message require_gpu() gives, for tests and for `scripts/run.sh` to echo.
std::string no_gpu_message(const std::string& cuda_error_name, const std::string& cuda_error_text);

}  // namespace gp
