// capture-safety-probe: which call, made by an observer on the capturing thread right after
// cudaStreamBeginCapture, invalidates the capture. For each action and capture mode: begin a
// capture on a non-blocking stream, do the action, launch a kernel, end the capture, and print the
// results (the action's, the launch's, the end's). A developer tool for the interposer
// (src/inject/interpose/runtime_interpose.cpp); not part of the product build.
// Build: nvcc -O2 -std=c++17 -arch=sm_90 -cudart shared tools/experiments/capture-safety-probe.cu -o capture_probe -lcuda -ldl
#include <cuda.h>
#include <cuda_runtime.h>
#include <dlfcn.h>

#include <cstdio>
#include <cstring>
#include <string>

__global__ void tiny(int* p) {
  if (p != nullptr) *p += 1;
}

namespace {

int act(const std::string& a, cudaStream_t s) {
  if (a == "none") return 0;
  if (a == "cudaStreamGetId") {
    unsigned long long id = 0;
    const int r = cudaStreamGetId(s, &id);
    std::printf("    id=%llu\n", id);
    return r;
  }
  if (a == "cudaStreamGetId_dlsym") {  // as the interposer calls it: looked up, through a pointer
    using Fn = cudaError_t (*)(cudaStream_t, unsigned long long*);
    const auto fn = reinterpret_cast<Fn>(dlsym(RTLD_NEXT, "cudaStreamGetId"));
    if (fn == nullptr) return -1;
    unsigned long long id = 0;
    const int r = fn(s, &id);
    std::printf("    id=%llu\n", id);
    return r;
  }
  if (a == "cuStreamGetId") {
    unsigned long long id = 0;
    const int r = cuStreamGetId(reinterpret_cast<CUstream>(s), &id);
    std::printf("    id=%llu\n", id);
    return r;
  }
  if (a == "cudaStreamGetCaptureInfo") {
    cudaStreamCaptureStatus st{};
    unsigned long long id = 0;
    const int r = cudaStreamGetCaptureInfo(s, &st, &id);
    std::printf("    status=%d capture_id=%llu\n", static_cast<int>(st), id);
    return r;
  }
  if (a == "cudaStreamIsCapturing") {
    cudaStreamCaptureStatus st{};
    return cudaStreamIsCapturing(s, &st);
  }
  if (a == "cudaGetLastError") return cudaGetLastError();
  if (a == "cudaGetDevice") {
    int d = -1;
    return cudaGetDevice(&d);
  }
  if (a == "cuCtxGetCurrent") {
    CUcontext c = nullptr;
    return cuCtxGetCurrent(&c);
  }
  if (a == "dladdr") {
    Dl_info info{};
    return dladdr(reinterpret_cast<void*>(&cudaStreamGetId), &info) != 0 ? 0 : -1;
  }
  std::printf("    unknown action\n");
  return -2;
}

}  // namespace

int main(int argc, char** argv) {
  const char* actions[] = {"none", "cudaStreamGetId", "cudaStreamGetId_dlsym", "cuStreamGetId", "cudaStreamGetCaptureInfo",
                           "cudaStreamIsCapturing", "cudaGetLastError", "cudaGetDevice", "cuCtxGetCurrent", "dladdr"};
  int* d = nullptr;
  if (cudaMalloc(&d, sizeof(int)) != cudaSuccess) return 4;
  cudaStream_t s = nullptr;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  tiny<<<1, 1, 0, s>>>(d);  // the kernel is loaded before any capture
  cudaStreamSynchronize(s);
  for (const char* a : actions) {
    if (argc > 1 && std::strcmp(argv[1], a) != 0) continue;
    for (const cudaStreamCaptureMode mode : {cudaStreamCaptureModeThreadLocal, cudaStreamCaptureModeGlobal}) {
      std::printf("action=%s mode=%s\n", a, mode == cudaStreamCaptureModeGlobal ? "global" : "thread_local");
      const cudaError_t b = cudaStreamBeginCapture(s, mode);
      const int r = act(a, s);
      tiny<<<1, 1, 0, s>>>(d);
      const cudaError_t l = cudaGetLastError();
      cudaGraph_t g = nullptr;
      const cudaError_t e = cudaStreamEndCapture(s, &g);
      std::printf("  begin=%s action=%d launch=%s end=%s graph=%s -> %s\n", cudaGetErrorName(b), r, cudaGetErrorName(l),
                  cudaGetErrorName(e), g != nullptr ? "yes" : "no", e == cudaSuccess && g != nullptr ? "CAPTURED" : "BROKEN");
      if (g != nullptr) cudaGraphDestroy(g);
      (void)cudaGetLastError();
    }
  }
  std::fflush(stdout);
  return 0;
}
