// Device discovery and facts for the report.
#include "graphprof/cuda/device.hpp"

#include <cuda_runtime_api.h>

#include <cstdio>

#include "graphprof/cuda/cuda_check.hpp"
#include "graphprof/trace/cupti_session.hpp"
#include "graphprof/core/error.hpp"

namespace gp {

std::string no_gpu_message(const std::string& cuda_error_name, const std::string& cuda_error_text) {
  return "no usable CUDA device or driver found (" + cuda_error_name + ": " + cuda_error_text +
         "); commands that work without a GPU: list, analyze, render, compare, merge, report, --help, --version";
}

namespace {

// The CUDA error behind a failed cudaGetDeviceCount, as the message's reason. Without any driver
// the runtime answers cudaErrorInsufficientDriver, "CUDA driver version is insufficient", which
// sends people looking for a driver update on a machine that has no driver at all.
std::string no_gpu_error_text(cudaError_t e) {
  int driver = -1;
  if (e == cudaErrorInsufficientDriver && cudaDriverGetVersion(&driver) == cudaSuccess && driver == 0)
    return no_gpu_message(cudaGetErrorName(e), "no NVIDIA driver is installed (libcuda.so.1 cannot be loaded)");
  return no_gpu_message(cudaGetErrorName(e), cudaGetErrorString(e));
}

}  // namespace

void require_gpu(int ordinal) {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) throw environment_error(no_gpu_error_text(e));
  if (count == 0) throw environment_error(no_gpu_message("cudaErrorNoDevice", "no CUDA-capable device is detected"));
  if (ordinal < 0 || ordinal >= count)
    throw usage_error("--device " + std::to_string(ordinal) + ": only " + std::to_string(count) + " device(s) present");
  GP_CUDA_CHECK(cudaSetDevice(ordinal));
}

int device_count() {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) throw environment_error(no_gpu_error_text(e));
  if (count == 0) throw environment_error(no_gpu_message("cudaErrorNoDevice", "no CUDA-capable device is detected"));
  return count;
}

GpuInfo query_gpu(int ordinal) {
  require_gpu(ordinal);
  GpuInfo g;
  g.ordinal = ordinal;
  cudaDeviceProp prop{};
  GP_CUDA_CHECK(cudaGetDeviceProperties(&prop, ordinal));
  g.name = prop.name;
  char uuid[64];
  const auto* u = reinterpret_cast<const unsigned char*>(prop.uuid.bytes);
  std::snprintf(uuid, sizeof(uuid), "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0], u[1],
                u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
  g.uuid = uuid;
  char bus[32];
  std::snprintf(bus, sizeof(bus), "%04x:%02x:%02x.0", prop.pciDomainID, prop.pciBusID, prop.pciDeviceID);
  g.pci_bus_id = bus;
  g.cc_major = prop.major;
  g.cc_minor = prop.minor;
  g.sm_count = prop.multiProcessorCount;
  g.global_memory_bytes = static_cast<long long>(prop.totalGlobalMem);
  // clockRate left cudaDeviceProp in CUDA 13; the attributes still exist.
  GP_CUDA_CHECK(cudaDeviceGetAttribute(&g.clock_khz, cudaDevAttrClockRate, ordinal));
  GP_CUDA_CHECK(cudaDeviceGetAttribute(&g.memory_clock_khz, cudaDevAttrMemoryClockRate, ordinal));
  GP_CUDA_CHECK(cudaDriverGetVersion(&g.driver_version));
  GP_CUDA_CHECK(cudaRuntimeGetVersion(&g.runtime_version));
  g.cupti_version = cupti_version();
  return g;
}

}  // namespace gp
