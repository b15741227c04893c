// The kernel of sticky_error_test.cpp: a write to an address that is never mapped. Kept apart so
// that nvcc parses only the workload interface, not gtest and the suite.
#include "graphprof/cuda/workload.hpp"

namespace gp {
namespace {

__global__ void write_to_a_wild_address(int* p) { p[threadIdx.x] = 1; }

}  // namespace

void launch_wild_write(LaunchContext& ctx) {
  ctx.launch(write_to_a_wild_address, dim3(1), dim3(32), 0, reinterpret_cast<int*>(16));
}

}  // namespace gp
