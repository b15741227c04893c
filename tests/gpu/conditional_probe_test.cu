// The smallest conditional WHILE graph: a body kernel that touches no memory at all and ends the
// loop after one pass with cudaGraphSetConditional. scripts/sanitize-gpu.sh runs this binary
// under compute-sanitizer memcheck: if memcheck reports an error here, it is the tool that cannot
// follow conditional nodes (no memory is accessed), not an out-of-bounds access of a workload.
// As a plain test it checks the loop runs and ends. Exit 77 without a GPU.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

namespace {

__global__ void end_the_loop(cudaGraphConditionalHandle handle) {
  if (threadIdx.x == 0) cudaGraphSetConditional(handle, 0);
}

#define CHECK(x) ASSERT_EQ((x), cudaSuccess) << #x

TEST(ConditionalProbe, WhileBodyWithoutMemoryAccessRunsAndEnds) {
  cudaStream_t stream = nullptr;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cudaGraph_t graph = nullptr;
  CHECK(cudaGraphCreate(&graph, 0));
  cudaGraphConditionalHandle handle = 0;
  CHECK(cudaGraphConditionalHandleCreate(&handle, graph, 1, cudaGraphCondAssignDefault));
  cudaGraphNodeParams p{};
  p.type = cudaGraphNodeTypeConditional;
  p.conditional.handle = handle;
  p.conditional.type = cudaGraphCondTypeWhile;
  p.conditional.size = 1;
  cudaGraphNode_t node = nullptr;
  CHECK(cudaGraphAddNode(&node, graph, nullptr, nullptr, 0, &p));
  cudaKernelNodeParams k{};
  void* args[] = {&handle};
  k.func = reinterpret_cast<void*>(end_the_loop);
  k.gridDim = dim3(1);
  k.blockDim = dim3(32);
  k.kernelParams = args;
  cudaGraphNode_t body_node = nullptr;
  CHECK(cudaGraphAddKernelNode(&body_node, p.conditional.phGraph_out[0], nullptr, 0, &k));
  cudaGraphExec_t exec = nullptr;
  CHECK(cudaGraphInstantiate(&exec, graph, 0));
  for (int i = 0; i < 3; ++i) CHECK(cudaGraphLaunch(exec, stream));
  CHECK(cudaStreamSynchronize(stream));
  CHECK(cudaGraphExecDestroy(exec));
  CHECK(cudaGraphDestroy(graph));
  CHECK(cudaStreamDestroy(stream));
}

}  // namespace
