// graphprof profile -- CMD [ARGS...]: runs an unmodified CUDA application with graphprof's CUPTI
// injection library (CUDA_INJECTION64_PATH), waits for it, and turns what each of its processes
// recorded into one report (docs/profile.md).
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <optional>
#include <sstream>

#include "option_checks.hpp"
#include "profile_overhead.hpp"
#include "self_spawn.hpp"
#include "commands.hpp"
#include "help_format.hpp"
#include "graphprof/core/atomic_file.hpp"
#include "graphprof/cuda/device.hpp"
#include "graphprof/core/error.hpp"
#include "graphprof/core/node_sampling.hpp"
#include "graphprof/core/text_format.hpp"
#include "graphprof/core/version.hpp"
#include "graphprof/profile/profile.hpp"
#include "graphprof/core/site_sampling.hpp"
#include "graphprof/profile/source_lines.hpp"
#include "graphprof/report/chrome_trace.hpp"
#include "graphprof/report/html_report.hpp"
#include "graphprof/report/profile_text.hpp"
#include "graphprof/report/reporter.hpp"

namespace gp::cli {

namespace {

namespace fs = std::filesystem;

struct ProfileOptions {
  std::string out = "graphprof-profile";
  std::string json;
  std::string trace_out;
  std::string trace = "none";  // the light default: graphs, calls, call sites and ledgers (no GPU records)
  std::string node_sample = NodeSampling{}.text();
  int overhead = 0;  // --overhead [N]: N plain and N profiled runs
  int overhead_windows = 0;  // --overhead-windows [N]: N runs whose recording pauses in alternate windows
  unsigned window_ms = 50;   // --window-ms: their length
  bool dot = true;
  bool framework_logs = true;  // --no-framework-logs: do not ask PyTorch for its CUDA-graph logs
  std::string call_sites = "on";  // --call-sites
  std::string site_sample = SiteSampling{}.text();  // --site-sample: which eager calls' stacks are taken
  std::string observe = "auto";  // --observe: auto, cupti, or interpose (--trace none: the preloaded interposer, no CUPTI)
  int repeat = 1;
  std::string html;
  double time_limit = 0;  // --time-limit SECONDS; 0: none
  bool verbose = false;
  bool step_range_given = false;
  std::string step_range;  // --step-range NAME: a step is one NVTX range NAME; empty: one launch of the most-launched graph
  std::string from;        // --from DIR: re-read an earlier profile's records, run nothing
  std::vector<std::string> command;
};

// How long an application stopped by --time-limit has between SIGTERM and SIGKILL: the injection
// library's own flush on SIGTERM gives up after 3 s.
constexpr double kStopGraceSeconds = 5;

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

namespace {

// The application's name in the report: the program, or the script/module a Python runs.
std::string program_name(const std::vector<std::string>& cmd) {
  const std::string prog = fs::path(cmd.front()).filename().string();
  if (prog.rfind("python", 0) == 0)
    for (std::size_t i = 1; i < cmd.size(); ++i) {
      if (cmd[i] == "-m" && i + 1 < cmd.size()) return cmd[i + 1];
      if (cmd[i] == "-c") return prog + " -c";
      if (!cmd[i].empty() && cmd[i][0] != '-') return fs::path(cmd[i]).filename().string();
    }
  return prog;
}

std::string self_dir() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string(".") : exe.parent_path().string();
}

// An exclusive flock(2) on FOLDER/.graphprof.lock for as long as the profile runs. The lock file
// stays (removing it would let a third profile lock a new file while the second holds the old);
// the lock goes with the descriptor, also when graphprof is killed. Not inherited by the
// application (O_CLOEXEC).
class OutputFolderLock {
 public:
  OutputFolderLock(const std::string& option_value, const fs::path& folder) {
    std::error_code ec;
    fs::create_directories(folder, ec);
    if (ec) throw usage_error("--out " + option_value + ": cannot create folder " + folder.string() + ": " + ec.message());
    const std::string path = (folder / ".graphprof.lock").string();
    fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd_ < 0) throw usage_error("--out " + option_value + ": cannot open the lock file " + path + ": " + std::strerror(errno));
    if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
      const int e = errno;
      ::close(fd_);
      if (e == EWOULDBLOCK)
        throw usage_error("--out " + option_value + ": another profile is writing here (" + path +
                          " is locked); give this one another --out");
      throw usage_error("--out " + option_value + ": cannot lock " + path + ": " + std::strerror(e));
    }
  }
  ~OutputFolderLock() { ::close(fd_); }
  OutputFolderLock(const OutputFolderLock&) = delete;
  OutputFolderLock& operator=(const OutputFolderLock&) = delete;

 private:
  int fd_ = -1;
};

std::vector<std::string> environment_without(const std::vector<std::string>& names) {
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string s = *e;
    bool drop = false;
    for (const auto& n : names) drop = drop || s.rfind(n + "=", 0) == 0;
    if (!drop) env.push_back(s);
  }
  return env;
}

// --from DIR: the folder whose report.json it writes (the earlier --out) and its records folder.
// DIR is that --out folder, or its profile-data folder, or any folder of proc-*.jsonl records.
std::pair<fs::path, fs::path> from_folders(const std::string& from) {
  std::error_code ec;
  const fs::path dir = fs::absolute(from).lexically_normal();
  if (!fs::is_directory(dir, ec))
    throw input_error("--from " + from + ": " + (fs::exists(dir, ec) ? "not a folder" : "no such folder"));
  if (fs::is_directory(dir / "profile-data", ec)) return {dir, dir / "profile-data"};
  const fs::path base = dir.filename().empty() ? dir.parent_path() : dir;
  if (base.filename() == "profile-data") return {base.parent_path(), base};
  return {base, base};
}

// The folders of --from's runs: run-1, run-2, ... of a --repeat profile, else the records folder.
std::vector<fs::path> from_runs(const fs::path& data) {
  std::vector<fs::path> runs;
  for (int k = 1;; ++k) {
    std::error_code ec;
    const fs::path dir = data / ("run-" + std::to_string(k));
    if (!fs::is_directory(dir, ec)) break;
    runs.push_back(dir);
  }
  if (runs.empty()) runs.push_back(data);
  return runs;
}

void run_profile(const ProfileOptions& o, int& exit_code) {
  const bool from_records = !o.from.empty();
  if (from_records) {
    if (!o.command.empty())
      throw usage_error("--from re-reads the records of an earlier profile and runs nothing; give no command (" +
                        o.command.front() + ")");
    if (o.repeat > 1 || o.overhead > 0 || o.overhead_windows > 0 || o.time_limit > 0)
      throw usage_error("--from runs nothing: --repeat, --overhead, --overhead-windows and --time-limit need a command");
  } else if (o.command.empty()) {
    throw usage_error("profile: no command given (graphprof profile [options] -- CMD [ARGS...], or --from DIR)");
  }
  if (o.repeat > 1 && o.overhead > 0)
    throw usage_error("--repeat and --overhead: give one of them (--overhead runs the application plain and profiled in pairs)");
  if (o.time_limit > 0 && o.overhead > 0)
    throw usage_error("--time-limit and --overhead cannot be combined (a run stopped at the limit is no overhead sample)");
  if (o.overhead_windows > 0) {
    if (o.overhead > 0) throw usage_error("--overhead and --overhead-windows: give one of them (pairs of processes, or windows inside each)");
    if (o.repeat > 1) throw usage_error("--repeat and --overhead-windows: give one of them");
    if (o.time_limit > 0)
      throw usage_error("--time-limit and --overhead-windows cannot be combined (a run stopped at the limit is no overhead sample)");
    if (o.trace != "none" || o.observe == "cupti")
      throw usage_error("--overhead-windows measures the interposed default (--trace none); for --trace " + o.trace +
                        (o.observe == "cupti" ? " or --observe cupti" : "") + " use --overhead N (pairs of processes)");
  } else if (o.window_ms != 50) {
    throw usage_error("--window-ms: only with --overhead-windows");
  }
  if (o.observe == "interpose" && o.trace != "none")
    throw usage_error("--observe interpose: only with --trace none (the other levels need CUPTI's GPU records)");
  if (SiteSampling rule; !SiteSampling::parse(o.site_sample, rule))
    throw usage_error("--site-sample " + o.site_sample +
                      ": expected 'all' or K,M (on each thread the first K eager calls' stacks, then 1 in M at random; M >= 1)");
  if (NodeSampling rule; !NodeSampling::parse(o.node_sample, rule))
    throw usage_error("--node-sample " + o.node_sample +
                      ": expected 'all' or W,K,M[,A/B][,kernels=on|kernels=P%] (warm-up launches, first traced, then 1 in M; "
                      "window A ms of every B ms; kernel activity on throughout, or switched, on at most P % of the time)");
  if (o.step_range_given) {
    if (o.step_range.empty()) throw usage_error("--step-range: expected the message of an NVTX range, got an empty name");
    for (const unsigned char c : o.step_range)
      if (c < 0x20 || c == 0x7f) throw usage_error("--step-range: the name has a control character (an NVTX message is one line)");
  }
  const char* custom = std::getenv("GRAPHPROF_INJECT_LIB");
  const fs::path lib = custom && *custom ? fs::path(custom) : fs::path(self_dir()) / "libgraphprof_inject.so";
  if (!from_records && !fs::is_regular_file(lib))
    throw environment_error("the injection library " + lib.string() +
                            " is missing; it is built and installed next to the graphprof binary (or set GRAPHPROF_INJECT_LIB)");
  const bool have_interposer = fs::is_regular_file(lib.parent_path() / "libgraphprof_interpose.so");
  if (o.observe == "interpose" && !have_interposer)
    throw environment_error("--observe interpose: the interposer " + (lib.parent_path() / "libgraphprof_interpose.so").string() +
                            " is missing; it is built and installed next to the injection library");

  std::error_code ec;
  const std::pair<fs::path, fs::path> folders =
      from_records ? from_folders(o.from) : std::pair<fs::path, fs::path>{fs::absolute(o.out), fs::absolute(o.out) / "profile-data"};
  const fs::path out = folders.first;
  const fs::path data = folders.second;
  const std::string json_path = o.json.empty() ? (out / "report.json").string() : o.json;
  if (!o.trace_out.empty() && !fs::is_directory(fs::absolute(o.trace_out).parent_path()))
    throw usage_error("--trace-out " + o.trace_out + ": its folder does not exist");
  // Before the application runs: a typo in an output must not cost the profile.
  one_output_on_stdout({{"--json", o.json}, {"--trace-out", o.trace_out}, {"--html", o.html}});
  if (!o.json.empty()) check_output_path("--json", o.json);
  if (!o.html.empty()) check_output_path("--html", o.html);
  if (!o.trace_out.empty()) check_output_path("--trace-out", o.trace_out);
  const NamedPaths outputs{{o.json.empty() ? "--out" : "--json", json_path}, {"--html", o.html}, {"--trace-out", o.trace_out}};
  NamedPaths inputs;
  if (!from_records) {
    // The program, when named by a path, is an input; a name without '/' is looked up in PATH.
    if (o.command.front().find('/') != std::string::npos) inputs.emplace_back("the program", o.command.front());
  } else {
    for (const fs::path& dir : from_runs(data))
      for (const auto& entry : fs::directory_iterator(dir, ec))
        if (entry.path().extension() == ".jsonl") inputs.emplace_back("the record file", entry.path().string());
  }
  outputs_apart(inputs, outputs);
  // Same check and message as `run`: exit 4 without a usable GPU or driver, once the command line
  // and its outputs are known good (a wrong option is exit 2 on any machine). The CLI tests skip it
  // (GRAPHPROF_PROFILE_NO_GPU_CHECK=1) to check process handling with programs that never use CUDA.
  const char* no_check = std::getenv("GRAPHPROF_PROFILE_NO_GPU_CHECK");
  const bool gpu_checked = !from_records && !(no_check && std::strcmp(no_check, "1") == 0);
  if (gpu_checked) require_gpu(0);
  // The records folder is emptied before and filled during the run: no output may live there
  // (--from only reads it).
  const fs::path records_root = from_records ? fs::path() : fs::weakly_canonical(data, ec);
  for (const auto& [option, path] : outputs) {
    if (path.empty() || writes_to_stdout(path) || records_root.empty()) continue;
    const fs::path where = fs::weakly_canonical(fs::absolute(output_target(path)), ec).parent_path();
    if (std::mismatch(records_root.begin(), records_root.end(), where.begin(), where.end()).first == records_root.end())
      throw usage_error(option + " " + path + ": inside the records folder " + data.string() +
                        ", which profile empties and fills; write it elsewhere");
  }
  // One profile at a time writes into a folder: a second one would mix its processes' records
  // with the first's, and both reports would be wrong.
  const OutputFolderLock lock(from_records ? o.from : o.out, out);
  // A folder for records, without the stale files of an earlier profile (they would be read as
  // processes of this one).
  auto records_folder = [&](const fs::path& dir) {
    fs::create_directories(dir, ec);
    if (ec) throw usage_error("--out " + o.out + ": cannot create folder " + dir.string() + ": " + ec.message());
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
      const std::string name = entry.path().filename().string();
      // The framework's log too: PyTorch appends to it, so an earlier profile's reasons would stay.
      if ((name.rfind("proc-", 0) == 0 && entry.path().extension() == ".jsonl") || entry.path().extension() == ".dot" ||
          name == kTorchLogFile)
        fs::remove(entry.path(), ec);
    }
  };
  if (!from_records) records_folder(data);  // --from reads what is there

  ProfileRun run;
  if (!from_records) {
    run.program = program_name(o.command);
    run.command = o.command;
  }
  run.trace_level = o.trace;
  if (const char* existing = std::getenv("CUDA_INJECTION64_PATH"); existing && *existing) {
    run.notes.push_back(std::string("CUDA_INJECTION64_PATH was set to ") + existing +
                        "; CUDA loads one injection library per process, so graphprof replaced it for the application");
    std::cerr << "graphprof profile: " << run.notes.back() << "\n";
  }
  if (const char* existing = std::getenv("NVTX_INJECTION64_PATH"); existing && *existing && o.step_range_given) {
    run.notes.push_back(std::string("NVTX_INJECTION64_PATH was set to ") + existing +
                        "; NVTX loads one injection library per process, so graphprof replaced it for --step-range");
    std::cerr << "graphprof profile: " << run.notes.back() << "\n";
  }

  // PyTorch's reasons for running without CUDA graphs (docs/profile.md, "The framework's own
  // reason"): asked for in the profiled runs of a plain profile only (--overhead compares runs that
  // must differ by graphprof alone), where the program's environment does not set them itself.
  FrameworkLogs torch_logs;
  const bool plain_profile = !from_records && o.overhead == 0 && o.overhead_windows == 0;
  if (plain_profile && !o.framework_logs) {
    torch_logs.not_asked = "--no-framework-logs";
  } else if (plain_profile) {
    for (const char* name : {"TORCH_LOGS", "TORCH_LOGS_OUT"})
      if (const char* set = std::getenv(name); set != nullptr && torch_logs.not_asked.empty())
        torch_logs.not_asked = std::string("the program's environment sets ") + name;
    torch_logs.asked = torch_logs.not_asked.empty();
    if (torch_logs.asked) torch_logs.torch_logs = kTorchLogs;
  }
  // The application's environment with the injection: records into `dir`, at `level`.
  auto injected_env = [&](const fs::path& dir, const std::string& level) {
    std::vector<std::string> env = environment_without({"CUDA_INJECTION64_PATH", "GRAPHPROF_PROFILE_DIR", "GRAPHPROF_PROFILE_LEVEL",
                                                        "GRAPHPROF_PROFILE_DOT", "GRAPHPROF_PROFILE_SAMPLE",
                                                        "GRAPHPROF_PROFILE_SITES", "GRAPHPROF_PROFILE_STEP_RANGE",
                                                        "GRAPHPROF_PROFILE_OBSERVE", "GRAPHPROF_PAUSE_WINDOWS",
                                                        "GRAPHPROF_DEV_PAUSE", "GRAPHPROF_DEV_PAUSE_LOG"});
    env.push_back("CUDA_INJECTION64_PATH=" + fs::absolute(lib).string());
    // --step-range: the library is NVTX's injection too (src/inject/common/nvtx_steps.hpp), the same file
    // as CUDA's, so both load one copy. Also in --overhead's plain runs (level clock): their window
    // is the ranges' too.
    if (o.step_range_given) {
      env.erase(std::remove_if(env.begin(), env.end(), [](const std::string& v) { return v.rfind("NVTX_INJECTION64_PATH=", 0) == 0; }),
                env.end());
      env.push_back("NVTX_INJECTION64_PATH=" + fs::absolute(lib).string());
      env.push_back("GRAPHPROF_PROFILE_STEP_RANGE=" + o.step_range);
    }
    if (torch_logs.asked && level != "clock") {
      env.push_back(std::string("TORCH_LOGS=") + kTorchLogs);
      env.push_back("TORCH_LOGS_OUT=" + fs::absolute(dir / kTorchLogFile).string());
    }
    env.push_back("GRAPHPROF_PROFILE_DIR=" + dir.string());
    env.push_back("GRAPHPROF_PROFILE_LEVEL=" + level);
    env.push_back(std::string("GRAPHPROF_PROFILE_DOT=") + (o.dot ? "1" : "0"));
    env.push_back("GRAPHPROF_PROFILE_SAMPLE=" + o.node_sample);
    // --overhead's plain runs (level clock) take no call sites.
    const std::string sites = level == "clock" ? "off" : o.call_sites;
    env.push_back("GRAPHPROF_PROFILE_SITES=" + (sites == "on"    ? std::string("1")
                                                : sites == "off" ? std::string("0")
                                                                 : sites));
    env.push_back("GRAPHPROF_PROFILE_SITE_SAMPLE=" + o.site_sample);
    // The watch library sees the application's own cuptiSubscribe calls that CUPTI refuses
    // (src/inject/cupti_watch/cupti_watch.cpp); it goes first in LD_PRELOAD, before the application's own.
    // Where the process is interposed the interposer follows it (src/inject/interpose/runtime_interpose.cpp):
    // the injection library uses it instead of CUPTI where the process calls the shared runtime.
    const fs::path watch = lib.parent_path() / "libgraphprof_cupti_watch.so";
    std::vector<fs::path> preloads;
    if (fs::is_regular_file(watch)) preloads.push_back(watch);
    // Interposed where it can be (docs/profile.md, "--trace none without CUPTI"): at --trace none
    // (the default) and in --overhead's plain runs, unless --observe cupti; the injection library
    // still keeps CUPTI in a process whose runtime the interposer cannot see.
    const bool interpose = o.observe != "cupti" && have_interposer && (level == "clock" || level == "none");
    if (interpose) {
      env.push_back("GRAPHPROF_PROFILE_OBSERVE=interpose");
      preloads.push_back(lib.parent_path() / "libgraphprof_interpose.so");
    }
    if (!preloads.empty()) {
      std::string preload = "LD_PRELOAD=";
      for (const fs::path& p : preloads) preload += (&p == &preloads.front() ? "" : " ") + fs::absolute(p).string();
      for (auto it = env.begin(); it != env.end(); ++it)
        if (it->rfind("LD_PRELOAD=", 0) == 0) {
          preload += " " + it->substr(11);
          env.erase(it);
          break;
        }
      env.push_back(preload);
    }
    return env;
  };
  // What one run left in `dir`: its processes' records, analysed, in the order they started CUDA.
  std::vector<ProfileRepetition> repetitions;
  std::vector<ProcessRecords> records;  // of the last run, for --trace-out
  SourceLineResolver source_lines;      // file:line of native call sites, after each run, here (not in the program)
  auto collect = [&](const fs::path& dir, const ChildResult& child) {
    if (!child.stopped_processes.empty()) {
      const std::size_t n = child.stopped_processes.size();
      std::vector<std::string> shown(child.stopped_processes.begin(), child.stopped_processes.begin() + std::min<std::size_t>(n, 10));
      run.notes.push_back(plural(n, "process", "processes") + " of the application " +
                          (n == 1 ? "was" : "were") + " still running after it ended and " + (n == 1 ? "was" : "were") +
                          " stopped (" + (std::strcmp(child.stopped_processes_with, "SIGKILL") == 0
                                              ? "SIGTERM, then SIGKILL after " + strf("%g", kStopGraceSeconds) + " s"
                                              : std::string("SIGTERM")) +
                          "): " + join(shown, ", ") + (n > shown.size() ? ", and " + std::to_string(n - shown.size()) + " more" : ""));
      std::cerr << "graphprof profile: " << run.notes.back() << "\n";
    }
    ProfileRepetition rep;
    rep.exit_status = child.status;
    rep.exit_description = child.description;
    rep.wall_ns = child.wall_ns;
    records.clear();
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
      const std::string name = entry.path().filename().string();
      if (name.rfind("proc-", 0) != 0 || entry.path().extension() != ".jsonl") continue;
      try {
        records.push_back(read_process_records(entry.path().string()));
      } catch (const Error& e) {
        // One unreadable file (a dangling link, no permission, not a regular file) loses that
        // process only: it is listed with the error, the others are reported as usual.
        std::cerr << "graphprof profile: " << e.what() << "\n";
        ProcessRecords lost;
        lost.source = entry.path().string();
        lost.pid = std::atoi(name.c_str() + 5);
        lost.errors.push_back(std::string("its record file could not be read: ") + e.what());
        records.push_back(std::move(lost));
      }
    }
    std::sort(records.begin(), records.end(), [](const ProcessRecords& a, const ProcessRecords& b) {
      return a.begin_ns != b.begin_ns ? a.begin_ns < b.begin_ns : a.pid < b.pid;
    });
    // The framework's log (written where graphprof asked for it, or left by an earlier profile: --from).
    const FrameworkLog flog = read_torch_log((dir / kTorchLogFile).string());
    if (flog.records > 0) {
      torch_logs.file = (dir / kTorchLogFile).string();
      torch_logs.lines += flog.records;
      torch_logs.reasons += flog.entries.size();
    }
    for (auto& r : records) {
      for (const FrameworkLogEntry& e : flog.entries)
        if (e.pid == r.pid || e.pid == 0) r.framework_log.push_back(e);
      source_lines.resolve(r.sites);
      rep.processes.push_back(analyze_process(r));
    }
    repetitions.push_back(std::move(rep));
  };
  // --time-limit is for all runs of --repeat together.
  std::optional<Deadline> deadline;
  if (o.time_limit > 0)
    deadline = deadline_after(o.time_limit);
  const char* stopped_with = nullptr;
  if (from_records) {
    // The runs an earlier profile left, read again; how the application ended is not in its records.
    const std::vector<fs::path> runs = from_runs(data);
    for (const fs::path& dir : runs) {
      ChildResult earlier;
      earlier.description = "ran before (its records read again with --from " + o.from + ")";
      collect(dir, earlier);
      double wall = 0;  // not watched: the longest process, CUDA initialisation to its last flush
      for (const auto& p : repetitions.back().processes) wall = std::max(wall, p.cuda_wall_ns);
      repetitions.back().wall_ns = wall;
    }
    if (records.empty() && repetitions.front().processes.empty())
      throw input_error("--from " + o.from + ": " + data.string() + " holds no records of a profile (proc-*.jsonl)");
    const std::string& cmdline = records.empty() ? std::string() : records.front().command_line;
    std::istringstream words(cmdline);
    for (std::string w; words >> w;) run.command.push_back(w);
    if (run.command.empty()) run.command.push_back(out.filename().string());
    run.program = program_name(run.command);
    if (!records.empty()) run.trace_level = records.front().trace_level == 0 ? "none" : records.front().trace_level == 1 ? "graph" : "node";
    run.notes.push_back("read again from the records in " + data.string() + " (--from): the application's exit status is not "
                        "in them, and its wall time is its longest process's, from CUDA initialisation to its last flush");
  } else if (o.overhead_windows > 0) {
    const WindowedEnv windowed = [&](const fs::path& dir, bool windows) {
      std::vector<std::string> env = injected_env(dir, o.trace);
      if (windows) {
        env.push_back("GRAPHPROF_PAUSE_WINDOWS=" + std::to_string(o.window_ms) + "," + std::to_string(kWindowsStartMs));
        // A developer's log of the switch times on CLOCK_MONOTONIC (tools/pause-stats.py), windowed runs only.
        if (const char* log = std::getenv("GRAPHPROF_DEV_PAUSE_LOG")) env.push_back(std::string("GRAPHPROF_DEV_PAUSE_LOG=") + log);
      }
      return env;
    };
    collect(data, run_windows_series(o.overhead_windows, o.window_ms, o.command, windowed, data, run));
  } else if (o.overhead > 0) {
    collect(data, run_overhead_series(o.overhead, o.command, environment_without({"CUDA_INJECTION64_PATH"}), injected_env, data,
                                      o.trace, o.step_range_given ? o.step_range : std::string(), run));
  } else {
    // --repeat N: each run writes its records and dumps into a folder of its own (run-<k>/), so no
    // run's files are read as another's processes.
    for (int k = 1; k <= o.repeat; ++k) {
      const fs::path dir = o.repeat > 1 ? data / ("run-" + std::to_string(k)) : data;
      if (o.repeat > 1) records_folder(dir);
      std::cerr << "graphprof profile: " << (o.repeat > 1 ? "run " + std::to_string(k) + " of " + std::to_string(o.repeat) + ": " : "")
                << "running " << run.program << " with " << lib.filename().string() << " (records in " << dir.string() << ")\n";
      const ChildResult child = run_child(o.command, injected_env(dir, o.trace), deadline);
      collect(dir, child);
      if (child.stopped_with != nullptr) {
        stopped_with = child.stopped_with;
        break;
      }
      // An interrupted or killed run ends the set: the user or a CI timeout wants it to stop.
      if (child.status >= 128) break;
    }
  }
  std::string cut;  // --time-limit stopped the profiled run
  if (stopped_with != nullptr) {
    cut = "--time-limit " + strf("%g", o.time_limit) + " s reached: the application was stopped (" +
          (std::strcmp(stopped_with, "SIGKILL") == 0 ? "SIGTERM, then SIGKILL after " + strf("%g", kStopGraceSeconds) + " s"
                                                     : std::string("SIGTERM")) +
          "); the report holds what it recorded until then";
    run.notes.push_back(cut);
  }
  if (torch_logs.asked || !torch_logs.not_asked.empty() || !torch_logs.file.empty()) {
    // Said where PyTorch wrote something (a program without PyTorch ignores the variables).
    if (torch_logs.asked && !torch_logs.file.empty())
      run.notes.push_back(std::string("TORCH_LOGS=") + kTorchLogs + " and TORCH_LOGS_OUT were set in the application's "
                          "environment (PyTorch's reasons for running without CUDA graphs, read from " + kTorchLogFile +
                          "; PyTorch also prints those lines to the program's stderr); --no-framework-logs leaves them unset");
    else if (!torch_logs.not_asked.empty())
      run.notes.push_back("TORCH_LOGS was not set by graphprof: " + torch_logs.not_asked);
    run.framework_logs = torch_logs;
  }
  const ProfileRepetition& first = repetitions.front();
  run.exit_status = first.exit_status;
  run.exit_description = first.exit_description;
  run.wall_ns = first.wall_ns;

  Report report = o.repeat > 1 || repetitions.size() > 1 ? repeated_profile_report(run, repetitions) : profile_report(run, first.processes);
  report.tool_version = kToolVersion;
  report.git_revision = kGitRevision;
  report.created_utc = utc_timestamp_now();
  if (from_records) {
    report.command_line = {"graphprof", "profile", "--from=" + o.from, "--"};
    report.command_line.insert(report.command_line.end(), run.command.begin(), run.command.end());
  } else {
    report.command_line = {"graphprof", "profile", "--trace=" + o.trace};
    if (o.observe != "auto") report.command_line.push_back("--observe=" + o.observe);
    if (o.repeat > 1) report.command_line.push_back("--repeat=" + std::to_string(o.repeat));
    report.command_line.push_back("--");
    report.command_line.insert(report.command_line.end(), o.command.begin(), o.command.end());
  }
  report.environment.host = collect_host_info();
  if (gpu_checked) report.environment.gpu = query_gpu(0);

  // With an output on stdout ('-'), the summary goes to stderr and keeps stdout for a pipe (the
  // application's own stdout still passes through). The summary comes first: a report that cannot
  // be written (a full disk, a broken pipe) does not take the analysis with it.
  std::ostream& console =
      writes_to_stdout(json_path) || writes_to_stdout(o.trace_out) || writes_to_stdout(o.html) ? std::cerr : std::cout;
  console << format_profile_summary(report, o.verbose, json_path) << std::flush;
  try {
    write_report(report, json_path);
  } catch (const Error&) {
    std::cerr << "graphprof profile: the records are kept in " << data.string() << "; `graphprof profile --from "
              << out.string() << " --json FILE` writes the report from them\n";
    throw;
  }
  console << "\nreport written to " << json_path << " (DOT dumps in " << data.string() << ")\n";
  if (!o.html.empty()) {
    HtmlReportOptions html;
    html.source = json_path;
    write_report_file(HtmlReporter(html), report, o.html);
    console << "HTML page written to " << o.html << "\n";
  }
  if (!o.verbose)
    console << wrap_clauses("more: the same command with --verbose (launch latency, slowest nodes, eager kernels, copies, "
                          "syncs); graphprof report " + json_path + (o.html.empty() ? " -o profile.html" : ""),
                          kSentenceWidth);
  if (!o.trace_out.empty()) {
    ChromeTraceBuilder chrome;
    for (const auto& r : records) chrome.add(run.program + " pid " + std::to_string(r.pid), r.trace, nullptr);
    chrome.write(o.trace_out);
    console << "trace written to " << o.trace_out << " (open it in ui.perfetto.dev)\n";
  }
  if (!cut.empty()) throw environment_error(cut);
  // The report is written whatever the application did; its exit status is in the report.
  exit_code = 0;
}

}  // namespace

void setup_profile(CLI::App& app, int& exit_code) {
  auto* sub = app.add_subcommand(
      "profile", "Profile the CUDA graphs of any application, unmodified (needs a GPU): graphprof profile [options] -- CMD [ARGS...]");
  auto o = std::make_shared<ProfileOptions>();
  sub->add_option("--out", o->out, "folder for report.json and the per-process records and DOT dumps")->capture_default_str();
  sub->add_option("--json", o->json, "write the JSON report here instead of OUT/report.json");
  sub->add_option("--trace-out", o->trace_out, "write a Chrome trace-event file of everything recorded (ui.perfetto.dev)");
  sub->add_option("--trace", o->trace,
                  "what to record: none = graphs, API calls, call sites and memory/start-up ledgers, no GPU records "
                  "(the default: without CUPTI where the process calls the shared libcudart.so, see --observe); graph = + "
                  "one GPU span per graph launch; node = + every kernel, copy and memset of a sample of launches "
                  "(CUPTI costs every graph launch about 0.2 us per node for the whole run)")
      ->check(CLI::IsMember({"none", "graph", "node"}))
      ->capture_default_str();
  sub->add_option("--overhead", o->overhead,
                  "run the application N times plain and N times profiled (default 5), alternating, after a warm-up; "
                  "report the change of its steady-state window, time per step and wall time with 95 % intervals")
      ->expected(0, 1)
      ->default_str("5")
      ->check(CLI::Range(1, 1000));
  sub->add_option("--overhead-windows", o->overhead_windows,
                  "run the application N times (default 3) with recording paused and resumed every --window-ms inside "
                  "each run, then once recorded throughout for the profile; report the change of its time per graph "
                  "launch in recording windows against the paused ones beside them, with a 95 % interval (free of the "
                  "noise between processes; the default --trace none only)")
      ->expected(0, 1)
      ->default_str("3")
      ->check(CLI::Range(1, 1000));
  sub->add_option("--window-ms", o->window_ms,
                  "with --overhead-windows: the length of each window in ms (several steps of the application's loop; "
                  "shorter than the host's slow spells)")
      ->check(CLI::Range(5, 60000))
      ->capture_default_str();
  sub->add_option("--node-sample", o->node_sample,
                  "at --trace node, which launches of each graph are traced node by node: W,K,M[,A/B] = after W warm-up "
                  "launches the next K, then 1 in M, plus everything in a window of A ms every B ms (eager kernels too); "
                  "',kernels=P%' switches CUPTI's kernel activity off between samples (on at most P % of the time; "
                  "',kernels=on' keeps it on); 'all' traces every launch and kernel")
      ->capture_default_str();
  sub->add_flag("--verbose,-v", o->verbose,
                "also print when work starts after each launch call, the eager launch calls, up to 40 graphs, the "
                "slowest nodes, and the eager kernels, copies and synchronising calls by name (always in the report)");
  sub->add_flag("!--no-dot", o->dot, "do not dump the graphs with cuGraphDebugDotPrint");
  sub->add_flag("!--no-framework-logs", o->framework_logs,
                "do not set TORCH_LOGS and TORCH_LOGS_OUT in the application's environment (by default set, where the "
                "program's environment sets neither, so that PyTorch logs why it ran without CUDA graphs into the records folder)");
  sub->add_option("--call-sites", o->call_sites,
                  "where the application made each launch, copy, memset, sync, capture, instantiation and allocation: on = "
                  "native and Python frames (a Python thread that released the GIL has it taken briefly for the read); held "
                  "= Python frames only where the thread holds the GIL; native = no Python frames; off = no call sites")
      ->check(CLI::IsMember({"on", "held", "native", "off"}))
      ->capture_default_str();
  sub->add_option("--site-sample", o->site_sample,
                  "which eager launches, copies, memsets and syncs have their call site taken: K,M = on each thread the "
                  "first K, then 1 in M at random (more rarely on a thread where a stack would cost more than 0.25 % of "
                  "its time), each standing for the calls it was drawn for (per-site counts are then estimates); 'all' = every "
                  "call. Captures, instantiations and allocations: always")
      ->capture_default_str();
  sub->add_option("--step-range", o->step_range,
                  "a step is one occurrence of the NVTX range NAME (push/pop or start/end, any thread, any domain) for "
                  "every per-step figure (default: one launch of the most-launched graph)")
      ->each([o](const std::string&) { o->step_range_given = true; })
      ->option_text("NAME");
  sub->add_option("--observe", o->observe,
                  "how a process is observed at --trace none and in --overhead's plain runs: auto = interposed (LD_PRELOAD: "
                  "the CUDA runtime and driver calls, no CUPTI at all) in each process that calls the shared libcudart.so, "
                  "CUPTI in the others (the report says which, per process); interpose = the same, asked for (only with "
                  "--trace none); cupti = CUPTI always")
      ->check(CLI::IsMember({"auto", "cupti", "interpose"}))
      ->capture_default_str();
  sub->add_option("--repeat", o->repeat,
                  "run the application N times (each run's records in profile-data/run-<k>/); one report keeps every run, "
                  "so `compare` has independent runs to judge")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  sub->add_option("--html", o->html, "also write the profile page (self-contained HTML) here");
  sub->add_option("--time-limit", o->time_limit,
                  "seconds for the application: then it is stopped (SIGTERM, SIGKILL 5 s later), the report of what "
                  "it recorded is written and graphprof exits 4 (not with --overhead)")
      ->check(finite_number())
      ->check(CLI::Range(0.1, 1e7));
  sub->add_option("--from", o->from,
                  "run nothing: analyse the records an earlier profile left in DIR (its --out folder) again and write "
                  "its report (after a report that could not be written, with a newer graphprof, on another machine)");
  sub->add_option("command", o->command, "the application and its arguments, after --");
  // Everything from the first positional on is the command: without it, an option that takes an
  // optional value (--overhead [N]) made CLI11 refuse the command's own options after '--'.
  sub->positionals_at_end();
  help_footer(
      sub,
      "The application's output passes through; graphprof's lines start with 'graphprof' or follow 'profile:'.\n"
      "Exit codes: 0 report written (whatever the application's status, which the report records),\n"
      "            2 usage (checked before the GPU): also an output in a folder that is not there, an output\n"
      "            that is an input or another output, --out another profile is writing into, or a command\n"
      "            that cannot start, 3 --from DIR missing or without records, 4 no GPU/driver, no injection\n"
      "            library, an output that fails while it is written (a full disk), or --time-limit reached\n"
      "            (the report is written first), 6 internal error.",
      {"graphprof profile -- python train.py", "graphprof profile --trace node --out prof -- ./my_app --steps 100",
       "graphprof profile --from prof --json again.json"});
  sub->callback([o, &exit_code] { run_profile(*o, exit_code); });
}

}  // namespace gp::cli
