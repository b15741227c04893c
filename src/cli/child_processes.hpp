// The graphprof processes that graphprof starts itself (--processes, --ranks, --isolate): their
// command lines (the parent's measurement options, each report as JSON to a file) and, for
// --isolate, how their reports make one. Kept apart from starting and waiting for processes
// (run_options.cpp: run_isolated) so CPU tests can check them.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "graphprof/report/chrome_trace.hpp"
#include "run_options.hpp"

namespace gp::cli {

// `run`'s trace pass options (docs/tracing.md).
struct TraceCliOptions {
  std::string level = "node";
  std::string out;          // Chrome trace-event file
  std::string records_dir;  // raw plain records per mode (fixtures, offline analysis)
  int iterations = 200;
  std::string detach = "each";
  std::string events = std::to_string(kDefaultTraceEventsPerSession);  // per trace pass in --trace-out, or "all"
  bool nvtx = false;  // record graphprof's NVTX ranges in the trace (loads CUPTI for the whole run)
};

// The child's command line for `subcommand` ("run" or "sweep"): o's workloads, parameters, modes,
// stopping rule, --processes, --quiet and --out exactly as given (the caller sets them for the
// child), no --json (the caller adds its own file) and none of the parent's other outputs.
// `trace`: the trace options of a `run` child that does the trace pass itself (--isolate, with
// trace->records_dir where its records go); nullptr: a `run` child without one (--trace=none).
std::vector<std::string> child_arguments(const std::string& subcommand, const RunOptions& o,
                                         const TraceCliOptions* trace = nullptr);

// One fresh process of --isolate: what it measures and its command line.
struct IsolatedChild {
  std::string which;  // progress and messages: "point 2 of 3 (length=100)", "workload 2 of 9 (chain)"
  std::string workload;
  std::map<std::string, std::string> params;  // recorded with its modes when the process fails
  std::vector<std::string> args;              // child_arguments: no --json yet
  std::vector<Mode> modes;                    // --isolate-modes: the one mode it measures; empty: the run's
};

// `--isolate-modes`: each child split into one child per mode of `modes`, in that order, each
// measuring that mode alone (its --mode argument replaced), so no mode inherits the device state
// an earlier mode left (docs/methodology.md, "Device level").
std::vector<IsolatedChild> split_by_mode(const std::vector<IsolatedChild>& children, const std::vector<Mode>& modes);

// `sweep --isolate`: one process per grid point of o's one workload, each with the shared
// options and that point's --param values only.
std::vector<IsolatedChild> sweep_children(const RunOptions& o, const std::vector<std::map<std::string, std::string>>& points);

// `run --isolate`: one process per planned workload (plan_suite's order), each with that workload
// alone and every parameter it runs with; it does its own trace pass (records into
// `trace.records_dir`), DOT dumps into --out.
std::vector<IsolatedChild> run_children(const RunOptions& o, const TraceCliOptions& trace,
                                        const std::vector<std::pair<std::string, std::map<std::string, std::string>>>& plan);

// A child that --time-limit left unstarted (merge_isolated records its modes as cut).
inline constexpr int kCutByTimeLimit = -1;

// The report of --isolate from what each child gave: `got[i]` its report, or nothing when its
// process failed with exit status `status[i]`: then each of `modes` is recorded as failed for its
// workload and parameters (as cut, run_outcome.hpp, when the status is kCutByTimeLimit). Merged in the children's order (merge_reports); settings.processes is
// `processes` (per child), settings.isolate true. Every child failed: Error with the first one's
// status (1-6; else 6, internal).
Report merge_isolated(const std::vector<IsolatedChild>& children, std::vector<std::optional<Report>> got,
                      const std::vector<int>& status, const std::vector<Mode>& modes, int processes);

// `run --isolate --trace-out`: adds the trace pass of each result whose trace is "ok" to `chrome`,
// in report order, from the records its process wrote into `records_dir` (trace_records_stem),
// each joined to its DOT dump (sections.graph.dot) as in one process. A result whose records are
// missing is left out.
void add_isolated_traces(const Report& report, const std::string& records_dir, ChromeTraceBuilder& chrome);

// The file stem of one result's trace records (`run --trace-records`): "chain_kernels-100_capture".
std::string trace_records_stem(const ModeResult& r);

}  // namespace gp::cli
