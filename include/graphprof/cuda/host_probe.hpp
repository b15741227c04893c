// Host-speed probes: how fast this process's CPU and the CUDA driver's host path are right now.
// Launch costs and other host-clock figures scale with them, so a report records them and
// `compare` can tell a slower host from a slower workload.
#pragma once
#include <map>
#include <string>

namespace gp {

// Median ns of a fixed CPU-only loop ("cpu_loop_ns") and of cudaStreamQuery on an idle stream
// ("cuda_api_ns"); keys get `suffix` appended ("_start", "_end").
std::map<std::string, double> measure_host_probes(const std::string& suffix);

}  // namespace gp
