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

// Owned memory of `bytes` bytes: device memory (DeviceBuffer, cudaMalloc) or page-locked host
// memory (PinnedBuffer, cudaMallocHost: needed for truly asynchronous copies and for capture).
enum class MemoryKind { kDevice, kPinnedHost };

template <MemoryKind Kind>
class MemoryBuffer {
 public:
  MemoryBuffer() = default;
  explicit MemoryBuffer(std::size_t bytes);
  MemoryBuffer(MemoryBuffer&& o) noexcept : p_(std::exchange(o.p_, nullptr)), n_(std::exchange(o.n_, 0)) {}
  MemoryBuffer& operator=(MemoryBuffer&& o) noexcept {
    if (this != &o) {
      release();
      p_ = std::exchange(o.p_, nullptr);
      n_ = std::exchange(o.n_, 0);
    }
    return *this;
  }
  MemoryBuffer(const MemoryBuffer&) = delete;
  MemoryBuffer& operator=(const MemoryBuffer&) = delete;
  ~MemoryBuffer() { release(); }
  void* get() const noexcept { return p_; }
  template <typename T> T* as() const noexcept { return static_cast<T*>(p_); }
  std::size_t bytes() const noexcept { return n_; }

 private:
  void release() noexcept;  // frees p_ if set (errors reported, never thrown)

  void* p_ = nullptr;
  std::size_t n_ = 0;
};

using DeviceBuffer = MemoryBuffer<MemoryKind::kDevice>;
using PinnedBuffer = MemoryBuffer<MemoryKind::kPinnedHost>;

// Defined in handles.cpp.
template <> DeviceBuffer::MemoryBuffer(std::size_t bytes);
template <> void DeviceBuffer::release() noexcept;
template <> PinnedBuffer::MemoryBuffer(std::size_t bytes);
template <> void PinnedBuffer::release() noexcept;

}  // namespace gp
