// graphprof_cupti_activity_app: an application that uses CUPTI's activity API itself, as a profiler
// inside an application would (it knows nothing of graphprof). After CUDA started it registers its
// own activity buffer callbacks (process-wide: they replace those of whoever registered before),
// makes 1000 cuDeviceGetCount calls and flushes them into its own buffers, then makes 100 more whose
// records are still pending when it exits. It never subscribes, enables or finalizes anything: the
// kinds it records are the ones already enabled. With "disable" it also turns the DRIVER kind off
// before exiting; with "finalize" it ends with cuptiFinalize, which ends every CUPTI session of the
// process (what a careless tool does). It prints how many buffers of its own it got and exits 0.
// With "subscribe" it only tries to become a CUPTI subscriber itself, as a profiler inside the
// application (Kineto) does, prints what cuptiSubscribe returned and exits 0.
#include <cuda.h>
#include <cupti.h>

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

int g_buffers = 0;
std::size_t g_bytes = 0;

void CUPTIAPI requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, std::size_t{1} << 20));
  *size = *buffer != nullptr ? std::size_t{1} << 20 : 0;
  *max_records = 0;
}

void CUPTIAPI completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
  ++g_buffers;
  g_bytes += valid;
  std::free(buffer);
}

}  // namespace

int main(int argc, char** argv) {
  int devices = 0;
  CUdevice device = 0;
  CUcontext context = nullptr;
  if (cuInit(0) != CUDA_SUCCESS || cuDeviceGetCount(&devices) != CUDA_SUCCESS || cuDeviceGet(&device, 0) != CUDA_SUCCESS ||
      cuDevicePrimaryCtxRetain(&context, device) != CUDA_SUCCESS || cuCtxSetCurrent(context) != CUDA_SUCCESS) {
    std::printf("cupti_activity_app: no CUDA device\n");
    return 4;
  }
  if (argc > 1 && std::strcmp(argv[1], "subscribe") == 0) {
    CUpti_SubscriberHandle subscriber = nullptr;
    const CUptiResult r = cuptiSubscribe(&subscriber, [](void*, CUpti_CallbackDomain, CUpti_CallbackId, const void*) {}, nullptr);
    std::printf("cupti_activity_app: cuptiSubscribe -> %d\n", static_cast<int>(r));
    if (r == CUPTI_SUCCESS) cuptiUnsubscribe(subscriber);
    std::fflush(stdout);
    return 0;
  }
  usleep(700 * 1000);  // a profiler's CUPTI deliveries (every 500 ms) see this process first
  std::printf("cupti_activity_app: cuptiActivityRegisterCallbacks -> %d\n",
              static_cast<int>(cuptiActivityRegisterCallbacks(requested, completed)));
  for (int i = 0; i < 1000; ++i) cuDeviceGetCount(&devices);
  cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  std::printf("cupti_activity_app: %d buffers of its own, %zu bytes\n", g_buffers, g_bytes);
  for (int i = 0; i < 100; ++i) cuDeviceGetCount(&devices);  // still pending at exit
  if (argc > 1 && std::strcmp(argv[1], "disable") == 0)
    std::printf("cupti_activity_app: cuptiActivityDisable(DRIVER) -> %d\n",
                static_cast<int>(cuptiActivityDisable(CUPTI_ACTIVITY_KIND_DRIVER)));
  if (argc > 1 && std::strcmp(argv[1], "finalize") == 0) {
    cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    std::printf("cupti_activity_app: cuptiFinalize -> %d\n", static_cast<int>(cuptiFinalize()));
  }
  std::fflush(stdout);
  return 0;
}
