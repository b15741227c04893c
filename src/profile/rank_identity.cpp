// A profiled process's rank, from the variables its launcher set (graphprof/core/rank_env.hpp).
#include <string>

#include "graphprof/profile/profile_ranks.hpp"

namespace gp {

namespace {

// Decimal digits only (a launcher writes plain numbers); nullopt otherwise.
std::optional<int> number(const std::map<std::string, std::string>& env, const char* name, RankIdentity& id) {
  const auto it = env.find(name);
  if (it == env.end() || it->second.empty()) return std::nullopt;
  long long v = 0;
  for (char c : it->second) {
    if (c < '0' || c > '9' || v > 100000000) {
      id.problems.push_back(std::string(name) + "=" + it->second + " is not a rank number");
      return std::nullopt;
    }
    v = v * 10 + (c - '0');
  }
  return static_cast<int>(v);
}

struct Scheme {
  const char* rank;
  const char* local_rank;
  const char* world_size;
  const char* local_world_size;  // nullptr: the launcher does not say
  const char* node_rank;
};

// First match wins: torchrun sets RANK inside an srun or mpirun job too, and its RANK is the
// worker's; mpirun under Slurm keeps Slurm's variables of the launcher step.
constexpr Scheme kSchemes[] = {
    {"RANK", "LOCAL_RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE", "GROUP_RANK"},
    {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_SIZE",
     "OMPI_COMM_WORLD_NODE_RANK"},
    {"PMI_RANK", "MPI_LOCALRANKID", "PMI_SIZE", "MPI_LOCALNRANKS", nullptr},
    {"SLURM_PROCID", "SLURM_LOCALID", "SLURM_NTASKS", "SLURM_NTASKS_PER_NODE", "SLURM_NODEID"},
};

}  // namespace

RankIdentity rank_identity_of(const std::map<std::string, std::string>& env) {
  RankIdentity id;
  for (const Scheme& s : kSchemes) {
    if (!env.count(s.rank)) continue;
    id.rank = number(env, s.rank, id);
    if (!id.rank) continue;  // not a number: try the next launcher's variables
    id.from = s.rank;
    id.local_rank = number(env, s.local_rank, id);
    id.world_size = number(env, s.world_size, id);
    if (s.local_world_size) {
      // SLURM_NTASKS_PER_NODE may read "2(x3)": not a count graphprof needs, so no complaint.
      RankIdentity quiet;
      id.local_world_size = number(env, s.local_world_size, quiet);
    }
    if (s.node_rank) id.node_rank = number(env, s.node_rank, id);
    if (id.world_size && *id.rank >= *id.world_size) {
      id.problems.push_back(std::string(s.rank) + "=" + std::to_string(*id.rank) + " is not below " + s.world_size + "=" +
                            std::to_string(*id.world_size));
      id.world_size.reset();
    }
    return id;
  }
  return id;
}

}  // namespace gp
