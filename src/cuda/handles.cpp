// Constructors of the RAII CUDA handles.
#include "graphprof/cuda/handles.hpp"

namespace gp {

Stream make_stream() {
  cudaStream_t s = nullptr;
  GP_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  return Stream(s);
}

Event make_event(bool timing) {
  cudaEvent_t e = nullptr;
  GP_CUDA_CHECK(cudaEventCreateWithFlags(&e, timing ? cudaEventDefault : cudaEventDisableTiming));
  return Event(e);
}

Graph make_graph() {
  cudaGraph_t g = nullptr;
  GP_CUDA_CHECK(cudaGraphCreate(&g, 0));
  return Graph(g);
}

template <> DeviceBuffer::MemoryBuffer(std::size_t bytes) : n_(bytes) { GP_CUDA_CHECK(cudaMalloc(&p_, bytes)); }

template <> void DeviceBuffer::release() noexcept {
  if (p_) GP_CUDA_CHECK_NOEXCEPT(cudaFree(p_));
}

template <> PinnedBuffer::MemoryBuffer(std::size_t bytes) : n_(bytes) { GP_CUDA_CHECK(cudaMallocHost(&p_, bytes)); }

template <> void PinnedBuffer::release() noexcept {
  if (p_) GP_CUDA_CHECK_NOEXCEPT(cudaFreeHost(p_));
}

}  // namespace gp
