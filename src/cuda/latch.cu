// The latch: a kernel that holds the stream until the host releases it, so work queued behind it
// runs back to back on the device with host submission hidden (the idea of NVIDIA's
// cudaGraphsPerfScaling sample). A timeout keeps a slow host from hanging the GPU.
#include "latch.hpp"

#include "graphprof/cuda/cuda_check.hpp"

namespace gp {

namespace {

__device__ unsigned long long global_timer_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__global__ void latch_kernel(volatile int* release, volatile int* timed_out, unsigned long long timeout_ns) {
  const unsigned long long t0 = global_timer_ns();
  while (*release == 0) {
    if (global_timer_ns() - t0 > timeout_ns) {
      *timed_out = 1;
      return;
    }
    __nanosleep(200);
  }
}

}  // namespace

Latch::Latch() {
  GP_CUDA_CHECK(cudaHostAlloc(reinterpret_cast<void**>(&host_), 2 * sizeof(int), cudaHostAllocMapped));
  GP_CUDA_CHECK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&device_), host_, 0));
}

Latch::~Latch() {
  if (host_) GP_CUDA_CHECK_NOEXCEPT(cudaFreeHost(host_));
}

void Latch::hold(cudaStream_t stream, double timeout_seconds) {
  host_[0] = 0;
  host_[1] = 0;
  std::atomic_thread_fence(std::memory_order_seq_cst);
  latch_kernel<<<1, 1, 0, stream>>>(device_, device_ + 1, static_cast<unsigned long long>(timeout_seconds * 1e9));
  GP_CUDA_CHECK(cudaGetLastError());
}

void Latch::release() {
  std::atomic_thread_fence(std::memory_order_seq_cst);
  reinterpret_cast<volatile int*>(host_)[0] = 1;
  std::atomic_thread_fence(std::memory_order_seq_cst);
}

bool Latch::timed_out() const { return reinterpret_cast<volatile const int*>(host_)[1] != 0; }

}  // namespace gp
