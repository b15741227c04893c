// The CUDA runtime and driver functions libgraphprof_interpose.so defines (runtime_interpose.cpp
// says why and how): each forwards to the real one, looked up once, and is recorded through
// interpose_core.hpp. Declared with plain types of the same ABI; no CUDA header.
#include <cstddef>

#include "interpose_core.hpp"

#define GP_EXPORT extern "C" __attribute__((visibility("default")))

using namespace gp::interposer;

#define RT(name, T) static const auto real = real_fn<T>(#name, false)
#define DR(name, T) static const auto real = real_fn<T>(#name, true)

using LaunchFn = Err (*)(const void*, Dim3, Dim3, void**, std::size_t, Handle);
GP_EXPORT Err cudaLaunchKernel(const void* f, Dim3 g, Dim3 b, void** a, std::size_t sh, Handle st) {
  RT(cudaLaunchKernel, LaunchFn);
  return timed(Api::cudaLaunchKernel, real, f, g, b, a, sh, st);
}
GP_EXPORT Err cudaLaunchKernel_ptsz(const void* f, Dim3 g, Dim3 b, void** a, std::size_t sh, Handle st) {
  RT(cudaLaunchKernel_ptsz, LaunchFn);
  return timed(Api::cudaLaunchKernel_ptsz, real, f, g, b, a, sh, st);
}
GP_EXPORT Err __cudaLaunchKernel(const void* f, Dim3 g, Dim3 b, void** a, std::size_t sh, Handle st) {
  RT(__cudaLaunchKernel, LaunchFn);
  return timed(Api::__cudaLaunchKernel, real, f, g, b, a, sh, st);
}
GP_EXPORT Err __cudaLaunchKernel_ptsz(const void* f, Dim3 g, Dim3 b, void** a, std::size_t sh, Handle st) {
  RT(__cudaLaunchKernel_ptsz, LaunchFn);
  return timed(Api::__cudaLaunchKernel_ptsz, real, f, g, b, a, sh, st);
}
GP_EXPORT Err cudaLaunchCooperativeKernel(const void* f, Dim3 g, Dim3 b, void** a, std::size_t sh, Handle st) {
  RT(cudaLaunchCooperativeKernel, LaunchFn);
  return timed(Api::cudaLaunchCooperativeKernel, real, f, g, b, a, sh, st);
}
GP_EXPORT Err cudaLaunchCooperativeKernel_ptsz(const void* f, Dim3 g, Dim3 b, void** a, std::size_t sh, Handle st) {
  RT(cudaLaunchCooperativeKernel_ptsz, LaunchFn);
  return timed(Api::cudaLaunchCooperativeKernel_ptsz, real, f, g, b, a, sh, st);
}
using LaunchExFn = Err (*)(const void*, const void*, void**);
GP_EXPORT Err cudaLaunchKernelExC(const void* config, const void* f, void** a) {
  RT(cudaLaunchKernelExC, LaunchExFn);
  return timed(Api::cudaLaunchKernelExC, real, config, f, a);
}
GP_EXPORT Err cudaLaunchKernelExC_ptsz(const void* config, const void* f, void** a) {
  RT(cudaLaunchKernelExC_ptsz, LaunchExFn);
  return timed(Api::cudaLaunchKernelExC_ptsz, real, config, f, a);
}

using GraphLaunchFn = Err (*)(Handle, Handle);
GP_EXPORT Err cudaGraphLaunch(Handle exec, Handle stream) {
  RT(cudaGraphLaunch, GraphLaunchFn);
  return graph_launch(Api::cudaGraphLaunch, real, exec, stream);
}
GP_EXPORT Err cudaGraphLaunch_ptsz(Handle exec, Handle stream) {
  RT(cudaGraphLaunch_ptsz, GraphLaunchFn);
  return graph_launch(Api::cudaGraphLaunch_ptsz, real, exec, stream);
}
GP_EXPORT Err cudaGraphUpload(Handle exec, Handle stream) {
  RT(cudaGraphUpload, GraphLaunchFn);
  return upload(Api::cudaGraphUpload, real, exec, stream);
}
GP_EXPORT Err cudaGraphUpload_ptsz(Handle exec, Handle stream) {
  RT(cudaGraphUpload_ptsz, GraphLaunchFn);
  return upload(Api::cudaGraphUpload_ptsz, real, exec, stream);
}

using BeginFn = Err (*)(Handle, int);
using EndFn = Err (*)(Handle, Handle*);
GP_EXPORT Err cudaStreamBeginCapture(Handle stream, int mode) {
  RT(cudaStreamBeginCapture, BeginFn);
  return begin_capture(Api::cudaStreamBeginCapture, real, stream, mode);
}
GP_EXPORT Err cudaStreamBeginCapture_ptsz(Handle stream, int mode) {
  RT(cudaStreamBeginCapture_ptsz, BeginFn);
  return begin_capture(Api::cudaStreamBeginCapture_ptsz, real, stream, mode);
}
GP_EXPORT Err cudaStreamEndCapture(Handle stream, Handle* graph) {
  RT(cudaStreamEndCapture, EndFn);
  return end_capture(Api::cudaStreamEndCapture, real, stream, graph);
}
GP_EXPORT Err cudaStreamEndCapture_ptsz(Handle stream, Handle* graph) {
  RT(cudaStreamEndCapture_ptsz, EndFn);
  return end_capture(Api::cudaStreamEndCapture_ptsz, real, stream, graph);
}

// CUDA 12+: (exec*, graph, unsigned long long flags); before: (exec*, graph, errorNode*, log, size).
using InstantiateFn = Err (*)(Handle*, Handle, void*, void*, std::size_t);
GP_EXPORT Err cudaGraphInstantiate(Handle* exec, Handle graph, void* a3, void* a4, std::size_t a5) {
  RT(cudaGraphInstantiate, InstantiateFn);
  return instantiate(Api::cudaGraphInstantiate, real, exec, graph, a3, a4, a5);
}
using InstantiateFlagsFn = Err (*)(Handle*, Handle, unsigned long long);
GP_EXPORT Err cudaGraphInstantiateWithFlags(Handle* exec, Handle graph, unsigned long long flags) {
  RT(cudaGraphInstantiateWithFlags, InstantiateFlagsFn);
  return instantiate(Api::cudaGraphInstantiateWithFlags, real, exec, graph, flags);
}
using InstantiateParamsFn = Err (*)(Handle*, Handle, void*);
GP_EXPORT Err cudaGraphInstantiateWithParams(Handle* exec, Handle graph, void* params) {
  RT(cudaGraphInstantiateWithParams, InstantiateParamsFn);
  return instantiate(Api::cudaGraphInstantiateWithParams, real, exec, graph, params);
}
GP_EXPORT Err cudaGraphInstantiateWithParams_ptsz(Handle* exec, Handle graph, void* params) {
  RT(cudaGraphInstantiateWithParams_ptsz, InstantiateParamsFn);
  return instantiate(Api::cudaGraphInstantiateWithParams_ptsz, real, exec, graph, params);
}

// Exec updates and parameter changes (counted per process). cudaGraphExecUpdate: CUDA 12+
// (exec, graph, resultInfo*); before: (exec, graph, errorNode*, result*).
using Ptr4Fn = Err (*)(void*, void*, void*, void*);
using Ptr3Fn = Err (*)(void*, void*, void*);
GP_EXPORT Err cudaGraphExecUpdate(void* exec, void* graph, void* a3, void* a4) {
  RT(cudaGraphExecUpdate, Ptr4Fn);
  return timed(Api::cudaGraphExecUpdate, real, exec, graph, a3, a4);
}
#define GP_SET_PARAMS(name, domain)                                    \
  GP_EXPORT Err name(void* exec, void* node, void* params) {           \
    domain(name, Ptr3Fn);                                              \
    return timed(Api::name, real, exec, node, params);                 \
  }
GP_SET_PARAMS(cudaGraphExecKernelNodeSetParams, RT)
GP_SET_PARAMS(cudaGraphExecNodeSetParams, RT)
GP_SET_PARAMS(cudaGraphExecMemcpyNodeSetParams, RT)
GP_SET_PARAMS(cudaGraphExecMemsetNodeSetParams, RT)
GP_SET_PARAMS(cudaGraphExecHostNodeSetParams, RT)
GP_SET_PARAMS(cudaGraphExecChildGraphNodeSetParams, RT)
GP_SET_PARAMS(cuGraphExecKernelNodeSetParams, DR)
GP_SET_PARAMS(cuGraphExecNodeSetParams, DR)
GP_EXPORT Err cuGraphExecKernelNodeSetParams_v2(void* exec, void* node, void* params) {
  DR(cuGraphExecKernelNodeSetParams_v2, Ptr3Fn);
  return timed(Api::cuGraphExecKernelNodeSetParams, real, exec, node, params);
}

// Synchronising calls (they end --overhead's window) and the synchronous copy and memset.
using VoidFn = Err (*)();
using OneFn = Err (*)(Handle);
GP_EXPORT Err cudaDeviceSynchronize(void) {
  RT(cudaDeviceSynchronize, VoidFn);
  return synchronising(Api::cudaDeviceSynchronize, real);
}
GP_EXPORT Err cudaStreamSynchronize(Handle s) {
  RT(cudaStreamSynchronize, OneFn);
  return synchronising(Api::cudaStreamSynchronize, real, s);
}
GP_EXPORT Err cudaStreamSynchronize_ptsz(Handle s) {
  RT(cudaStreamSynchronize_ptsz, OneFn);
  return synchronising(Api::cudaStreamSynchronize_ptsz, real, s);
}
GP_EXPORT Err cudaEventSynchronize(Handle e) {
  RT(cudaEventSynchronize, OneFn);
  return synchronising(Api::cudaEventSynchronize, real, e);
}
GP_EXPORT Err cudaMemcpy(void* dst, const void* src, std::size_t n, int kind) {
  RT(cudaMemcpy, Err (*)(void*, const void*, std::size_t, int));
  return timed(Api::cudaMemcpy, real, dst, src, n, kind);
}
GP_EXPORT Err cudaMemcpy2D(void* dst, std::size_t dp, const void* src, std::size_t sp, std::size_t w, std::size_t h, int kind) {
  RT(cudaMemcpy2D, Err (*)(void*, std::size_t, const void*, std::size_t, std::size_t, std::size_t, int));
  return timed(Api::cudaMemcpy2D, real, dst, dp, src, sp, w, h, kind);
}
GP_EXPORT Err cudaMemset(void* p, int v, std::size_t n) {
  RT(cudaMemset, Err (*)(void*, int, std::size_t));
  return timed(Api::cudaMemset, real, p, v, n);
}

// Calls not allowed inside a capture (what breaks one).
GP_EXPORT Err cudaMalloc(void** p, std::size_t n) {
  RT(cudaMalloc, Err (*)(void**, std::size_t));
  return capture_breaker(Api::cudaMalloc, real, p, n);
}
GP_EXPORT Err cudaFree(void* p) {
  RT(cudaFree, Err (*)(void*));
  return capture_breaker(Api::cudaFree, real, p);
}
GP_EXPORT Err cudaMallocHost(void** p, std::size_t n) {
  RT(cudaMallocHost, Err (*)(void**, std::size_t));
  return capture_breaker(Api::cudaMallocHost, real, p, n);
}
GP_EXPORT Err cudaFreeHost(void* p) {
  RT(cudaFreeHost, Err (*)(void*));
  return capture_breaker(Api::cudaFreeHost, real, p);
}
GP_EXPORT Err cudaStreamQuery(Handle s) {
  RT(cudaStreamQuery, OneFn);
  return capture_breaker(Api::cudaStreamQuery, real, s);
}
GP_EXPORT Err cudaEventQuery(Handle e) {
  RT(cudaEventQuery, OneFn);
  return capture_breaker(Api::cudaEventQuery, real, e);
}

// ---- the driver API (programs and libraries that call libcuda.so's exported symbols) ----

using CuLaunchFn = Err (*)(Handle, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, Handle, void**, void**);
GP_EXPORT Err cuLaunchKernel(Handle f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz, unsigned sh,
                             Handle st, void** params, void** extra) {
  DR(cuLaunchKernel, CuLaunchFn);
  return timed(Api::cuLaunchKernel, real, f, gx, gy, gz, bx, by, bz, sh, st, params, extra);
}
GP_EXPORT Err cuLaunchKernel_ptsz(Handle f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                                  unsigned sh, Handle st, void** params, void** extra) {
  DR(cuLaunchKernel_ptsz, CuLaunchFn);
  return timed(Api::cuLaunchKernel_ptsz, real, f, gx, gy, gz, bx, by, bz, sh, st, params, extra);
}
using CuCoopFn = Err (*)(Handle, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, Handle, void**);
GP_EXPORT Err cuLaunchCooperativeKernel(Handle f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                                        unsigned sh, Handle st, void** params) {
  DR(cuLaunchCooperativeKernel, CuCoopFn);
  return timed(Api::cuLaunchCooperativeKernel, real, f, gx, gy, gz, bx, by, bz, sh, st, params);
}
GP_EXPORT Err cuLaunchCooperativeKernel_ptsz(Handle f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                                             unsigned bz, unsigned sh, Handle st, void** params) {
  DR(cuLaunchCooperativeKernel_ptsz, CuCoopFn);
  return timed(Api::cuLaunchCooperativeKernel_ptsz, real, f, gx, gy, gz, bx, by, bz, sh, st, params);
}
using CuLaunchExFn = Err (*)(const void*, Handle, void**, void**);
GP_EXPORT Err cuLaunchKernelEx(const void* config, Handle f, void** params, void** extra) {
  DR(cuLaunchKernelEx, CuLaunchExFn);
  return timed(Api::cuLaunchKernelEx, real, config, f, params, extra);
}
GP_EXPORT Err cuLaunchKernelEx_ptsz(const void* config, Handle f, void** params, void** extra) {
  DR(cuLaunchKernelEx_ptsz, CuLaunchExFn);
  return timed(Api::cuLaunchKernelEx_ptsz, real, config, f, params, extra);
}
GP_EXPORT Err cuGraphLaunch(Handle exec, Handle stream) {
  DR(cuGraphLaunch, GraphLaunchFn);
  return graph_launch(Api::cuGraphLaunch, real, exec, stream);
}
GP_EXPORT Err cuGraphLaunch_ptsz(Handle exec, Handle stream) {
  DR(cuGraphLaunch_ptsz, GraphLaunchFn);
  return graph_launch(Api::cuGraphLaunch_ptsz, real, exec, stream);
}
GP_EXPORT Err cuGraphInstantiateWithFlags(Handle* exec, Handle graph, unsigned long long flags) {
  DR(cuGraphInstantiateWithFlags, InstantiateFlagsFn);
  return instantiate(Api::cuGraphInstantiateWithFlags, real, exec, graph, flags);
}
GP_EXPORT Err cuGraphInstantiateWithParams(Handle* exec, Handle graph, void* params) {
  DR(cuGraphInstantiateWithParams, InstantiateParamsFn);
  return instantiate(Api::cuGraphInstantiateWithParams, real, exec, graph, params);
}
GP_EXPORT Err cuGraphInstantiateWithParams_ptsz(Handle* exec, Handle graph, void* params) {
  DR(cuGraphInstantiateWithParams_ptsz, InstantiateParamsFn);
  return instantiate(Api::cuGraphInstantiateWithParams_ptsz, real, exec, graph, params);
}
GP_EXPORT Err cuGraphExecUpdate(void* exec, void* graph, void* a3, void* a4) {  // before CUDA 12
  DR(cuGraphExecUpdate, Ptr4Fn);
  return timed(Api::cuGraphExecUpdate, real, exec, graph, a3, a4);
}
GP_EXPORT Err cuGraphExecUpdate_v2(void* exec, void* graph, void* info) {
  DR(cuGraphExecUpdate_v2, Ptr3Fn);
  return timed(Api::cuGraphExecUpdate, real, exec, graph, info);
}
GP_EXPORT Err cuCtxSynchronize(void) {
  DR(cuCtxSynchronize, VoidFn);
  return synchronising(Api::cuCtxSynchronize, real);
}
GP_EXPORT Err cuStreamSynchronize(Handle s) {
  DR(cuStreamSynchronize, OneFn);
  return synchronising(Api::cuStreamSynchronize, real, s);
}
GP_EXPORT Err cuStreamSynchronize_ptsz(Handle s) {
  DR(cuStreamSynchronize_ptsz, OneFn);
  return synchronising(Api::cuStreamSynchronize_ptsz, real, s);
}
GP_EXPORT Err cuEventSynchronize(Handle e) {
  DR(cuEventSynchronize, OneFn);
  return synchronising(Api::cuEventSynchronize, real, e);
}
