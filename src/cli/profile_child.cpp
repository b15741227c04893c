// How graphprof profile runs the application (run_child, profile_overhead.hpp): in a process group of
// its own holding the terminal, SIGINT/SIGTERM forwarded to the group, stopped at --time-limit, and
// nothing of its group left running once it has ended.
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <optional>

#include "profile_overhead.hpp"
#include "profile_session.hpp"
#include "self_spawn.hpp"
#include "graphprof/core/atomic_file.hpp"
#include "graphprof/core/error.hpp"
#include "graphprof/core/text_format.hpp"

namespace gp::cli {

namespace {

namespace fs = std::filesystem;

// How long the processes of the application's group have to end by themselves once it has ended,
// before they are stopped (a worker that is just exiting, a resource tracker).
constexpr double kSettleSeconds = 1;

// The child's pid while it runs, for the signal handler: also its process group's id.
volatile sig_atomic_t g_child = 0;

// SIGINT/SIGTERM sent to graphprof go on to the application's whole process group (its workers,
// a launcher's ranks, a shell wrapper's program). A Ctrl-C at the terminal reaches the group by
// itself when it holds the terminal (TerminalForChild), and graphprof then does not see it.
void forward_signal(int sig, siginfo_t*, void*) {
  if (g_child > 0) kill(-static_cast<pid_t>(g_child), sig);
}

struct SignalForwarding {
  struct sigaction old_int {}, old_term {};
  SignalForwarding() {
    struct sigaction sa {};
    sa.sa_sigaction = forward_signal;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
  }
  ~SignalForwarding() {
    sigaction(SIGINT, &old_int, nullptr);
    sigaction(SIGTERM, &old_term, nullptr);
    g_child = 0;
  }
};


std::string signal_name(int sig) {
  switch (sig) {
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    case SIGKILL: return "SIGKILL";
    case SIGSEGV: return "SIGSEGV";
    case SIGALRM: return "SIGALRM";
    case SIGABRT: return "SIGABRT";
    case SIGBUS: return "SIGBUS";
    default: return "signal " + std::to_string(sig);
  }
}

// The terminal, while the application runs, belongs to its process group (when graphprof holds it
// in the foreground): the application reads it and Ctrl-C / Ctrl-Z reach all of its processes.
class TerminalForChild {
 public:
  explicit TerminalForChild(pid_t group) : group_(group) {
    if (::isatty(STDIN_FILENO) != 1 || ::tcgetpgrp(STDIN_FILENO) != ::getpgrp()) return;
    if (::tcsetpgrp(STDIN_FILENO, group) != 0) return;
    held_ = true;
    ::kill(-group, SIGCONT);  // one that read the terminal before it was its own was stopped (SIGTTIN)
  }
  ~TerminalForChild() { take_back(); }
  TerminalForChild(const TerminalForChild&) = delete;
  TerminalForChild& operator=(const TerminalForChild&) = delete;
  bool held() const { return held_; }
  // graphprof's own group again; SIGTTOU held, since graphprof is then a background group.
  void take_back() {
    if (!held_) return;
    sigset_t ttou, old;
    sigemptyset(&ttou);
    sigaddset(&ttou, SIGTTOU);
    pthread_sigmask(SIG_BLOCK, &ttou, &old);
    ::tcsetpgrp(STDIN_FILENO, ::getpgrp());
    pthread_sigmask(SIG_SETMASK, &old, nullptr);
    held_ = false;
  }
  // The application was stopped at the terminal (Ctrl-Z): graphprof stops too, so that the shell
  // regains the terminal; once continued (fg), the application gets the terminal and goes on.
  void stopped() {
    take_back();
    ::kill(::getpid(), SIGSTOP);
    if (::isatty(STDIN_FILENO) == 1 && ::tcgetpgrp(STDIN_FILENO) == ::getpgrp() && ::tcsetpgrp(STDIN_FILENO, group_) == 0)
      held_ = true;
    ::kill(-group_, SIGCONT);
  }

 private:
  pid_t group_;
  bool held_ = false;
};

// The live processes of process group `group` (zombies left out), as "1234 (python3)".
std::vector<std::string> group_members(pid_t group) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator("/proc", ec)) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::string stat;
    try {
      stat = read_file(entry.path().string() + "/stat");
    } catch (const Error&) {
      continue;  // ended meanwhile
    }
    // "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses, so from the last ')'.
    const auto close = stat.rfind(')');
    const auto open = stat.find('(');
    if (close == std::string::npos || open == std::string::npos || open > close) continue;
    char state = 0;
    long ppid = 0, pgrp = 0;
    if (std::sscanf(stat.c_str() + close + 1, " %c %ld %ld", &state, &ppid, &pgrp) != 3) continue;
    if (pgrp != group || state == 'Z' || state == 'X') continue;
    out.push_back(name + " (" + stat.substr(open + 1, close - open - 1) + ")");
  }
  std::sort(out.begin(), out.end());
  return out;
}

bool wait_for_empty_group(pid_t group, double seconds) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                                            std::chrono::duration<double>(seconds));
  for (;;) {
    if (group_members(group).empty()) return true;
    if (std::chrono::steady_clock::now() >= until) return false;
    ::usleep(20000);
  }
}

// The application has ended: what is left of its group (workers, a wrapper's program, a daemon it
// started) gets kSettleSeconds to end by itself, then SIGTERM, then SIGKILL kStopGraceSeconds later.
// Nothing of the profiled program outlives the profile, holding the GPU or writing records after it.
void stop_group(pid_t group, ChildResult& r) {
  if (wait_for_empty_group(group, kSettleSeconds)) return;
  r.stopped_processes = group_members(group);
  if (r.stopped_processes.empty()) return;
  ::kill(-group, SIGTERM);
  r.stopped_processes_with = "SIGTERM";
  if (wait_for_empty_group(group, kStopGraceSeconds)) return;
  ::kill(-group, SIGKILL);
  r.stopped_processes_with = "SIGKILL";
  wait_for_empty_group(group, 2);
}

// Waits for `pid`, the leader of its process group; at `deadline` (when set) sends the group SIGTERM,
// and SIGKILL kStopGraceSeconds later.
int wait_until(pid_t pid, const std::optional<Deadline>& deadline, const char*& stopped_with, TerminalForChild& terminal) {
  int status = 0;
  Deadline kill_at{};
  for (;;) {
    const pid_t r = waitpid(pid, &status, (deadline ? WNOHANG : 0) | WUNTRACED);
    if (r == pid && WIFSTOPPED(status)) {
      if (terminal.held()) terminal.stopped();
      continue;
    }
    if (r == pid) return status;
    if (r < 0 && errno != EINTR) throw internal_error(std::string("waitpid failed: ") + std::strerror(errno));
    if (!deadline) continue;
    const auto now = std::chrono::steady_clock::now();
    if (stopped_with == nullptr && now >= *deadline) {
      kill(-pid, SIGTERM);
      stopped_with = "SIGTERM";
      kill_at = now + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                          std::chrono::duration<double>(kStopGraceSeconds));
    } else if (stopped_with != nullptr && std::strcmp(stopped_with, "SIGTERM") == 0 && now >= kill_at) {
      kill(-pid, SIGKILL);
      stopped_with = "SIGKILL";
    }
    ::usleep(10000);
  }
}

}  // namespace

// Runs `command` with `env` (stdin/stdout/stderr inherited: the application's output passes through).
ChildResult run_child(const std::vector<std::string>& command, const std::vector<std::string>& env,
                      const std::optional<Deadline>& deadline) {
  std::vector<char*> argv, envp;
  for (const auto& a : command) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  for (const auto& e : env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  // SIGINT/SIGTERM are held from before the forwarding handler is installed until the child's pid
  // is known: one that arrived before g_child was set would otherwise be dropped by the handler
  // (seen on a loaded machine: the application ran to its end), graphprof and the application both
  // going on. The child starts with the caller's mask.
  SignalsHeld held;
  const SignalForwarding forwarding;
  const auto t0 = std::chrono::steady_clock::now();
  pid_t pid = 0;
  const int rc = spawn_with_mask(pid, argv[0], true, nullptr, argv.data(), envp.data(), held.caller_mask(), /*own_group=*/true);
  if (rc == 0) g_child = pid;
  std::optional<TerminalForChild> terminal;
  if (rc == 0) terminal.emplace(pid);
  held.release();  // a held signal is delivered (forwarded) here
  if (rc != 0) throw usage_error("cannot start '" + command.front() + "': " + std::strerror(rc));
  ChildResult r;
  const int status = wait_until(pid, deadline, r.stopped_with, *terminal);
  // The application's wall time ends with it (--overhead compares these), not with what is left
  // of its group.
  r.wall_ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count();
  terminal->take_back();
  stop_group(pid, r);
  r.status = exit_status_of(status);
  r.description = WIFSIGNALED(status) ? "was killed by " + signal_name(WTERMSIG(status))
                                      : "exited with status " + std::to_string(r.status);
  return r;
}

}  // namespace gp::cli
