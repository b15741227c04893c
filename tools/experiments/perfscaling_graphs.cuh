// The graphs of NVIDIA's cudaGraphsPerfScaling as the stand-alone device-level tools build them
// (tools/experiments/level_bisect.cu, tools/experiments/level_trigger.cu; each built alone with nvcc). Written from reading
// the sample; no code copied.
#pragma once
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

#define CK(x)                                                                          \
  do {                                                                                 \
    cudaError_t e_ = (x);                                                              \
    if (e_ != cudaSuccess) {                                                           \
      std::fprintf(stderr, "line %d: %s: %s\n", __LINE__, #x, cudaGetErrorString(e_)); \
      std::exit(4);                                                                    \
    }                                                                                  \
  } while (0)

__global__ void perfscaling_empty() {}

// The sample's capture: chain i of `length` empty kernels on stream s[i], forked by an event
// recorded on s[0] (after one entry kernel with `entry`), joined back by events: no join node.
inline cudaGraph_t capture_parallel_chain(const cudaStream_t* s, cudaEvent_t fork, int length, int width, bool entry) {
  cudaGraph_t g;
  CK(cudaStreamBeginCapture(s[0], cudaStreamCaptureModeGlobal));
  if (entry) perfscaling_empty<<<1, 1, 0, s[0]>>>();
  CK(cudaEventRecord(fork, s[0]));
  for (int i = 1; i < width; ++i) CK(cudaStreamWaitEvent(s[i], fork, 0));
  for (int i = 0; i < width; ++i)
    for (int j = 0; j < length; ++j) perfscaling_empty<<<1, 1, 0, s[i]>>>();
  for (int i = 1; i < width; ++i) {
    CK(cudaEventRecord(fork, s[i]));
    CK(cudaStreamWaitEvent(s[0], fork, 0));
  }
  CK(cudaStreamEndCapture(s[0], &g));
  return g;
}

// The same DAG built explicitly (cudaGraphAddKernelNode): `width` chains, after one entry node with `entry`.
inline cudaGraph_t build_parallel_chain(int length, int width, bool entry) {
  cudaGraph_t g;
  CK(cudaGraphCreate(&g, 0));
  cudaKernelNodeParams p{};
  p.func = reinterpret_cast<void*>(perfscaling_empty);
  p.gridDim = dim3(1);
  p.blockDim = dim3(1);
  cudaGraphNode_t root = nullptr;
  if (entry) CK(cudaGraphAddKernelNode(&root, g, nullptr, 0, &p));
  for (int b = 0; b < width; ++b) {
    cudaGraphNode_t prev = root;
    for (int j = 0; j < length; ++j) {
      cudaGraphNode_t n;
      CK(cudaGraphAddKernelNode(&n, g, prev ? &prev : nullptr, prev ? 1 : 0, &p));
      prev = n;
    }
  }
  return g;
}
