// profile --overhead N: the alternating series and its paired changes (profile_overhead.hpp).
#include "profile_overhead.hpp"

#include <algorithm>
#include <iostream>

#include "graphprof/compare/paired_change.hpp"
#include "graphprof/core/stats.hpp"

namespace gp::cli {

namespace fs = std::filesystem;

namespace {

// From the first launch call of the most-launched exec to the return of the first call that waited
// for the GPU after its last launch: every launch's work, as the application's own loop timing
// (which ends with a synchronisation) sees it; a GPU-bound loop's launch calls return long before
// their work is done. Without such a call, to the last launch call (one step fewer). With
// --step-range NAME also the ranges' window: the first range's start to the last one's end.
void add_window(OverheadRun& r, const fs::path& dir, bool ranges) {
  const RunWindows windows = read_run_windows(dir.string(), ranges);
  if (const auto& rw = windows.range) {
    r.ranges = rw->ranges;
    r.range_window_ns = static_cast<double>(rw->last_ns - rw->first_ns);
  }
  const auto& w = windows.steady;
  if (!w || w->launches < 2) return;
  r.settled = w->settled_ns > 0;
  r.window_ns = static_cast<double>((r.settled ? w->settled_ns : w->last_ns) - w->first_ns);
  r.steps = r.settled ? w->launches : w->launches - 1;
  r.exec = w->exec;
  r.observed_by = w->observed_by;
}

}  // namespace

ChildResult run_overhead_series(int pairs, const std::vector<std::string>& command, const std::vector<std::string>& plain_env,
                                const InjectedEnv& injected_env, const fs::path& data, TraceLevel level,
                                const std::string& step_range, ProfileRun& run) {
  const int total = 2 * pairs + 1;
  int number = 1;
  std::cerr << "graphprof profile: run 1 of " << total << " (--overhead " << pairs << "): warm-up without the injection, not counted\n";
  const ChildResult warm = run_child(command, plain_env);
  run.warmup_wall_ns = warm.wall_ns;
  if (warm.status != 0) run.notes.push_back("the warm-up run without the injection " + warm.description);
  const fs::path scratch = data / "overhead-run";
  ChildResult last;
  bool stopped = false;
  for (int i = 0; i < pairs && !stopped; ++i) {
    const bool plain_first = i % 2 == 0;
    for (int k = 0; k < 2 && !stopped; ++k) {
      const bool profiled = (k == 0) != plain_first;
      const bool final = profiled && i == pairs - 1;
      const fs::path dir = final ? data : scratch;
      std::error_code ec;
      if (!final) {
        fs::remove_all(scratch, ec);
        fs::create_directories(scratch, ec);
      }
      std::cerr << "graphprof profile: run " << ++number << " of " << total << " (--overhead): "
                << (profiled ? "profiled" : "plain (graph launches counted and timed only)") << "\n";
      const ChildResult r = run_child(command, injected_env(dir, profiled ? inject_level(level) : InjectLevel::kClock));
      OverheadRun o;
      o.profiled = profiled;
      o.status = r.status;
      o.wall_ns = r.wall_ns;
      add_window(o, dir, !step_range.empty());
      run.overhead_runs.push_back(o);
      if (profiled) last = r;
      if (r.status != 0) run.notes.push_back(std::string(profiled ? "a profiled" : "a plain") + " run of --overhead: the application " + r.description);
      // Interrupted or killed: the user wants it to stop (the profile is that run's, if profiled).
      if (r.status >= 128) stopped = true;
    }
  }
  std::error_code ec;
  fs::remove_all(scratch, ec);
  for (const auto& o : run.overhead_runs)
    if (!o.profiled) run.plain_runs_ns.push_back(o.wall_ns);
  if (!run.plain_runs_ns.empty()) {
    double sum = 0;
    for (double w : run.plain_runs_ns) sum += w;
    run.plain_wall_ns = sum / static_cast<double>(run.plain_runs_ns.size());
  }
  if (const std::string note = choose_overhead_window(run.overhead_runs, step_range); !note.empty()) {
    run.notes.push_back(note);
    std::cerr << "graphprof profile: " << note << "\n";
  }
  run.overhead_changes = overhead_changes(run.overhead_runs);
  return last;
}

ChildResult run_windows_series(int runs, unsigned window_ms, const std::vector<std::string>& command, const WindowedEnv& env,
                               const fs::path& data, ProfileRun& run) {
  WindowsOverhead w;
  w.period_ms = window_ms;
  w.start_ms = kWindowsStartMs;
  std::vector<WindowRatio> all;
  const fs::path scratch = data / "windows-run";
  const int total = runs + 1;
  std::optional<ChildResult> stopped;
  for (int i = 1; i <= runs; ++i) {
    std::error_code ec;
    fs::remove_all(scratch, ec);
    fs::create_directories(scratch, ec);
    std::cerr << "graphprof profile: run " << i << " of " << total << " (--overhead-windows): recording paused and resumed every "
              << window_ms << " ms from " << kWindowsStartMs << " ms after the first graph launch\n";
    const ChildResult r = run_child(command, env(scratch, true));
    WindowsRun wr;
    wr.status = r.status;
    wr.wall_ns = r.wall_ns;
    std::vector<WindowRatio> own;
    for (const auto& process : read_pause_windows(scratch.string())) {
      ++wr.processes;
      wr.windows += process.size();
      const auto ratios = window_ratios(process);
      own.insert(own.end(), ratios.begin(), ratios.end());
    }
    wr.compared = own.size();
    wr.through_cupti = count_cupti_processes(scratch.string());
    if (const auto c = windows_change(own)) {
      wr.change = c->change;
      wr.recording_ns = c->recording_median_ns;
      wr.paused_ns = c->paused_median_ns;
    }
    all.insert(all.end(), own.begin(), own.end());
    w.runs.push_back(wr);
    if (r.status != 0) run.notes.push_back("a windowed run of --overhead-windows: the application " + r.description);
    if (r.status >= 128) {  // interrupted or killed: the user wants it to stop; no profile run
      stopped = r;
      break;
    }
  }
  std::error_code ec;
  fs::remove_all(scratch, ec);
  w.change = windows_change(all);
  run.overhead_windows = std::move(w);
  if (stopped) return *stopped;
  std::cerr << "graphprof profile: run " << total << " of " << total << " (--overhead-windows): recorded throughout, the profile\n";
  return run_child(command, env(data, false));
}

std::vector<OverheadChange> overhead_changes(const std::vector<OverheadRun>& runs) {
  std::vector<const OverheadRun*> plain, profiled;
  for (const auto& r : runs) (r.profiled ? profiled : plain).push_back(&r);
  std::vector<OverheadChange> out;
  auto add = [&](const char* metric, auto value) {
    std::vector<double> a, b;
    for (std::size_t i = 0; i < plain.size() && i < profiled.size(); ++i) {
      const auto x = value(*plain[i]), y = value(*profiled[i]);
      a.push_back(x.value_or(0.0));
      b.push_back(y.value_or(0.0));
    }
    const auto c = paired_change(a, b);
    if (!c) return;
    OverheadChange o;
    o.metric = metric;
    o.pairs = c->pairs;
    o.change = c->change;
    o.low = c->low;
    o.high = c->high;
    o.wider_than_effect = c->wider_than_effect;
    std::vector<double> pa, pb;
    for (std::size_t i = 0; i < a.size(); ++i)
      if (a[i] > 0 && b[i] > 0) {
        pa.push_back(a[i]);
        pb.push_back(b[i]);
      }
    o.plain_median_ns = median(pa);
    o.profiled_median_ns = median(pb);
    out.push_back(o);
  };
  add("steady_window", [](const OverheadRun& r) { return r.compared_window_ns(); });
  add("host_per_step", [](const OverheadRun& r) -> std::optional<double> {
    const auto w = r.compared_window_ns();
    if (!w || r.compared_steps() == 0) return std::nullopt;
    return *w / static_cast<double>(r.compared_steps());
  });
  add("wall_time", [](const OverheadRun& r) -> std::optional<double> { return r.wall_ns; });
  return out;
}

}  // namespace gp::cli
