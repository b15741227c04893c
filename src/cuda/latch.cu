// The latch: holds the stream until the host releases it, so work queued behind it runs back to
// back on the device with host submission hidden (the idea of NVIDIA's cudaGraphsPerfScaling
// sample). A timeout keeps a slow host from hanging the GPU.
#include "latch.hpp"

#include <cuda.h>
#include <cudaTypedefs.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>

#include "graphprof/cuda/cuda_check.hpp"
#include "graphprof/core/error.hpp"

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

namespace {

// The driver's cuStreamWaitValue32 through the runtime: graphprof links the runtime statically and
// not the driver, so that it starts (and explains itself) where no driver is installed.
PFN_cuStreamWaitValue32_v11070 wait_value_entry() {
  static const PFN_cuStreamWaitValue32_v11070 fn = [] {
    void* f = nullptr;
    cudaDriverEntryPointQueryResult found{};
    if (cudaGetDriverEntryPointByVersion("cuStreamWaitValue32", &f, 11070, cudaEnableDefault, &found) != cudaSuccess ||
        found != cudaDriverEntryPointSuccess) {
      (void)cudaGetLastError();
      f = nullptr;
    }
    return reinterpret_cast<PFN_cuStreamWaitValue32_v11070>(f);
  }();
  return fn;
}

// Set when the driver refused the stream wait once: every later latch is a kernel.
std::atomic<bool> g_wait_value_refused{false};

}  // namespace

LatchKind latch_kind() {
  const char* v = std::getenv("GRAPHPROF_LATCH");
  if (v != nullptr && std::strcmp(v, "kernel") == 0) return LatchKind::kKernel;
  if (v != nullptr && *v != '\0' && std::strcmp(v, "wait-value") != 0)
    throw Error(ExitCode::kUsage, std::string("GRAPHPROF_LATCH=") + v + ": expected kernel or wait-value");
  return wait_value_entry() != nullptr && !g_wait_value_refused.load() ? LatchKind::kWaitValue : LatchKind::kKernel;
}

const char* to_string(LatchKind kind) { return kind == LatchKind::kWaitValue ? "wait-value" : "kernel"; }

Latch::Latch(LatchKind kind) : kind_(kind) {
  GP_CUDA_CHECK(cudaHostAlloc(reinterpret_cast<void**>(&host_), 2 * sizeof(int), cudaHostAllocMapped));
  GP_CUDA_CHECK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&device_), host_, 0));
}

Latch::~Latch() {
  stop_watchdog();
  if (host_) GP_CUDA_CHECK_NOEXCEPT(cudaFreeHost(host_));
}

void Latch::stop_watchdog() {
  if (!watchdog_.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(mu_);
    released_ = true;
  }
  cv_.notify_all();
  watchdog_.join();
}

void Latch::hold(cudaStream_t stream, double timeout_seconds) {
  stop_watchdog();
  host_[0] = 0;
  host_[1] = 0;
  std::atomic_thread_fence(std::memory_order_seq_cst);
  if (kind_ == LatchKind::kWaitValue && wait_value_entry() == nullptr) kind_ = LatchKind::kKernel;
  if (kind_ == LatchKind::kKernel) {
    latch_kernel<<<1, 1, 0, stream>>>(device_, device_ + 1, static_cast<unsigned long long>(timeout_seconds * 1e9));
    GP_CUDA_CHECK(cudaGetLastError());
    return;
  }
  const CUresult r = wait_value_entry()(reinterpret_cast<CUstream>(stream), reinterpret_cast<CUdeviceptr>(device_), 1,
                                        CU_STREAM_WAIT_VALUE_GEQ);
  if (r != CUDA_SUCCESS) {
    // Not supported here: this latch and every later one is the kernel.
    g_wait_value_refused.store(true);
    kind_ = LatchKind::kKernel;
    hold(stream, timeout_seconds);
    return;
  }
  released_ = false;
  const auto timeout = std::chrono::duration<double>(timeout_seconds);
  watchdog_ = std::thread([this, timeout] {
    std::unique_lock<std::mutex> lock(mu_);
    if (!cv_.wait_for(lock, timeout, [this] { return released_; })) {
      reinterpret_cast<volatile int*>(host_)[1] = 1;  // the batch was not fully queued in time
      std::atomic_thread_fence(std::memory_order_seq_cst);
      reinterpret_cast<volatile int*>(host_)[0] = 1;
    }
  });
}

void Latch::release() {
  std::atomic_thread_fence(std::memory_order_seq_cst);
  reinterpret_cast<volatile int*>(host_)[0] = 1;
  std::atomic_thread_fence(std::memory_order_seq_cst);
  stop_watchdog();
}

bool Latch::timed_out() const { return reinterpret_cast<volatile const int*>(host_)[1] != 0; }

}  // namespace gp
