// Rank variables, host name and GPU ids of a profiled process (process_identity.hpp).
#include "process_identity.hpp"

#include <cuda.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include "graphprof/rank_env.hpp"

namespace gp::inject {

std::vector<std::pair<std::string, std::string>> rank_environment() {
  std::vector<std::pair<std::string, std::string>> out;
  for (const char* name : kRankEnvNames)
    if (const char* value = std::getenv(name)) out.emplace_back(name, value);
  return out;
}

std::string host_name(std::string& from) {
  if (const char* node = std::getenv("SLURMD_NODENAME"); node != nullptr && *node != '\0') {
    from = "SLURMD_NODENAME";
    return node;
  }
  char buf[256] = {};
  from = "gethostname";
  if (gethostname(buf, sizeof buf - 1) != 0) return {};
  return buf;
}

DeviceIds device_ids(int ordinal) {
  DeviceIds ids;
  CUdevice dev = 0;
  if (cuDeviceGet(&dev, ordinal) != CUDA_SUCCESS) return ids;
  char bus[32] = {};
  if (cuDeviceGetPCIBusId(bus, sizeof bus, dev) == CUDA_SUCCESS) ids.pci_bus_id = bus;
  CUuuid u{};
  if (cuDeviceGetUuid(&u, dev) == CUDA_SUCCESS) {
    const auto* b = reinterpret_cast<const unsigned char*>(u.bytes);
    char text[48];
    std::snprintf(text, sizeof text, "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1],
                  b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
    ids.uuid = text;
  }
  return ids;
}

}  // namespace gp::inject
