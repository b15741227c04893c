// A stand-in for the CUDA driver (built as libcuda.so.1 in a folder of its own, linked
// -Bsymbolic so that the addresses it hands out are its own functions, as the real driver's are)
// for tests/unit/interpose_driver_test.cpp: cuGetProcAddress_v2 answers for the functions below,
// which count their calls. Declared with the very types the interposer forwards through
// (src/inject/interpose/interpose_api.cpp, driver_lookup.cpp).
#include <cstring>

#define FAKE_EXPORT extern "C" __attribute__((visibility("default")))

namespace {
int g_launches = 0, g_graph_launches = 0;
}  // namespace

FAKE_EXPORT int cuLaunchKernel(void*, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, void*, void**, void**) {
  ++g_launches;
  return 0;
}
FAKE_EXPORT int cuGraphLaunch(void*, void*) {
  ++g_graph_launches;
  return 0;
}
FAKE_EXPORT int cuInit(unsigned) { return 0; }  // a driver function the interposer does not define
FAKE_EXPORT int cuGetProcAddress_v2(const char* symbol, void** pfn, int, unsigned long long, void*) {
  if (std::strcmp(symbol, "cuLaunchKernel") == 0) *pfn = reinterpret_cast<void*>(&cuLaunchKernel);
  else if (std::strcmp(symbol, "cuGraphLaunch") == 0) *pfn = reinterpret_cast<void*>(&cuGraphLaunch);
  else if (std::strcmp(symbol, "cuInit") == 0) *pfn = reinterpret_cast<void*>(&cuInit);
  else if (std::strcmp(symbol, "cuGetProcAddress") == 0) *pfn = reinterpret_cast<void*>(&cuGetProcAddress_v2);
  else {
    *pfn = nullptr;
    return 500;  // CUDA_ERROR_NOT_FOUND
  }
  return 0;
}
// The test's view of what reached the stand-in.
FAKE_EXPORT void fake_cuda_calls(int* launches, int* graph_launches) {
  *launches = g_launches;
  *graph_launches = g_graph_launches;
}
