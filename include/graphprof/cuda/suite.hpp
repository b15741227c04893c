// Running a selection of workloads and modes into one Report.
#pragma once
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "graphprof/cuda/runner.hpp"
#include "graphprof/cuda/workload.hpp"
#include "graphprof/core/params.hpp"
#include "graphprof/core/report.hpp"

namespace gp {

struct RunRequest {
  std::vector<std::string> workloads;            // empty: every bundled workload
  std::vector<Mode> modes{kAllModes.begin(), kAllModes.end()};
  std::map<std::string, std::string> params;     // --param overrides
  // `graphprof sweep`: one parameter set per grid point (each overlaid on `params`); empty = one run.
  std::vector<std::map<std::string, std::string>> sweep_points;
  MeasureOptions measure;
  int device = 0;
};

// Called after each (workload, mode) finishes, for progress output.
using ProgressFn = std::function<void(const ModeResult&)>;

// What run_suite measures, in order: each workload with the parameters it runs with (defaults
// and overrides; one entry per sweep point). Validates the request (unknown workload or
// parameter -> usage error) and touches no GPU; `run --isolate` starts one process per entry.
std::vector<std::pair<const WorkloadEntry*, Params>> plan_suite(const RunRequest& request);

// Validates the request (plan_suite) before any GPU work, then runs it. Failing modes are recorded and the rest still runs.
Report run_suite(const RunRequest& request, const std::vector<std::string>& command_line, const ProgressFn& progress);

// Fill the report's header: tool, revision, time, command line, host.
Report make_report_header(const std::vector<std::string>& command_line);

}  // namespace gp
