// graphprof starting and waiting for copies of itself (--processes, --isolate, --ranks).
// While children run, SIGINT/SIGTERM sent to graphprof go on to every live child, then end
// graphprof as they would have (see self_spawn.cpp).
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace gp::cli {

// Starts this binary (/proc/self/exe) with `args` (args[0] is its argv[0]) and `extra_env`, its
// stdout discarded; returns its pid. `keep_environment`: the child measures as this process would
// have (--isolate), NVTX_INJECTION64_PATH included; otherwise that variable is dropped.
pid_t spawn_self(const std::vector<std::string>& args, const std::vector<std::string>& extra_env = {},
                 bool keep_environment = false);

// Exit status of a child started by spawn_self (128 + signal when killed); with `block` false,
// -1 while it still runs.
int wait_child(pid_t pid, bool block = true);

}  // namespace gp::cli
