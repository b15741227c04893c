// Deterministic reductions for the bundled workloads. Floating-point addition is not associative,
// so a sum must be formed in the same order in every mode and every run: each thread folds a fixed
// set of elements, then a fixed tree (warp shuffles, then shared memory) combines the threads.
// No atomics, so the result depends only on the launch configuration, which all modes share.
#pragma once
#include <cuda_runtime.h>

namespace gp {

struct SumOp {
  __device__ float operator()(float a, float b) const { return a + b; }
};
struct MaxOp {
  __device__ float operator()(float a, float b) const { return fmaxf(a, b); }
};

template <typename Op>
__device__ inline float warp_reduce(float v, Op op) {
  for (int offset = 16; offset > 0; offset >>= 1) v = op(v, __shfl_xor_sync(0xffffffffu, v, offset));
  return v;
}

// Reduce one value per thread over the whole block (blockDim.x a multiple of 32, at most 1024).
// Every thread gets the result. `scratch` needs 32 floats of shared memory.
template <typename Op>
__device__ inline float block_reduce(float v, float* scratch, Op op, float identity) {
  const int lane = threadIdx.x & 31;
  const int warp = threadIdx.x >> 5;
  const int warps = (blockDim.x + 31) >> 5;
  v = warp_reduce(v, op);
  if (lane == 0) scratch[warp] = v;
  __syncthreads();
  float w = lane < warps ? scratch[lane] : identity;
  w = warp_reduce(w, op);
  __syncthreads();  // scratch may be reused by the caller right after
  return w;
}

// One block: commits y to x and returns the largest |y - x| over the vector (max is exact, so the
// result does not depend on the order). Every thread gets it. `scratch` needs 32 floats of shared
// memory. The `while` workload's convergence test.
__device__ inline float commit_and_max_change(float* x, const float* y, int n, float* scratch) {
  float change = 0.0f;
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    change = fmaxf(change, fabsf(y[i] - x[i]));
    x[i] = y[i];
  }
  return block_reduce(change, scratch, MaxOp{}, 0.0f);
}

}  // namespace gp
