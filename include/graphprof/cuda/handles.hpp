// Move-only owners of CUDA runtime handles. Destructors never throw (errors are reported to
// stderr by GP_CUDA_CHECK_NOEXCEPT), so they are safe during unwinding after a failed mode.
#pragma once
#include <cuda_runtime_api.h>

#include <cstddef>
#include <utility>

#include "graphprof/cuda/cuda_check.hpp"

namespace gp {

template <typename T, cudaError_t (*Destroy)(T)>
class UniqueHandle {
 public:
  UniqueHandle() = default;
  explicit UniqueHandle(T h) : h_(h) {}
  UniqueHandle(UniqueHandle&& o) noexcept : h_(std::exchange(o.h_, T{})) {}
  UniqueHandle& operator=(UniqueHandle&& o) noexcept {
    if (this != &o) {
      reset();
      h_ = std::exchange(o.h_, T{});
    }
    return *this;
  }
  UniqueHandle(const UniqueHandle&) = delete;
  UniqueHandle& operator=(const UniqueHandle&) = delete;
  ~UniqueHandle() { reset(); }

  T get() const noexcept { return h_; }
  // Gives up ownership without destroying the handle.
  T release() noexcept { return std::exchange(h_, T{}); }
  explicit operator bool() const noexcept { return h_ != T{}; }
  void reset(T h = T{}) noexcept {
    if (h_ != T{}) GP_CUDA_CHECK_NOEXCEPT(Destroy(h_));
    h_ = h;
  }

 private:
  T h_{};
};

using Stream = UniqueHandle<cudaStream_t, cudaStreamDestroy>;
using Event = UniqueHandle<cudaEvent_t, cudaEventDestroy>;
using Graph = UniqueHandle<cudaGraph_t, cudaGraphDestroy>;
using GraphExec = UniqueHandle<cudaGraphExec_t, cudaGraphExecDestroy>;

Stream make_stream();                  // non-blocking with respect to the legacy default stream
Event make_event(bool timing = true);  // timing=false gives a cheaper sync-only event
Graph make_graph();

// Device memory of `bytes` bytes.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t bytes);
  DeviceBuffer(DeviceBuffer&& o) noexcept : p_(std::exchange(o.p_, nullptr)), n_(std::exchange(o.n_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer();
  void* get() const noexcept { return p_; }
  template <typename T> T* as() const noexcept { return static_cast<T*>(p_); }
  std::size_t bytes() const noexcept { return n_; }

 private:
  void* p_ = nullptr;
  std::size_t n_ = 0;
};

// Page-locked host memory (needed for truly asynchronous copies and for capture).
class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  explicit PinnedBuffer(std::size_t bytes);
  PinnedBuffer(PinnedBuffer&& o) noexcept : p_(std::exchange(o.p_, nullptr)), n_(std::exchange(o.n_, 0)) {}
  PinnedBuffer& operator=(PinnedBuffer&& o) noexcept;
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
  ~PinnedBuffer();
  void* get() const noexcept { return p_; }
  template <typename T> T* as() const noexcept { return static_cast<T*>(p_); }
  std::size_t bytes() const noexcept { return n_; }

 private:
  void* p_ = nullptr;
  std::size_t n_ = 0;
};

}  // namespace gp
