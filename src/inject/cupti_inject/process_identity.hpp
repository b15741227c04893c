// Who a profiled process is, for the injection library: the rank variables of its launcher
// (graphprof/core/rank_env.hpp), its host name and the ids of the GPUs it opens, written into the
// process's records as "rank" and "device" lines (format: src/profile/profile_records.cpp). No
// CUPTI here: graphprof_inject.cpp (the library's cupti.h TU) calls these.
#pragma once
#include <cstdint>

namespace gp::inject {

// The "rank" line: the rank variables that are set (as they are), and the host's name:
// SLURMD_NODENAME when Slurm set it (the name Slurm knows the node by), else gethostname().
void write_rank_line();

// The "device" line of device `ordinal` (once per ordinal): its PCI bus id and UUID, empty where
// the driver does not say. Driver queries only: safe inside a CUPTI resource callback.
void write_device_line(std::uint32_t ordinal);

}  // namespace gp::inject
