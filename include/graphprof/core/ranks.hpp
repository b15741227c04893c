// Reports of a multi-GPU run: one process per GPU (rank), each measuring the same workloads in
// lock-step, combined into one report. Host-only, so it is tested without GPUs.
#pragma once
#include <vector>

#include "graphprof/core/report.hpp"

namespace gp {

// Parameters that only wire ranks together and must not tell results apart between runs.
inline constexpr const char* kRendezvousParam = "rendezvous";

// Keeps every rank's results (told apart by their `rank` parameter) and adds, per workload, mode
// and parameters, one result with rank "all" in which the slowest rank decides: each metric is
// the one of the rank with the highest median. sections.ranks lists every rank's median per
// metric and which rank was slowest. Ranks must come from the same build and GPU model (throws
// input_error otherwise).
Report merge_ranks(const std::vector<Report>& ranks);

}  // namespace gp
