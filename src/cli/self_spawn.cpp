// graphprof starting and waiting for copies of itself (--processes, --isolate, --ranks), and
// SIGINT/SIGTERM reaching those children. POSIX only, no CUDA: tests/unit/cli/self_spawn_test.cpp
// runs it on the CPU.
#include "self_spawn.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <mutex>

#include "graphprof/core/error.hpp"
#include "graphprof/core/signal_chain.hpp"

extern char** environ;

namespace gp::cli {
namespace {

// ---- SIGINT/SIGTERM reach the children --------------------------------------------------------
// A child left running when graphprof is killed (a CI job's timeout, `kill`) would go on holding
// the GPU, and a lone rank would wait for its peers forever. While children run, SIGINT/SIGTERM
// sent to graphprof go on to every live child, then end graphprof as they would have (the previous
// disposition, the default one: killed by that signal). A Ctrl-C at the terminal reaches the
// children by itself (same process group); sending it again does no harm.
// spawn_self holds the signals in its own thread only: in a process with other threads (the CUDA
// driver's, a plugin's) the kernel hands one to another thread, which must not end graphprof while
// a child is being started and not yet remembered. It leaves the signal pending instead, and
// spawn_self forwards it and ends graphprof once the child is remembered.
constexpr int kChildSlots = 4096;  // --ranks allows up to 4096 processes
std::atomic<pid_t> g_live_children[kChildSlots];
std::atomic<bool> g_spawning{false};
std::atomic<int> g_pending_signal{0};
ChainedSignals g_before_forwarding;  // what SIGINT/SIGTERM did before
static_assert(std::atomic<pid_t>::is_always_lock_free && std::atomic<bool>::is_always_lock_free &&
                  std::atomic<int>::is_always_lock_free,
              "the signal handler touches these atomics: they must be lock-free");

// Forwards `sig` to every live child, then ends graphprof as the previous disposition would.
void forward_and_end(int sig) {
  for (auto& slot : g_live_children) {
    const pid_t pid = slot.load();
    if (pid > 0) ::kill(pid, sig);
  }
  pass_signal_on(sig, g_before_forwarding);  // delivered when the handler returns (at once outside one)
}

extern "C" void graphprof_forward_to_children(int sig) {
  g_pending_signal.store(sig);
  if (g_spawning.load()) return;  // another thread is starting a child: it finishes the job
  forward_and_end(sig);
}

void forward_signals_to_children_once() {
  static std::once_flag once;
  std::call_once(once, [] { chain_signal_handler(graphprof_forward_to_children, g_before_forwarding); });
}

void remember_child(pid_t pid) {
  for (auto& slot : g_live_children) {
    pid_t free_slot = 0;
    if (slot.compare_exchange_strong(free_slot, pid)) return;
  }
}

void forget_child(pid_t pid) {
  for (auto& slot : g_live_children) {
    pid_t mine = pid;
    if (slot.compare_exchange_strong(mine, 0)) return;
  }
}

}  // namespace

SignalsHeld::SignalsHeld() {
  sigset_t held;
  sigemptyset(&held);
  sigaddset(&held, SIGINT);
  sigaddset(&held, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &held, &caller_mask_);
}

void SignalsHeld::release() {
  if (!held_) return;
  held_ = false;
  pthread_sigmask(SIG_SETMASK, &caller_mask_, nullptr);
}

int spawn_with_mask(pid_t& pid, const char* file, bool search_path, const posix_spawn_file_actions_t* actions,
                    char* const argv[], char* const envp[], const sigset_t& mask, bool own_group) {
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setsigmask(&attr, &mask);
  if (own_group) posix_spawnattr_setpgroup(&attr, 0);
  posix_spawnattr_setflags(&attr, static_cast<short>(POSIX_SPAWN_SETSIGMASK | (own_group ? POSIX_SPAWN_SETPGROUP : 0)));
  const int rc = search_path ? posix_spawnp(&pid, file, actions, &attr, argv, envp)
                             : posix_spawn(&pid, file, actions, &attr, argv, envp);
  posix_spawnattr_destroy(&attr);
  return rc;
}

int exit_status_of(int wait_status) {
  return WIFSIGNALED(wait_status) ? 128 + WTERMSIG(wait_status) : WEXITSTATUS(wait_status);
}

// Starts this binary with `args` and `extra_env`, its stdout discarded; returns its pid.
// `keep_environment`: the child measures as this process would have (--isolate), in the same
// environment, NVTX_INJECTION64_PATH included.
pid_t spawn_self(const std::vector<std::string>& args, const std::vector<std::string>& extra_env,
                 bool keep_environment) {
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  // Children without a trace pass measure without tracing: graphprof's own NVTX_INJECTION64_PATH
  // (set for the trace pass) would load CUPTI into them, which on the H200 slowed graph replays by
  // up to 50 %. An --isolate child measures as this process would have, in the same environment.
  std::vector<std::string> env_text;
  for (char** e = environ; *e != nullptr; ++e) {
    if (!keep_environment && std::strncmp(*e, "NVTX_INJECTION64_PATH=", 22) == 0) continue;
    const char* eq = std::strchr(*e, '=');
    const std::string name(*e, eq ? static_cast<std::size_t>(eq - *e) : std::strlen(*e));
    const bool overridden = std::any_of(extra_env.begin(), extra_env.end(),
                                        [&](const std::string& x) { return x.rfind(name + "=", 0) == 0; });
    if (!overridden) env_text.emplace_back(*e);
  }
  for (const auto& x : extra_env) env_text.push_back(x);
  std::vector<char*> envp;
  for (auto& e : env_text) envp.push_back(e.data());
  envp.push_back(nullptr);
  forward_signals_to_children_once();
  // SIGINT/SIGTERM held until the child is remembered (one in between would miss it).
  SignalsHeld held;
  g_spawning.store(true);
  pid_t pid = 0;
  const int rc = spawn_with_mask(pid, "/proc/self/exe", false, &actions, argv.data(), envp.data(), held.caller_mask());
  posix_spawn_file_actions_destroy(&actions);
  if (rc == 0) remember_child(pid);
  g_spawning.store(false);
  held.release();  // one held in this thread is handled here
  // One that another thread's handler left pending while the child was not yet remembered.
  if (const int sig = g_pending_signal.exchange(0); sig != 0) forward_and_end(sig);
  if (rc != 0) throw internal_error(std::string("cannot start another graphprof process: ") + std::strerror(rc));
  return pid;
}

// Exit status of a child (128 + signal when killed); `block` false returns -1 while it runs.
int wait_child(pid_t pid, bool block) {
  // Seen ended first, without reaping it (WNOWAIT): until waitpid below reaps it, its pid cannot be
  // reused, so the signal handler never sends to a pid that is no longer our child.
  siginfo_t ended{};
  for (;;) {
    ended.si_pid = 0;
    if (waitid(P_PID, static_cast<id_t>(pid), &ended, WEXITED | WNOWAIT | (block ? 0 : WNOHANG)) == 0) break;
    if (errno != EINTR) throw internal_error(std::string("waitid failed: ") + std::strerror(errno));
  }
  if (ended.si_pid == 0) return -1;  // still running (not `block`)
  forget_child(pid);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) throw internal_error(std::string("waitpid failed: ") + std::strerror(errno));
  return exit_status_of(status);
}

}  // namespace gp::cli
