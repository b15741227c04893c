// main() of the GPU test binaries: exit 77 (ctest "skipped") when no usable GPU exists.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cstdio>

int main(int argc, char** argv) {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0) {
    std::printf("skipped: no usable CUDA device (%s)\n", e != cudaSuccess ? cudaGetErrorName(e) : "0 devices");
    return 77;
  }
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
