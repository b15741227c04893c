// graphprof starting and waiting for copies of itself (--processes, --isolate, --ranks).
// While children run, SIGINT/SIGTERM sent to graphprof go on to every live child, then end
// graphprof as they would have (see self_spawn.cpp).
#pragma once

#include <signal.h>
#include <spawn.h>
#include <sys/types.h>

#include <string>
#include <vector>

namespace gp::cli {

// SIGINT and SIGTERM held in this thread from construction until release() (or destruction): a
// signal that arrives while a child is being started, before its pid is recorded where the
// handler finds it, is delivered at release() instead of being lost.
class SignalsHeld {
 public:
  SignalsHeld();
  ~SignalsHeld() { release(); }
  SignalsHeld(const SignalsHeld&) = delete;
  SignalsHeld& operator=(const SignalsHeld&) = delete;
  void release();
  const sigset_t& caller_mask() const { return caller_mask_; }  // the mask before: give it to the child

 private:
  sigset_t caller_mask_;
  bool held_ = true;
};

// posix_spawn (posix_spawnp when `search_path`) with the child's signal mask set to `mask`, so a
// child started under SignalsHeld runs with its caller's signals. `own_group`: the child leads a
// process group of its own (pgid = its pid), so that it and every process it starts can be
// signalled together. Returns 0 or the error number.
int spawn_with_mask(pid_t& pid, const char* file, bool search_path, const posix_spawn_file_actions_t* actions,
                    char* const argv[], char* const envp[], const sigset_t& mask, bool own_group = false);

// A waitpid status as a shell shows it: the exit status, or 128 + the signal that killed it.
int exit_status_of(int wait_status);

// Starts this binary (/proc/self/exe) with `args` (args[0] is its argv[0]) and `extra_env`, its
// stdout discarded; returns its pid. `keep_environment`: the child measures as this process would
// have (--isolate), NVTX_INJECTION64_PATH included; otherwise that variable is dropped.
pid_t spawn_self(const std::vector<std::string>& args, const std::vector<std::string>& extra_env = {},
                 bool keep_environment = false);

// Exit status of a child started by spawn_self (128 + signal when killed); with `block` false,
// -1 while it still runs.
int wait_child(pid_t pid, bool block = true);

}  // namespace gp::cli
