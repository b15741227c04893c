// graphprof profile: its options (cmd_profile.cpp reads them from the command line) and the
// profile session that runs with them (profile_session.cpp): the plan (the options checked, the
// folders and outputs known good before anything runs), the application's environment, the runs,
// the records each run left, and the report.
#pragma once
#include <string>
#include <vector>

#include "graphprof/core/node_sampling.hpp"
#include "graphprof/core/site_sampling.hpp"
#include "graphprof/profile/observer.hpp"
#include "graphprof/trace/trace_records.hpp"

namespace gp::cli {

struct ProfileOptions {
  std::string out = "graphprof-profile";
  std::string json;
  std::string trace_out;
  TraceLevel trace = TraceLevel::kNone;  // the light default: graphs, calls, call sites and ledgers (no GPU records)
  std::string node_sample = NodeSampling{}.text();
  int overhead = 0;  // --overhead [N]: N plain and N profiled runs
  int overhead_windows = 0;  // --overhead-windows [N]: N runs whose recording pauses in alternate windows
  unsigned window_ms = 50;   // --window-ms: their length
  bool dot = true;
  bool framework_logs = true;  // --no-framework-logs: do not ask PyTorch for its CUDA-graph logs
  std::string call_sites = "on";  // --call-sites
  std::string site_sample = SiteSampling{}.text();  // --site-sample: which eager calls' stacks are taken
  ObserveRequest observe = ObserveRequest::kAuto;  // --observe (--trace none: the preloaded interposer, no CUPTI)
  int repeat = 1;
  std::string html;
  double time_limit = 0;  // --time-limit SECONDS; 0: none
  bool verbose = false;
  bool step_range_given = false;
  std::string step_range;  // --step-range NAME: a step is one NVTX range NAME; empty: one launch of the most-launched graph
  std::string from;        // --from DIR: re-read an earlier profile's records, run nothing
  std::vector<std::string> command;
};

// How long an application stopped by --time-limit (or a process left of its group) has between
// SIGTERM and SIGKILL: the injection library's own flush on SIGTERM gives up after 3 s.
constexpr double kStopGraceSeconds = 5;

// Runs the profile the options describe; exit_code is 0 once the report is written (the
// application's own exit status is in the report). Throws gp::Error for what the user must fix.
void run_profile(const ProfileOptions& o, int& exit_code);

}  // namespace gp::cli
