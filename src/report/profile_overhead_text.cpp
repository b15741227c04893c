// Console text of --repeat, --overhead and --overhead-windows (profile_overhead_text.hpp), read from
// the report's sections.profile only.
#include "profile_overhead_text.hpp"

#include <cmath>

#include "graphprof/core/profile_fields.hpp"
#include "graphprof/core/text_format.hpp"
#include "graphprof/profile/observer.hpp"
#include "graphprof/profile/overhead_windows.hpp"
#include "profile_text_fields.hpp"

namespace gp {

namespace {

using profile_text::ns;

using profile_text::needed;
using profile_text::pct;

}  // namespace

// --repeat: one line per run (exit, wall, coverage, launches); the details below are the first run's.
void repeat_text(std::ostringstream& out, const ProfileSection& p) {
  namespace f = profile_fields;
  const std::vector<const ProfileAppRun*> runs = f::runs(p);
  if (runs.size() < 2) return;
  out << "  " << runs.size() << " runs (--repeat); the details below are run 1's\n";
  TextTable rows({"run", "exit", "wall", "coverage (time)", "graph launches", "eager launches", "graphs"});
  for (const ProfileAppRun* r : runs) {
    const f::RunTotals t = f::run_totals(*r);
    rows.add({strf("%.0f", r->run.value_or(0)), strf("%.0f", r->exit_status.value_or(0)), ns(r->wall_ns), pct(t.coverage()),
              strf("%.0f", t.graph_launches), strf("%.0f", t.eager_launches), strf("%.0f", t.graphs)});
  }
  out << rows.str();
}

// --overhead N: the change of what the application's loop experiences, with its interval.
void overhead_text(std::ostringstream& out, const ProfileSection& p) {
  const auto& changes = p.overhead_changes;
  if (changes.empty()) return;
  const auto& runs = p.overhead_runs;
  std::size_t steps = 0;
  unsigned exec = 0;
  bool synchronised = !runs.empty();  // every window ends at a synchronisation after the last launch
  bool plain_interposed = !runs.empty();  // every plain run was observed without CUPTI
  bool by_range = !runs.empty();      // --step-range NAME: the ranges' window (older reports: no "window")
  std::string range;
  for (const auto& r : runs) {
    const bool profiled = r.profiled.value_or(false);
    if (profiled && r.steps.is_number()) {
      steps = r.steps.count();
      exec = static_cast<unsigned>(r.exec.count());
    }
    synchronised = synchronised && r.window_end == "synchronised";
    if (!profiled) plain_interposed = plain_interposed && parse_observer(r.observed_by) == Observer::kInterpose;
    by_range = by_range && r.window == "nvtx range";
    if (range.empty()) range = r.range;
  }
  out << "  overhead (--overhead: " << changes[0].pairs << " plain and profiled runs, alternating, after a warm-up run";
  if (p.warmup_wall_ns.is_number()) out << " of " << ns(p.warmup_wall_ns);
  out << " not counted; 95 % intervals over the pairs):\n";
  TextTable rows({"figure", "plain", "profiled", "change", "95 % interval"});
  bool wide = false;
  for (const auto& c : changes) {
    const std::string& m = c.metric;
    const std::string window_of = by_range ? "NVTX range '" + range + "'" : "exec " + std::to_string(exec);
    const std::string name = m == "steady_window" ? "steady-state window (" + window_of + ", " + plural(steps, "step", "steps") + ")"
                             : m == "host_per_step" ? "time per step"
                                                    : "process wall time";
    const bool wider = c.wider_than_effect.value_or(false);
    rows.add({name, ns(c.plain_median_ns), ns(c.profiled_median_ns), strf("%+.1f %%", 100.0 * c.change),
              strf("%+.1f %% .. %+.1f %%", 100.0 * c.low, 100.0 * c.high) + (wider ? " (wider than the effect)" : "")});
    wide = wide || (m != "wall_time" && wider);
  }
  out << rows.str();
  // How the plain runs were timed: by interposition alone, or with graphprof's CUPTI callbacks.
  const char* range_plain = plain_interposed ? "plain runs are observed by interposition alone (no CUPTI) and\n"
                                               "   graphprof's NVTX range hooks, to time it; "
                                             : "plain runs carry graphprof's graph-launch and synchronisation callbacks and its NVTX\n"
                                               "   range hooks alone, to time it; ";
  const char* graph_plain = plain_interposed ? "plain runs are observed by interposition\n"
                                               "   alone (no CUPTI), to time it; "
                                             : "plain runs carry graphprof's graph-launch\n"
                                               "   and synchronisation callbacks alone, to time it; ";
  if (by_range)
    out << "  (window: from the start of the first NVTX range '" << range << "' to the end of the last, a step per range\n"
           "   (--step-range); "
        << range_plain << "medians of the runs, every run in the report)\n";
  else
    out << (synchronised ? "  (window: from the first launch call of the most-launched graph to the first synchronisation after its\n"
                           "   last launch, so the GPU's work is in it; "
                         : "  (window: first to last launch call of the most-launched graph; ")
        << graph_plain << "medians of the runs, every run in the report)\n";
  if (wide)
    out << "  the interval is wider than the effect: these runs cannot tell it from noise (more runs: --overhead N)\n";
}

// --overhead-windows N: the program's time per graph launch in recording windows against the
// paused windows beside them, inside each process.
void overhead_windows_text(std::ostringstream& out, const ProfileSection& p) {
  if (!p.overhead_windows) return;
  const ProfileOverheadWindows& w = *p.overhead_windows;
  const auto& runs = w.runs;
  const std::string how = "recording paused and resumed every " + strf("%.0f", w.period_ms.value()) + " ms from " +
                          strf("%.0f", w.start_ms.value()) + " ms after the first graph launch";
  if (!w.change.is_number()) {
    std::size_t compared = 0, through_cupti = 0;
    for (const auto& r : runs) {
      compared += r.compared.count();
      through_cupti += r.through_cupti.count() > 0 ? 1 : 0;
    }
    if (through_cupti > 0) {  // the windows are the interposer's: a process CUPTI observed has none
      out << "  overhead (--overhead-windows, " << plural(runs.size(), "run", "runs") << "): no verdict: "
          << plural(through_cupti, "run was", "runs were")
          << " observed through CUPTI (the process could not be interposed: see its 'observed by'), and only the interposer\n"
             "  pauses in windows: measure this program with --overhead N (pairs of processes) instead\n";
      return;
    }
    out << "  overhead (--overhead-windows, " << plural(runs.size(), "run", "runs") << ", " << how << "): no verdict: "
        << plural(compared, "recording window", "recording windows") << " between timed paused ones, fewer than "
        << kMinWindowRatios << " (a process that is not interposed or launches no graph, or runs too short: a longer run,"
        << " or --overhead N)\n";
    return;
  }
  const bool noise = needed(w.inside_noise);
  out << "  overhead on the application's own steps: " << strf("%+.1f %%", 100.0 * w.change) << " time per graph launch ["
      << strf("%+.1f", 100.0 * w.low) << ", " << strf("%+.1f", 100.0 * w.high) << " %] ("
      << (noise ? "inside the noise" : "outside the noise") << ")\n";
  out << "  (--overhead-windows: " << plural(static_cast<std::size_t>(needed(w.windows)), "recording window", "recording windows")
      << " of " << plural(runs.size(), "run", "runs") << " against the paused windows beside each; median, "
      << strf("%.0f", 100.0 * w.level) << " % sign-test interval;\n   " << how << ")\n";
  TextTable rows({"run", "exit", "windows", "recording", "paused", "change"});
  std::size_t k = 0;
  for (const auto& r : runs) {
    ++k;
    rows.add({std::to_string(k), std::to_string(static_cast<int>(r.status.value_or(0))),
              std::to_string(static_cast<std::size_t>(r.compared.count())),
              r.recording_ns_per_launch.is_number() ? ns(r.recording_ns_per_launch) : "-",
              r.paused_ns_per_launch.is_number() ? ns(r.paused_ns_per_launch) : "-",
              r.change.is_number() ? strf("%+.1f %%", 100.0 * r.change) : "-"});
  }
  out << rows.str();
  out << "  (a paused window still passes each call through the interposer, a flag and a counter: what this measures is"
         " recording,\n   call sites and ledgers; the profile below is a further run, recorded throughout)\n";
}


}  // namespace gp
