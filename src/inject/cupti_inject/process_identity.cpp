// Rank variables, host name and GPU ids of a profiled process (process_identity.hpp).
#include "process_identity.hpp"

#include <cuda.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "graphprof/core/rank_env.hpp"
#include "inject_output.hpp"
#include "record_lines.hpp"

namespace gp::inject {

namespace {

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

std::atomic<unsigned long long> g_devices_written{0};  // bit per ordinal below 64

}  // namespace

void write_rank_line() {
  records::RankLine rank;
  rank.host = host_name(rank.host_from);
  for (const char* name : kRankEnvNames)
    if (const char* value = std::getenv(name)) rank.env.emplace_back(name, value);
  std::string line;
  records::write(line, rank);
  write_lines(line, true);
}

void write_device_line(std::uint32_t ordinal) {
  if (ordinal < 64 && (g_devices_written.fetch_or(1ull << ordinal) & (1ull << ordinal)) != 0) return;
  std::string pci, uuid;
  CUdevice dev = 0;
  if (cuDeviceGet(&dev, static_cast<int>(ordinal)) == CUDA_SUCCESS) {
    char bus[32] = {};
    if (cuDeviceGetPCIBusId(bus, sizeof bus, dev) == CUDA_SUCCESS) pci = bus;
    CUuuid u{};
    if (cuDeviceGetUuid(&u, dev) == CUDA_SUCCESS) {
      const auto* b = reinterpret_cast<const unsigned char*>(u.bytes);
      char text[48];
      std::snprintf(text, sizeof text, "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1],
                    b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
      uuid = text;
    }
  }
  std::string line;
  records::write(line, records::DeviceLine{ordinal, pci, uuid});
  write_lines(line, true);
}

}  // namespace gp::inject
