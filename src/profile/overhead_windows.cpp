// The statistics of --overhead-windows (graphprof/profile/overhead_windows.hpp).
#include "graphprof/profile/overhead_windows.hpp"

#include <algorithm>
#include <cmath>

#include "graphprof/core/stats.hpp"

namespace gp {

std::optional<double> PauseWindow::per_launch_ns() const {
  if (launches < kMinWindowLaunches || span_ns == 0) return std::nullopt;
  return static_cast<double>(span_ns) / static_cast<double>(launches);
}

double WindowRatio::log_ratio() const { return std::log(recording_ns / paused_ns); }

std::vector<WindowRatio> window_ratios(const std::vector<PauseWindow>& w) {
  std::vector<WindowRatio> out;
  for (std::size_t k = 1; k + 1 < w.size(); ++k) {
    const PauseWindow &before = w[k - 1], &rec = w[k], &after = w[k + 1];
    if (!rec.recording || before.recording || after.recording) continue;
    // Neighbours in time: a window missing between them (an unreadable line) breaks the triple.
    if (before.to_ns != rec.from_ns || rec.to_ns != after.from_ns) continue;
    const auto r = rec.per_launch_ns(), p0 = before.per_launch_ns(), p1 = after.per_launch_ns();
    if (!r || !p0 || !p1) continue;
    out.push_back(WindowRatio{*r, std::sqrt(*p0 * *p1)});
  }
  return out;
}

std::optional<WindowsChange> windows_change(const std::vector<WindowRatio>& ratios, double level) {
  if (ratios.size() < kMinWindowRatios) return std::nullopt;
  std::vector<double> logs, rec, paused;
  for (const WindowRatio& r : ratios) {
    logs.push_back(r.log_ratio());
    rec.push_back(r.recording_ns);
    paused.push_back(r.paused_ns);
  }
  std::sort(logs.begin(), logs.end());
  const RankInterval ranks = median_ci_ranks(logs.size(), level);
  WindowsChange c;
  c.windows = logs.size();
  c.level = ranks.coverage > 0 ? ranks.coverage : level;
  c.change = std::expm1(median(logs));
  c.low = std::expm1(logs[ranks.lo - 1]);
  c.high = std::expm1(logs[ranks.hi - 1]);
  c.recording_median_ns = median(rec);
  c.paused_median_ns = median(paused);
  return c;
}

}  // namespace gp
