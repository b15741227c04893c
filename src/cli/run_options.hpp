// Options shared by `run` and `sweep`: what to run and how to measure it.
#pragma once
#include <chrono>
#include <ostream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "graphprof/cuda/suite.hpp"
#include "graphprof/report/chrome_trace.hpp"
#include "graphprof/core/temp_folder.hpp"
#include "graphprof/report/chrome_trace.hpp"

namespace gp::cli {

struct RunOptions {
  std::vector<std::string> load;  // plugin libraries (--load)
  std::vector<std::string> workloads;
  std::vector<std::string> modes{"all"};
  std::vector<std::string> params;
  std::string json_path;
  std::string markdown_path;
  std::string html_path;
  std::string csv_path;
  std::string out_dir;
  int repetitions = 1;
  double target_ci = 0.01;
  double budget = 0.5;
  double min_time = 0.1;
  int min_samples = 20;
  int device = 0;
  int processes = 1;
  std::string ranks = "1";  // processes of a multi-GPU run, one per GPU: a number or "all"
  int lockstep = 0;         // internal (ranks): exactly this many samples per pass, no time limits
  bool quiet = false;
  bool verbose = false;  // every metric table and the trace detail on the console
  bool isolate = false;  // each grid point (sweep) or workload (run) in its own fresh process
  bool isolate_modes = false;  // --isolate-modes: each mode of those in its own fresh process too
  double time_limit = 0;  // --time-limit SECONDS for the whole command; 0: none
};

// No output of run or sweep is a --load library or another of its outputs (option_checks.hpp):
// `json_path` is the report's path (--json or OUT/report.json), `trace_out` run's --trace-out.
void run_outputs_apart(const RunOptions& o, const std::string& json_path, const std::string& trace_out);

// Adds the measurement options to `sub`; `what` words the --workload help.
void add_run_options(CLI::App* sub, RunOptions& o, const std::string& workload_help);

// --load PATH (repeatable), for run, sweep and list.
void add_load_option(CLI::App* sub, std::vector<std::string>& paths);
// Loads each plugin (input_error naming the file when one is refused); returns the workloads added.
std::vector<std::string> load_plugins(const std::vector<std::string>& paths);

// Loads the --load plugins, then turns options into a request (usage errors for bad modes/params); sets `json_path` to the
// report path (from --json or --out).
RunRequest make_request(const RunOptions& o, std::string& json_path);

// CLI11 keeps no argv; rebuild a faithful command line from what was parsed.
std::vector<std::string> command_line_of(const CLI::App& sub);

// Where run and sweep print their tables and "written to" lines: stderr when one of the outputs
// below goes to stdout (`--json -`, also `run --trace-out -`: `trace_out`), so that it stays clean
// for a pipe; stdout otherwise.
std::ostream& console_of(const RunOptions& o, const std::string& json_path, const std::string& trace_out = {});

// Writes the report to json_path (if set), a Markdown summary to --markdown, the HTML report to
// --html and the CSV to --csv (each if set); their "written to" lines go to console_of(o,
// json_path, trace_out).
void write_outputs(const Report& report, const RunOptions& o, const std::string& json_path,
                   const std::string& trace_out = {});

// `--processes N`: runs the same measurement in N-1 fresh processes of this binary (no trace
// pass, no DOT dumps, no NVTX injection into CUPTI). Called before this process measures.
std::vector<Report> run_other_processes(const RunOptions& o, const std::string& subcommand);
// Merges their repetitions into this process's report (first), so the spread between processes
// is part of the data that `compare` sees.
Report merge_processes(Report first, std::vector<Report> others);

// A new folder of this process's own in the temporary folder ("graphprof-<what>-XXXXXX", made by
// mkdtemp: mode 0700, a name no one could have made before), removed with everything in it when
// this goes out of scope. Exit 4 when it cannot be made.
class TemporaryFolder {
 public:
  explicit TemporaryFolder(const std::string& what);
  ~TemporaryFolder();
  TemporaryFolder(const TemporaryFolder&) = delete;
  TemporaryFolder& operator=(const TemporaryFolder&) = delete;
  std::string path() const { return path_; }

 private:
  std::string path_;
  std::unique_ptr<TempFolderGuard> on_signal_;  // removed by a fatal SIGINT/SIGTERM too
};

struct IsolatedChild;  // child_processes.hpp

// `--isolate` (run and sweep): runs each child (a grid point, a workload) in its own fresh process
// of this binary, one after the other (with --processes N each child runs N-1 more and merges
// them). A child whose process fails is recorded as failed (its modes, with the exit status) and
// the others still run; one that broke its CUDA context (exit 4 after writing its report) keeps
// what it measured. Exit status 2 or 4 otherwise (usage, no GPU) stops at once; every child
// failed: that of the first. Without a GPU it stops before starting any (one message, exit 4).
// Returns the children's reports merged (merge_reports) in their order, settings.isolate true.
Report run_isolated(const RunOptions& o, const std::vector<IsolatedChild>& children, const std::vector<Mode>& modes);

// `--ranks N`: starts N processes of this binary at once, process i measuring on GPU i as rank i
// of N (a shared rendezvous folder for NCCL), every pass with the same sample count so their
// collectives line up; returns their reports merged (merge_ranks). If one fails, the others are
// stopped. Returns nothing when --ranks is 1.
std::optional<Report> run_ranks(const RunOptions& o, const std::string& subcommand);

// The (workload, mode) pairs run_suite will measure: the progress lines' total.
std::size_t planned_results(const RunRequest& req);
// After the outputs are written: exit 4 (Error) when --time-limit cut some results.
void stop_if_time_limit_cut(const Report& report, const RunOptions& o);
// After the outputs: the commands that show more than the console did (--verbose, the HTML report
// of `json_path`), one line on console_of(o, json_path, trace_out); `traced`: a trace pass ran.
// Nothing with --verbose.
void print_more_hint(const RunOptions& o, const std::string& json_path, bool traced, const std::string& trace_out = {});

// What `run` and `sweep` show and keep while they measure: progress lines on stderr (one per
// finished result, "[k/total] workload mode: ...", with the seconds used of --time-limit when one
// is set; and each pass of a mode once it has run a few seconds), none with --quiet; and each
// trace pass's records, into the Chrome trace and/or a --trace-records folder.
class CliObserver final : public MeasureObserver {
 public:
  CliObserver(const RunOptions& o, std::size_t total) : quiet_(o.quiet), total_(total), time_limit_(o.time_limit) {}
  // Trace passes' records go into `chrome` (null: no Chrome trace) and into `records_dir` (empty: none).
  void keep_traces(ChromeTraceBuilder* chrome, std::string records_dir) {
    chrome_ = chrome;
    records_dir_ = std::move(records_dir);
  }
  void pass_started(const ModeResult& res, const char* pass) override;
  void trace_recorded(const ModeResult& res, const TraceData& data, const NodeJoin& join) override;
  void result_finished(const ModeResult& res) override;

 private:
  bool quiet_;
  std::size_t total_, done_ = 0;
  double time_limit_;
  std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
  std::string mode_;  // the (workload, mode, params) whose passes are being announced
  std::chrono::steady_clock::time_point mode_started_;
  ChromeTraceBuilder* chrome_ = nullptr;
  std::string records_dir_;
};
// Throws gp::Error(kEnvironment) naming the workload/mode whose sticky CUDA error ended the run
// (graphprof/core/run_outcome.hpp; with --isolate only that child's process); call it after the
// outputs are written.
void stop_if_context_lost(const Report& report);

}  // namespace gp::cli
