// What graphprof's own child processes are asked to do, and their merged report (see
// child_processes.hpp).
#include "child_processes.hpp"

#include <algorithm>
#include <cstdint>
#include <filesystem>

#include "graphprof/graph/dot_graph_info.hpp"
#include "graphprof/compare/report_merge.hpp"
#include "graphprof/report/compare_report.hpp"
#include "graphprof/core/error.hpp"
#include "graphprof/graph/graph_model.hpp"
#include "graphprof/core/text_format.hpp"
#include "graphprof/trace/trace_analysis.hpp"
#include "graphprof/compare/report_merge.hpp"
#include "graphprof/core/run_outcome.hpp"

namespace gp::cli {

namespace {

// Every digit the parent parsed (std::to_string would turn --min-time 1e-7 into 0).
std::string number(double x) { return strf("%.17g", x); }

std::vector<std::string> param_arguments(const std::map<std::string, std::string>& values) {
  std::vector<std::string> v;
  for (const auto& [name, value] : values) v.push_back(name + "=" + value);
  return v;
}

IsolatedChild isolated_child(const std::string& subcommand, RunOptions child, const TraceCliOptions* trace,
                             std::string which, const std::map<std::string, std::string>& params) {
  child.params = param_arguments(params);
  if (!child.verbose) child.quiet = true;  // one progress line per child (the parent's), not one per mode
  IsolatedChild c;
  c.which = std::move(which);
  c.workload = child.workloads.front();
  c.params = params;
  c.args = child_arguments(subcommand, child, trace);
  return c;
}

}  // namespace

std::vector<std::string> child_arguments(const std::string& subcommand, const RunOptions& o, const TraceCliOptions* trace) {
  std::vector<std::string> a{"graphprof", subcommand, "--processes=" + std::to_string(o.processes)};
  if (o.quiet) a.push_back("--quiet");
  for (const auto& l : o.load) a.push_back("--load=" + l);
  if (!o.workloads.empty()) a.push_back("--workload=" + join(o.workloads, ","));
  a.push_back("--mode=" + join(o.modes, ","));
  for (const auto& p : o.params) a.push_back("--param=" + p);
  a.push_back("--repetitions=" + std::to_string(o.repetitions));
  a.push_back("--target-ci=" + number(o.target_ci));
  a.push_back("--budget=" + number(o.budget));
  a.push_back("--min-time=" + number(o.min_time));
  a.push_back("--min-samples=" + std::to_string(o.min_samples));
  a.push_back("--device=" + std::to_string(o.device));
  if (!o.out_dir.empty()) a.push_back("--out=" + o.out_dir);  // DOT dumps; the report goes to --json
  if (subcommand != "run") return a;
  if (trace == nullptr) {
    a.push_back("--trace=none");
    return a;
  }
  a.push_back("--trace=" + trace->level);
  if (trace->level == "none") return a;
  a.push_back("--trace-iterations=" + std::to_string(trace->iterations));
  a.push_back("--trace-detach=" + trace->detach);
  if (trace->nvtx) a.push_back("--trace-nvtx");
  if (!trace->records_dir.empty()) a.push_back("--trace-records=" + trace->records_dir);
  return a;
}

std::vector<IsolatedChild> sweep_children(const RunOptions& o, const std::vector<std::map<std::string, std::string>>& points) {
  std::vector<IsolatedChild> children;
  const std::string n = std::to_string(points.size());
  for (std::size_t i = 0; i < points.size(); ++i)
    children.push_back(isolated_child("sweep", o, nullptr,
                                      "point " + std::to_string(i + 1) + " of " + n + " (" + params_text(points[i]) + ")",
                                      points[i]));
  return children;
}

std::vector<IsolatedChild> run_children(const RunOptions& o, const TraceCliOptions& trace,
                                        const std::vector<std::pair<std::string, std::map<std::string, std::string>>>& plan) {
  std::vector<IsolatedChild> children;
  const std::string n = std::to_string(plan.size());
  for (std::size_t i = 0; i < plan.size(); ++i) {
    RunOptions child = o;
    child.workloads = {plan[i].first};
    children.push_back(isolated_child("run", child, &trace,
                                      "workload " + std::to_string(i + 1) + " of " + n + " (" + plan[i].first + ")",
                                      plan[i].second));
  }
  return children;
}

std::vector<IsolatedChild> split_by_mode(const std::vector<IsolatedChild>& children, const std::vector<Mode>& modes) {
  std::vector<IsolatedChild> out;
  for (const IsolatedChild& c : children)
    for (const Mode m : modes) {
      IsolatedChild one = c;
      one.which += std::string(", mode ") + to_string(m);
      one.modes = {m};
      for (std::string& a : one.args)
        if (a.rfind("--mode=", 0) == 0) a = std::string("--mode=") + to_string(m);
      out.push_back(std::move(one));
    }
  return out;
}

Report merge_isolated(const std::vector<IsolatedChild>& children, std::vector<std::optional<Report>> got,
                      const std::vector<int>& status, const std::vector<Mode>& modes, int processes) {
  if (children.empty() || status.size() != children.size() || got.size() != children.size())
    throw internal_error("--isolate: " + std::to_string(children.size()) + " processes planned, " +
                         std::to_string(got.size()) + " reports and " + std::to_string(status.size()) + " statuses");
  const auto first = std::find_if(got.begin(), got.end(), [](const std::optional<Report>& r) { return r.has_value(); });
  if (first == got.end()) {
    // Nothing measured: graphprof exits as its children did (3 bad input, 5, 6 ...); a process
    // killed by a signal or with another status is not graphprof's verdict: 6.
    const int rc = status.front();
    throw Error(rc >= 1 && rc <= 6 ? static_cast<ExitCode>(rc) : ExitCode::kInternal,
                "--isolate: every process failed (" + children.front().which + ": exit status " + std::to_string(rc) +
                    "; its message is above)");
  }
  // A failed child's results go into a copy of a measured report's header (same GPU and build, so
  // merge_reports takes it), copied before the reports are moved into the merge.
  Report header = **first;
  header.results.clear();
  std::vector<Report> reports;
  std::vector<std::string> sources;
  for (std::size_t i = 0; i < children.size(); ++i) {
    sources.push_back(children[i].which);
    if (got[i]) {
      reports.push_back(std::move(*got[i]));
      continue;
    }
    Report failed = header;
    for (const Mode m : children[i].modes.empty() ? modes : children[i].modes) {
      if (status[i] == kCutByTimeLimit) {
        failed.results.push_back(cut_by_time_limit(children[i].workload, m, children[i].params));
        continue;
      }
      ModeResult r;
      r.workload = children[i].workload;
      r.mode = m;
      r.params = children[i].params;
      r.status = Status::kFailed;
      r.reason = "its isolated process exited with status " + std::to_string(status[i]);
      failed.results.push_back(std::move(r));
    }
    reports.push_back(std::move(failed));
  }
  Report out = merge_reports(reports, sources);
  out.settings.processes = processes;  // per child, not summed over the children
  if (out.settings.repetitions) out.settings.repetitions_total = *out.settings.repetitions * static_cast<long long>(processes);
  out.settings.isolate = true;
  return out;
}

void add_isolated_traces(const Report& report, const std::string& records_dir, ChromeTraceBuilder& chrome) {
  for (const ModeResult& r : report.results) {
    if (!r.sections.trace || r.sections.trace->status != "ok") continue;
    const std::string path = (std::filesystem::path(records_dir) / (trace_records_stem(r) + ".trace.json")).string();
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) continue;
    const TraceData data = trace_data_from_json(read_json_file(path), path);
    DotGraphInfo dot;
    if (r.sections.graph && !r.sections.graph->dot.empty()) {
      try {
        dot = dot_graph_info(load_dot(r.sections.graph->dot));
      } catch (const Error&) {
        // Unreadable dump: no node names, as in the child (its trace section says why).
      }
    }
    const NodeJoin join = NodeJoin::build(data, dot.found ? &dot : nullptr);
    chrome.add(r.workload + " " + to_string(r.mode), data, &join);
  }
}

std::string trace_records_stem(const ModeResult& r) {
  std::string stem = r.workload;
  for (const auto& [k, v] : r.params) stem += "_" + k + "-" + v;
  return stem + "_" + to_string(r.mode);
}

}  // namespace gp::cli
