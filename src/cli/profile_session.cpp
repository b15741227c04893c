// The profile session of `graphprof profile` (profile_session.hpp): plan -> environment -> run ->
// collect -> report. The plan checks the options, the folders and the outputs before anything runs
// (a typo must not cost a profile); the environment is the application's, with the injection and,
// where the process calls the CUDA runtime or driver, the interposer preloaded; each run's records
// are read and analysed as soon as it ends; the report and the outputs come last, the console
// summary first of them.
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <optional>
#include <sstream>

#include "option_checks.hpp"
#include "profile_overhead.hpp"
#include "profile_session.hpp"
#include "graphprof/core/atomic_file.hpp"
#include "graphprof/cuda/device.hpp"
#include "graphprof/core/error.hpp"
#include "graphprof/core/text_format.hpp"
#include "graphprof/core/version.hpp"
#include "graphprof/profile/profile.hpp"
#include "graphprof/profile/source_lines.hpp"
#include "graphprof/report/chrome_trace.hpp"
#include "graphprof/report/html_report.hpp"
#include "graphprof/report/profile_text.hpp"
#include "graphprof/report/reporter.hpp"

namespace gp::cli {

namespace {

namespace fs = std::filesystem;


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
// The options against each other and their forms: exit 2 before anything is looked up.
void check_options(const ProfileOptions& o) {
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
    if (o.trace != TraceLevel::kNone || o.observe == ObserveRequest::kCupti)
      throw usage_error(std::string("--overhead-windows measures the interposed default (--trace none); for --trace ") + to_string(o.trace) +
                        (o.observe == ObserveRequest::kCupti ? " or --observe cupti" : "") + " use --overhead N (pairs of processes)");
  } else if (o.window_ms != 50) {
    throw usage_error("--window-ms: only with --overhead-windows");
  }
  if (o.observe == ObserveRequest::kInterpose && o.trace != TraceLevel::kNone)
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
}

class ProfileSession {
 public:
  // The plan: the options checked, the libraries found, the folders and outputs known good, the
  // output folder locked and its records folder emptied. Nothing has run yet.
  explicit ProfileSession(const ProfileOptions& options);
  // The runs (or --from's records read again), each run's records collected as it ends.
  void run();
  // The report and the outputs, the console summary first; the exit code.
  int report();

 private:
  void check_outputs();
  void clear_records(const fs::path& dir);
  void ask_framework_logs();
  std::vector<std::string> injected_env(const fs::path& dir, InjectLevel level) const;
  void collect(const fs::path& dir, const ChildResult& child);
  void read_again();
  void run_repeats();
  void add_closing_notes();
  Report make_report() const;

  const ProfileOptions& o;
  const bool from_records;
  fs::path lib;
  bool have_interposer = false;
  fs::path out, data;
  std::string json_path;
  bool gpu_checked = false;
  std::optional<OutputFolderLock> lock;
  ProfileRun run_;
  FrameworkLogs torch_logs;
  std::vector<ProfileRepetition> repetitions;
  std::vector<ProcessRecords> records;  // of the last run, for --trace-out
  SourceLineResolver source_lines;      // file:line of native call sites, after each run, here (not in the program)
  const char* stopped_with = nullptr;
  std::string cut;  // --time-limit stopped the profiled run
};

ProfileSession::ProfileSession(const ProfileOptions& options) : o(options), from_records(!options.from.empty()) {
  check_options(o);
  const char* custom = std::getenv("GRAPHPROF_INJECT_LIB");
  lib = custom && *custom ? fs::path(custom) : fs::path(self_dir()) / "libgraphprof_inject.so";
  if (!from_records && !fs::is_regular_file(lib))
    throw environment_error("the injection library " + lib.string() +
                            " is missing; it is built and installed next to the graphprof binary (or set GRAPHPROF_INJECT_LIB)");
  have_interposer = fs::is_regular_file(lib.parent_path() / "libgraphprof_interpose.so");
  if (o.observe == ObserveRequest::kInterpose && !have_interposer)
    throw environment_error("--observe interpose: the interposer " + (lib.parent_path() / "libgraphprof_interpose.so").string() +
                            " is missing; it is built and installed next to the injection library");
  const std::pair<fs::path, fs::path> folders =
      from_records ? from_folders(o.from) : std::pair<fs::path, fs::path>{fs::absolute(o.out), fs::absolute(o.out) / "profile-data"};
  out = folders.first;
  data = folders.second;
  json_path = o.json.empty() ? (out / "report.json").string() : o.json;
  check_outputs();
  // One profile at a time writes into a folder: a second one would mix its processes' records
  // with the first's, and both reports would be wrong.
  lock.emplace(from_records ? o.from : o.out, out);
  if (!from_records) clear_records(data);  // --from reads what is there

  if (!from_records) {
    run_.program = program_name(o.command);
    run_.command = o.command;
  }
  run_.trace_level = o.trace;
  if (const char* existing = std::getenv("CUDA_INJECTION64_PATH"); existing && *existing) {
    run_.notes.push_back(std::string("CUDA_INJECTION64_PATH was set to ") + existing +
                         "; CUDA loads one injection library per process, so graphprof replaced it for the application");
    std::cerr << "graphprof profile: " << run_.notes.back() << "\n";
  }
  if (const char* existing = std::getenv("NVTX_INJECTION64_PATH"); existing && *existing && o.step_range_given) {
    run_.notes.push_back(std::string("NVTX_INJECTION64_PATH was set to ") + existing +
                         "; NVTX loads one injection library per process, so graphprof replaced it for --step-range");
    std::cerr << "graphprof profile: " << run_.notes.back() << "\n";
  }
  ask_framework_logs();
}

// The outputs: each in a folder that exists, none on another or on an input, none in the records
// folder; then the GPU. A typo in an output must not cost the profile.
void ProfileSession::check_outputs() {
  std::error_code ec;
  if (!o.trace_out.empty() && !fs::is_directory(fs::absolute(o.trace_out).parent_path()))
    throw usage_error("--trace-out " + o.trace_out + ": its folder does not exist");
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
  gpu_checked = !from_records && !(no_check && std::strcmp(no_check, "1") == 0);
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
}

// A folder for records, without the stale files of an earlier profile (they would be read as
// processes of this one).
void ProfileSession::clear_records(const fs::path& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw usage_error("--out " + o.out + ": cannot create folder " + dir.string() + ": " + ec.message());
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    // The framework's log too: PyTorch appends to it, so an earlier profile's reasons would stay.
    if ((name.rfind("proc-", 0) == 0 && entry.path().extension() == ".jsonl") || entry.path().extension() == ".dot" ||
        name == kTorchLogFile)
      fs::remove(entry.path(), ec);
  }
}

// PyTorch's reasons for running without CUDA graphs (docs/profile.md, "The framework's own
// reason"): asked for in the profiled runs of a plain profile only (--overhead compares runs that
// must differ by graphprof alone), where the program's environment does not set them itself.
void ProfileSession::ask_framework_logs() {
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
}

// The application's environment with the injection: records into `dir`, at `level`.
std::vector<std::string> ProfileSession::injected_env(const fs::path& dir, InjectLevel level) const {
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
  if (torch_logs.asked && level != InjectLevel::kClock) {
    env.push_back(std::string("TORCH_LOGS=") + kTorchLogs);
    env.push_back("TORCH_LOGS_OUT=" + fs::absolute(dir / kTorchLogFile).string());
  }
  env.push_back("GRAPHPROF_PROFILE_DIR=" + dir.string());
  env.push_back(std::string("GRAPHPROF_PROFILE_LEVEL=") + to_string(level));
  env.push_back(std::string("GRAPHPROF_PROFILE_DOT=") + (o.dot ? "1" : "0"));
  env.push_back("GRAPHPROF_PROFILE_SAMPLE=" + o.node_sample);
  // --overhead's plain runs (level clock) take no call sites.
  const std::string sites = level == InjectLevel::kClock ? "off" : o.call_sites;
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
  const bool interpose =
      o.observe != ObserveRequest::kCupti && have_interposer && (level == InjectLevel::kClock || level == InjectLevel::kNone);
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
}

// What one run left in `dir`: its processes' records, analysed, in the order they started CUDA.
void ProfileSession::collect(const fs::path& dir, const ChildResult& child) {
  std::error_code ec;
  if (!child.stopped_processes.empty()) {
    const std::size_t n = child.stopped_processes.size();
    std::vector<std::string> shown(child.stopped_processes.begin(), child.stopped_processes.begin() + std::min<std::size_t>(n, 10));
    run_.notes.push_back(plural(n, "process", "processes") + " of the application " +
                         (n == 1 ? "was" : "were") + " still running after it ended and " + (n == 1 ? "was" : "were") +
                         " stopped (" + (std::strcmp(child.stopped_processes_with, "SIGKILL") == 0
                                             ? "SIGTERM, then SIGKILL after " + strf("%g", kStopGraceSeconds) + " s"
                                             : std::string("SIGTERM")) +
                         "): " + join(shown, ", ") + (n > shown.size() ? ", and " + std::to_string(n - shown.size()) + " more" : ""));
    std::cerr << "graphprof profile: " << run_.notes.back() << "\n";
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
}

// --from: the runs an earlier profile left, read again; how the application ended is not in its records.
void ProfileSession::read_again() {
  for (const fs::path& dir : from_runs(data)) {
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
  for (std::string w; words >> w;) run_.command.push_back(w);
  if (run_.command.empty()) run_.command.push_back(out.filename().string());
  run_.program = program_name(run_.command);
  if (!records.empty()) run_.trace_level = records.front().trace_level;
  run_.notes.push_back("read again from the records in " + data.string() + " (--from): the application's exit status is not "
                       "in them, and its wall time is its longest process's, from CUDA initialisation to its last flush");
}

// --repeat N (1 by default): each run writes its records and dumps into a folder of its own
// (run-<k>/), so no run's files are read as another's processes. --time-limit is for all runs together.
void ProfileSession::run_repeats() {
  std::optional<Deadline> deadline;
  if (o.time_limit > 0) deadline = deadline_after(o.time_limit);
  for (int k = 1; k <= o.repeat; ++k) {
    const fs::path dir = o.repeat > 1 ? data / ("run-" + std::to_string(k)) : data;
    if (o.repeat > 1) clear_records(dir);
    std::cerr << "graphprof profile: " << (o.repeat > 1 ? "run " + std::to_string(k) + " of " + std::to_string(o.repeat) + ": " : "")
              << "running " << run_.program << " with " << lib.filename().string() << " (records in " << dir.string() << ")\n";
    const ChildResult child = run_child(o.command, injected_env(dir, inject_level(o.trace)), deadline);
    collect(dir, child);
    if (child.stopped_with != nullptr) {
      stopped_with = child.stopped_with;
      break;
    }
    // An interrupted or killed run ends the set: the user or a CI timeout wants it to stop.
    if (child.status >= 128) break;
  }
}

void ProfileSession::run() {
  if (from_records) {
    read_again();
  } else if (o.overhead_windows > 0) {
    const WindowedEnv windowed = [&](const fs::path& dir, bool windows) {
      std::vector<std::string> env = injected_env(dir, inject_level(o.trace));
      if (windows) {
        env.push_back("GRAPHPROF_PAUSE_WINDOWS=" + std::to_string(o.window_ms) + "," + std::to_string(kWindowsStartMs));
        // A developer's log of the switch times on CLOCK_MONOTONIC (tools/pause-stats.py), windowed runs only.
        if (const char* log = std::getenv("GRAPHPROF_DEV_PAUSE_LOG")) env.push_back(std::string("GRAPHPROF_DEV_PAUSE_LOG=") + log);
      }
      return env;
    };
    collect(data, run_windows_series(o.overhead_windows, o.window_ms, o.command, windowed, data, run_));
  } else if (o.overhead > 0) {
    const InjectedEnv env = [&](const fs::path& dir, InjectLevel level) { return injected_env(dir, level); };
    collect(data, run_overhead_series(o.overhead, o.command, environment_without({"CUDA_INJECTION64_PATH"}), env, data,
                                      o.trace, o.step_range_given ? o.step_range : std::string(), run_));
  } else {
    run_repeats();
  }
  add_closing_notes();
}

// What the report must say about how the runs went: a --time-limit stop, the framework's logs.
void ProfileSession::add_closing_notes() {
  if (stopped_with != nullptr) {
    cut = "--time-limit " + strf("%g", o.time_limit) + " s reached: the application was stopped (" +
          (std::strcmp(stopped_with, "SIGKILL") == 0 ? "SIGTERM, then SIGKILL after " + strf("%g", kStopGraceSeconds) + " s"
                                                     : std::string("SIGTERM")) +
          "); the report holds what it recorded until then";
    run_.notes.push_back(cut);
  }
  if (torch_logs.asked || !torch_logs.not_asked.empty() || !torch_logs.file.empty()) {
    // Said where PyTorch wrote something (a program without PyTorch ignores the variables).
    if (torch_logs.asked && !torch_logs.file.empty())
      run_.notes.push_back(std::string("TORCH_LOGS=") + kTorchLogs + " and TORCH_LOGS_OUT were set in the application's "
                           "environment (PyTorch's reasons for running without CUDA graphs, read from " + kTorchLogFile +
                           "; PyTorch also prints those lines to the program's stderr); --no-framework-logs leaves them unset");
    else if (!torch_logs.not_asked.empty())
      run_.notes.push_back("TORCH_LOGS was not set by graphprof: " + torch_logs.not_asked);
    run_.framework_logs = torch_logs;
  }
  const ProfileRepetition& first = repetitions.front();
  run_.exit_status = first.exit_status;
  run_.exit_description = first.exit_description;
  run_.wall_ns = first.wall_ns;
}

Report ProfileSession::make_report() const {
  Report report = o.repeat > 1 || repetitions.size() > 1 ? repeated_profile_report(run_, repetitions)
                                                          : profile_report(run_, repetitions.front().processes);
  report.tool_version = kToolVersion;
  report.git_revision = kGitRevision;
  report.created_utc = utc_timestamp_now();
  if (from_records) {
    report.command_line = {"graphprof", "profile", "--from=" + o.from, "--"};
    report.command_line.insert(report.command_line.end(), run_.command.begin(), run_.command.end());
  } else {
    report.command_line = {"graphprof", "profile", std::string("--trace=") + to_string(o.trace)};
    if (o.observe != ObserveRequest::kAuto) report.command_line.push_back(std::string("--observe=") + to_string(o.observe));
    if (o.repeat > 1) report.command_line.push_back("--repeat=" + std::to_string(o.repeat));
    report.command_line.push_back("--");
    report.command_line.insert(report.command_line.end(), o.command.begin(), o.command.end());
  }
  report.environment.host = collect_host_info();
  if (gpu_checked) report.environment.gpu = query_gpu(0);
  return report;
}

int ProfileSession::report() {
  const Report built = make_report();
  // With an output on stdout ('-'), the summary goes to stderr and keeps stdout for a pipe (the
  // application's own stdout still passes through). The summary comes first: a report that cannot
  // be written (a full disk, a broken pipe) does not take the analysis with it.
  std::ostream& console =
      writes_to_stdout(json_path) || writes_to_stdout(o.trace_out) || writes_to_stdout(o.html) ? std::cerr : std::cout;
  console << format_profile_summary(built, o.verbose, json_path) << std::flush;
  try {
    write_report(built, json_path);
  } catch (const Error&) {
    std::cerr << "graphprof profile: the records are kept in " << data.string() << "; `graphprof profile --from "
              << out.string() << " --json FILE` writes the report from them\n";
    throw;
  }
  console << "\nreport written to " << json_path << " (DOT dumps in " << data.string() << ")\n";
  if (!o.html.empty()) {
    HtmlReportOptions html;
    html.source = json_path;
    write_report_file(HtmlReporter(html), built, o.html);
    console << "HTML page written to " << o.html << "\n";
  }
  if (!o.verbose)
    console << wrap_clauses("more: the same command with --verbose (launch latency, slowest nodes, eager kernels, copies, "
                            "syncs); graphprof report " + json_path + (o.html.empty() ? " -o profile.html" : ""),
                            kSentenceWidth);
  if (!o.trace_out.empty()) {
    ChromeTraceBuilder chrome;
    for (const auto& r : records) chrome.add(run_.program + " pid " + std::to_string(r.pid), r.trace, nullptr);
    chrome.write(o.trace_out);
    console << "trace written to " << o.trace_out << " (open it in ui.perfetto.dev)\n";
  }
  if (!cut.empty()) throw environment_error(cut);
  // The report is written whatever the application did; its exit status is in the report.
  return 0;
}

}  // namespace

void run_profile(const ProfileOptions& o, int& exit_code) {
  ProfileSession session(o);
  session.run();
  exit_code = session.report();
}

}  // namespace gp::cli
