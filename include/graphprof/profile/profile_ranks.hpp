// Multi-rank profiles: which rank of a job each profiled process is (from its launcher's
// environment), the GPUs it used, NCCL kernels named as collectives, and the cross-rank view of a
// profile (the same graph on every rank, its time per rank, the slowest rank, the skew, time in
// collectives and the estimated wait, capture trouble that only shows across ranks).
// Host-only; the CPU tests drive it with recorded line files and reports (tests/data/profile/ranks/).
// docs/profile.md ("Several ranks") describes the figures, docs/report-schema.md the JSON.
#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "graphprof/core/profile_section.hpp"

namespace gp {

// ---------------------------------------------------------------------------------------------
// Identity of a process

// A process's place in its job, read from the variables its launcher set (graphprof/core/rank_env.hpp
// lists them and the order in which they are tried).
struct RankIdentity {
  std::optional<int> rank, local_rank, world_size, local_world_size, node_rank;
  std::string from;  // the variable the rank came from: "RANK", "OMPI_COMM_WORLD_RANK", "PMI_RANK", "SLURM_PROCID"
  std::vector<std::string> problems;  // a variable that is set but not a number, ...
  bool known() const { return rank.has_value(); }
};

// `env`: the recorded variables (name -> value). Values must be decimal integers >= 0; a value
// that is not is left out and named in `problems`.
RankIdentity rank_identity_of(const std::map<std::string, std::string>& env);

// A GPU a process created a context on (the injection's "device" line).
struct GpuIdentity {
  std::uint32_t ordinal = 0;  // as the process numbers its devices (after CUDA_VISIBLE_DEVICES)
  std::string pci_bus_id, uuid;
};

// ---------------------------------------------------------------------------------------------
// NCCL kernels as collectives

// What an NCCL kernel's name says. NCCL names its kernels after the collective
// (ncclDevKernel_AllReduce_Sum_f32_RING_LL, ncclKernel_AllGather_RING_LL_Sum_int8_t, ...);
// ncclDevKernel_Generic runs whatever was batched into it, so its collective is not known.
struct CollectiveKernel {
  std::string kind;       // "all-reduce", "all-gather", "reduce-scatter", "broadcast", "reduce", "send-recv",
                          // "all-to-all", "collective (generic kernel)"
  std::string op;         // "sum", "max", ... ("" when the name does not say)
  std::string dtype;      // "f32", "bf16", ... ("" when the name does not say)
  std::string algorithm;  // "RING_LL", "TREE_SIMPLE", "NVLS_SIMPLE", ... ("" when the name does not say)
};

// nullopt for a kernel that is not NCCL's. `name`: as recorded (mangled) or short.
std::optional<CollectiveKernel> nccl_collective_of(const std::string& name);

// The NCCL kernels of one graph, or of a process's eager work, by kernel.
struct CollectiveUse {
  CollectiveKernel what;
  std::string kernel;         // short kernel name
  std::size_t count = 0;      // kernels run
  double total_ns = 0;        // their GPU time
  double per_launch = 0;      // kernels per graph launch (graphs only)
};

// ---------------------------------------------------------------------------------------------
// The cross-rank view

// Built from the processes of a profile report (sections.profile.processes, as profile_report
// writes them), so it works the same for one `graphprof profile` and for `graphprof merge` of the
// reports of several nodes. Processes without a rank identity (a launcher, a compile worker that
// did not inherit the variables) are not part of it. JSON (sections.profile.cross_rank):
//   { "ranks": [{rank, local_rank, world_size, local_world_size, node_rank, from, host, processes:[..],
//                pids:[..], gpus:[{ordinal, pci_bus_id, uuid}], graph_launches, graph_gpu_ns,
//                collective_ns, collective_wait_ns}],
//     "world_size" (declared, or null when ranks disagree), "hosts": [..], "missing_ranks": [..],
//     "graphs": [{id, matched_by: "call site"|"shape", call_site (capture_site.where, else instantiate_site.where), nodes, kernels_per_launch, signature,
//                 ranks: [{rank, process, exec, graph, launches, gpu_per_launch_ns,
//                          collective_per_launch_ns, outside_collectives_per_launch_ns, wait_per_launch_ns}],
//                 missing_on: [ranks], slowest_rank, fastest_rank, skew_ns, skew,
//                 busiest_rank (most GPU time outside collectives), collective_share,
//                 collectives: [{kind, kernel, op, dtype, algorithm, per_launch, bytes: null}]}],
//     "collectives": [{rank, kind, in_graphs, eager, total_ns, wait_ns}],
//     "trouble": [{kind, ranks: [..], graph, detail, hint}],
//     "notes": [..] }
// Returns null when no process has a rank identity.
ProfileOptional<ProfileCrossRank> cross_rank_view(const ProfileList<ProfileProcess>& processes);
// The same of processes as JSON (tests, tools), the view as JSON.
nlohmann::json cross_rank_view(const nlohmann::json& processes);

// Console text (src/report/profile_ranks_text.cpp): the per-rank table, the same graph on every
// rank, per-rank detail of the graphs with collectives, trouble across ranks. Empty for fewer than
// two ranks without trouble. `verbose`: every graph in full.
std::string format_cross_rank_summary(const ProfileCrossRank& cross_rank, bool verbose = false);
// The same of the JSON (sections.profile.cross_rank as cross_rank_view writes it).
std::string format_cross_rank_summary(const nlohmann::json& cross_rank, bool verbose = false);
// "rank 1 of 2, local 1, host node-a, GPU 0 0000:19:00.0" for a process of the report; "" without a rank.
std::string rank_label(const ProfileProcess& process);

}  // namespace gp
