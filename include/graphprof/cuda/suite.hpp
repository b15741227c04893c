// Running a selection of workloads and modes into one Report.
#pragma once
#include <chrono>
#include <optional>
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
  // `--time-limit`: when set, a (workload, mode) is not started after this moment (it is recorded
  // as cut: run_outcome.hpp), and each timing pass's budget is capped by the time left.
  std::optional<std::chrono::steady_clock::time_point> deadline;
};

// What run_suite measures, in order: each workload with the parameters it runs with (defaults
// and overrides; one entry per sweep point). Validates the request (unknown workload or
// parameter -> usage error) and touches no GPU; `run --isolate` starts one process per entry.
std::vector<std::pair<const WorkloadEntry*, Params>> plan_suite(const RunRequest& request);

// Validates the request (plan_suite) before any GPU work, then runs it. Failing modes are recorded and the rest still runs.
// `observer` (may be null) is told of every pass, trace and finished result; it replaces
// request.measure.observer.
Report run_suite(const RunRequest& request, const std::vector<std::string>& command_line, MeasureObserver* observer);

// Fill the report's header: tool, revision, time, command line, host.
Report make_report_header(const std::vector<std::string>& command_line);

}  // namespace gp
