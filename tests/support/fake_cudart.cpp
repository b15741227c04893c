// A stand-in for the shared CUDA runtime (built as libcudart.so.13 in a folder of its own) for
// tests/unit/interpose_capture_test.cpp: a capture that the driver would invalidate when its stream
// is asked for its id, as on the H200 (cudaStreamGetId on a capturing stream returns
// cudaErrorStreamCaptureUnsupported and invalidates the capture; evidence/interpose/capture-safety.txt).
// It also allocates (from one static arena) and copies (nothing), for the hooks test there.
// Only the functions the test calls through the interposer, with the very types the interposer
// calls them through (src/inject/interpose/interpose_core.hpp: UBSan's function check compares them by name).
#include <cstddef>

#include "interposer_calls.hpp"

namespace {
constexpr int kUnsupported = 900;  // cudaErrorStreamCaptureUnsupported
constexpr int kInvalidated = 901;  // cudaErrorStreamCaptureInvalidated
bool g_capturing = false, g_invalidated = false;
int g_graph = 0;  // the graph handle a capture returns
}  // namespace
using gp::interposer::Dim3;

extern "C" {
__attribute__((visibility("default"))) int cudaStreamBeginCapture(void*, int) {
  g_capturing = true;
  g_invalidated = false;
  return 0;
}
__attribute__((visibility("default"))) int cudaStreamGetId(void*, unsigned long long* id) {
  if (g_capturing) {
    g_invalidated = true;
    return kUnsupported;
  }
  *id = 42;
  return 0;
}
__attribute__((visibility("default"))) int cudaGraphLaunch(void*, void*) { return 0; }
__attribute__((visibility("default"))) int cudaLaunchKernel(const void*, Dim3, Dim3, void**, std::size_t, void*) {
  return g_capturing && g_invalidated ? kInvalidated : 0;
}
__attribute__((visibility("default"))) int cudaMalloc(void** p, std::size_t n) {
  static unsigned char arena[1 << 16];
  if (n > sizeof arena) return 2;  // cudaErrorMemoryAllocation
  *p = arena;
  return 0;
}
__attribute__((visibility("default"))) int cudaFree(void*) { return 0; }
__attribute__((visibility("default"))) int cudaMemcpyAsync(void*, const void*, std::size_t, int, void*) { return 0; }
__attribute__((visibility("default"))) int cudaStreamEndCapture(void*, void** graph) {
  g_capturing = false;
  *graph = g_invalidated ? nullptr : &g_graph;
  return g_invalidated ? kInvalidated : 0;
}
}
