// `graphprof profile --overhead N`: the application runs N times plain and N times profiled,
// alternating (plain first in even pairs, profiled first in odd ones, so drift cancels), after a
// warm-up run without the injection. Plain runs carry the injection's graph-launch callbacks alone
// (GRAPHPROF_PROFILE_LEVEL=clock; with --step-range also its NVTX range hooks), which time the
// steady-state window the same way as in the profiled runs. docs/profile.md ("Overhead") says what the figures mean.
#pragma once
#include <chrono>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "graphprof/core/batch_rule.hpp"
#include "graphprof/profile/profile.hpp"

namespace gp::cli {

struct ChildResult {
  int status = 0;  // exit status, or 128 + signal
  std::string description;
  double wall_ns = 0;
  const char* stopped_with = nullptr;  // "SIGTERM" or "SIGKILL" when --time-limit stopped it
  // Processes of the application's process group still running once it had ended (or been
  // stopped), which graphprof then stopped: "1234 (python3)"; and with what.
  std::vector<std::string> stopped_processes;
  const char* stopped_processes_with = nullptr;  // "SIGTERM" or "SIGKILL"
};

using gp::Deadline;  // graphprof/core/batch_rule.hpp

// Runs `command` with `env`, output passing through (cmd_profile.cpp), in a process group of its
// own; at `deadline` (profile --time-limit) the group is sent SIGTERM, and SIGKILL 5 s later.
// Processes of the group still running after the application ended are stopped the same way.
ChildResult run_child(const std::vector<std::string>& command, const std::vector<std::string>& env,
                      const std::optional<Deadline>& deadline = std::nullopt);

// What a child's injection library records (GRAPHPROF_PROFILE_LEVEL): the graph-launch clock alone
// (--overhead's plain runs: no call sites, no framework logs), or everything of a trace level.
enum class InjectLevel { kClock, kNone, kGraph, kNode };
inline InjectLevel inject_level(TraceLevel l) {
  switch (l) {
    case TraceLevel::kNone: return InjectLevel::kNone;
    case TraceLevel::kGraph: return InjectLevel::kGraph;
    case TraceLevel::kNode: return InjectLevel::kNode;
  }
  return InjectLevel::kNone;
}
// The variable's value: "clock", or the trace level's spelling.
inline const char* to_string(InjectLevel l) {
  switch (l) {
    case InjectLevel::kClock: return "clock";
    case InjectLevel::kNone: return "none";
    case InjectLevel::kGraph: return "graph";
    case InjectLevel::kNode: return "node";
  }
  return "none";
}

// The environment of an injected run writing its records into a folder, at a level.
using InjectedEnv = std::function<std::vector<std::string>(const std::filesystem::path& dir, InjectLevel level)>;

// Runs the series; the last profiled run writes its records into `data` (the profile), the others
// into a scratch folder under it, removed afterwards. Fills run.overhead_runs, overhead_changes,
// warmup_wall_ns, plain_runs_ns and plain_wall_ns; returns the last profiled run. `step_range`
// (--step-range NAME, "" without): the window compared is the NVTX ranges NAME when every run had
// them (choose_overhead_window), else the most-launched graph's and a note says why.
ChildResult run_overhead_series(int pairs, const std::vector<std::string>& command, const std::vector<std::string>& plain_env,
                                const InjectedEnv& injected_env, const std::filesystem::path& data, TraceLevel level,
                                const std::string& step_range, ProfileRun& run);

// --overhead-windows N: the environment of a run into `dir`, with recording paused in alternate
// windows (`windows`) or recorded throughout.
using WindowedEnv = std::function<std::vector<std::string>(const std::filesystem::path& dir, bool windows)>;
// The windows start this long after the first graph launch: the program's first steps (new call
// sites being named, caches filling) are left out.
constexpr unsigned kWindowsStartMs = 300;
// N windowed runs into a scratch folder under `data` (removed afterwards), each run's windows
// compared (graphprof/profile/overhead_windows.hpp), then one run recorded throughout into `data`,
// the profile; fills run.overhead_windows and returns that last run. An interrupted or killed run
// ends the series (the profile is then that run's records).
ChildResult run_windows_series(int runs, unsigned window_ms, const std::vector<std::string>& command, const WindowedEnv& env,
                               const std::filesystem::path& data, ProfileRun& run);

// The changes over the pairs of `runs` (the i-th plain run with the i-th profiled run).
std::vector<OverheadChange> overhead_changes(const std::vector<OverheadRun>& runs);

}  // namespace gp::cli
