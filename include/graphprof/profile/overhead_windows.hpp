// `graphprof profile --overhead-windows N`: what recording costs the application's own steps,
// measured inside each process. The interposer pauses and resumes recording every PERIOD ms (from
// a start after the first graph launch) and writes each whole window as a pw line: whether it
// recorded, its bounds, and the program's graph launch calls in it (src/inject/interpose/runtime_interpose.cpp).
// The program's time per graph launch in a recording window is held against the geometric mean of
// the paused windows on either side of it, so a slow spell of the host that spans a few windows
// moves both sides alike; the change is the median of those ratios over every window of every run,
// with the sign test's distribution-free interval. Host-only; CPU-tested (tests/unit).
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gp {

// One whole window of a process (a pw line).
struct PauseWindow {
  bool recording = false;
  std::uint64_t from_ns = 0, to_ns = 0;
  std::uint64_t launches = 0;  // graph launch calls whose start fell in the window
  std::uint64_t span_ns = 0;   // from the last launch before the window to its last one
  // The program's time per graph launch in the window; empty with fewer than kMinLaunches.
  std::optional<double> per_launch_ns() const;
};
constexpr std::uint64_t kMinWindowLaunches = 3;

// The windows of each process of one run (the pw lines of every proc-*.jsonl in `dir`, in the order
// written); processes without any are left out.
std::vector<std::vector<PauseWindow>> read_pause_windows(const std::string& dir);
// The processes of one run that CUPTI observed (their process line's "observed"): they have no
// windows, which only the interposer keeps.
std::size_t count_cupti_processes(const std::string& dir);

// One recording window against the paused windows beside it.
struct WindowRatio {
  double recording_ns = 0, paused_ns = 0;  // per launch; paused_ns: the neighbours' geometric mean
  double log_ratio() const;
};
// Each recording window with a paused window right before and right after it, all three timed.
std::vector<WindowRatio> window_ratios(const std::vector<PauseWindow>& windows);

// The median change of pooled ratios with its sign-test interval (at `level`); empty with fewer
// than kMinWindowRatios ratios.
struct WindowsChange {
  std::size_t windows = 0;
  double change = 0, low = 0, high = 0, level = 0.95;
  double recording_median_ns = 0, paused_median_ns = 0;
  bool inside_noise() const { return low <= 0 && 0 <= high; }
};
constexpr std::size_t kMinWindowRatios = 6;
std::optional<WindowsChange> windows_change(const std::vector<WindowRatio>& ratios, double level = 0.95);

}  // namespace gp
