// Who a profiled process is, for the injection library: the rank variables of its launcher
// (graphprof/rank_env.hpp), its host name and the ids of the GPUs it opened. Plain data; the
// library writes it into the process's records ("rank" and "device" lines,
// src/profile/profile_records.cpp). No CUPTI here (the library's one cupti.h TU calls these).
#pragma once
#include <string>
#include <utility>
#include <vector>

namespace gp::inject {

// (name, value) of every rank variable that is set, in kRankEnvNames order.
std::vector<std::pair<std::string, std::string>> rank_environment();

// The host's name: SLURMD_NODENAME when Slurm set it (the name Slurm knows the node by), else
// gethostname(). `from` says which.
std::string host_name(std::string& from);

// PCI bus id ("0000:19:00.0") and UUID ("GPU-3c943a93-...") of device `ordinal`, empty where the
// driver does not say. Driver queries only: safe inside a CUPTI resource callback.
struct DeviceIds {
  std::string pci_bus_id, uuid;
};
DeviceIds device_ids(int ordinal);

}  // namespace gp::inject
