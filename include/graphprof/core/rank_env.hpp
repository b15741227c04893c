// The environment variables that say which rank of a multi-process (multi-GPU) job a process is:
// the injection library of `graphprof profile` records the ones that are set, as they are, and
// graphprof reads them (src/profile/rank_identity.cpp) by these rules, first match wins:
//   RANK                  torchrun, torch.distributed's env:// and most launchers built on it
//   OMPI_COMM_WORLD_RANK  Open MPI (mpirun)
//   PMI_RANK              MPICH / Intel MPI (Hydra)
//   SLURM_PROCID          Slurm (srun)
// Header-only and free of CUDA so the injection library and the host-only core share one list.
#pragma once

namespace gp {

inline constexpr const char* kRankEnvNames[] = {
    // torchrun / torch.distributed
    "RANK", "LOCAL_RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE", "GROUP_RANK", "MASTER_ADDR", "MASTER_PORT",
    "TORCHELASTIC_RUN_ID",
    // Open MPI
    "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_SIZE",
    "OMPI_COMM_WORLD_NODE_RANK",
    // MPICH / Intel MPI (Hydra)
    "PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID", "MPI_LOCALNRANKS",
    // Slurm
    "SLURM_PROCID", "SLURM_LOCALID", "SLURM_NTASKS", "SLURM_NTASKS_PER_NODE", "SLURM_NODEID", "SLURM_JOB_ID",
    "SLURM_STEP_ID", "SLURMD_NODENAME",
    // Which GPUs the process may see: ordinal 0 of two processes may be different GPUs.
    "CUDA_VISIBLE_DEVICES"};

}  // namespace gp
