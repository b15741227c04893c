// The default suite and any selection of workloads x modes, into one Report.
#include "graphprof/cuda/suite.hpp"

#include "latch.hpp"

#include <algorithm>

#include "graphprof/cuda/device.hpp"
#include "graphprof/cuda/host_probe.hpp"
#include "graphprof/core/batch_rule.hpp"
#include "graphprof/core/derived.hpp"
#include "graphprof/core/error.hpp"
#include "graphprof/core/run_outcome.hpp"
#include "graphprof/core/version.hpp"

namespace gp {

Report make_report_header(const std::vector<std::string>& command_line) {
  Report r;
  r.tool_version = kToolVersion;
  r.git_revision = kGitRevision;
  r.created_utc = utc_timestamp_now();
  r.command_line = command_line;
  r.environment.host = collect_host_info();
  return r;
}

std::vector<std::pair<const WorkloadEntry*, Params>> plan_suite(const RunRequest& req) {
  std::vector<std::pair<const WorkloadEntry*, Params>> plan;
  if (req.workloads.empty()) {
    for (const auto& e : registered_workloads()) {
      // Multi-GPU workloads (they take an `nranks` parameter) run only when named: they need
      // `--ranks` to be meaningful, and the default suite stays a one-GPU suite.
      if (std::any_of(e.info.params.begin(), e.info.params.end(), [](const ParamSpec& p) { return p.name == "nranks"; }))
        continue;
      // In the default suite an override applies to the workloads that have that parameter.
      std::map<std::string, std::string> mine;
      for (const auto& [k, v] : req.params)
        for (const auto& p : e.info.params)
          if (p.name == k) mine[k] = v;
      plan.emplace_back(&e, Params(e.info.params, mine, e.info.name));
    }
  } else {
    for (const auto& name : req.workloads) {
      const WorkloadEntry* e = find_workload(name);
      if (e == nullptr) {
        std::string known;
        for (const auto& x : registered_workloads()) known += (known.empty() ? "" : ", ") + x.info.name;
        throw usage_error("--workload " + name + ": no such workload (bundled: " + known + ")");
      }
      if (req.sweep_points.empty()) {
        plan.emplace_back(e, Params(e->info.params, req.params, name));
        continue;
      }
      for (const auto& point : req.sweep_points) {
        auto merged = req.params;
        for (const auto& [k, v] : point) merged[k] = v;
        plan.emplace_back(e, Params(e->info.params, merged, name));
      }
    }
  }
  // A value of the wrong form (kernels=abc) is a usage error here, before any GPU is looked for.
  // A plugin's parameters are the plugin's to read.
  for (const auto& [entry, params] : plan)
    if (entry->plugin == nullptr) params.check_forms(entry->info.params);
  return plan;
}

Report run_suite(const RunRequest& req, const std::vector<std::string>& command_line, MeasureObserver* observer) {
  // Resolve everything that can be wrong on the command line before touching the GPU.
  const std::vector<std::pair<const WorkloadEntry*, Params>> plan = plan_suite(req);

  Report report = make_report_header(command_line);
  report.environment.gpu = query_gpu(req.device);
  const auto& m = req.measure;
  RunSettings& s = report.settings;
  s.target_rel_ci = m.rule.target_rel_ci;
  s.min_samples = static_cast<long long>(m.rule.min_samples);
  s.max_samples = static_cast<long long>(m.rule.max_samples);
  s.budget_seconds_per_pass = m.rule.budget_seconds;
  s.min_seconds_per_pass = m.rule.min_seconds;
  s.warmup_iterations = m.warmup_iterations;
  s.warmup_seconds = m.warmup_seconds;
  s.verify_iterations = m.verify_iterations;
  s.one_off_samples = m.one_off_samples;
  s.repetitions = m.repetitions;
  s.latch = to_string(latch_kind());

  MeasureOptions measure = req.measure;
  measure.observer = observer;
  report.environment.probes = measure_host_probes("_start");
  for (const auto& [entry, params] : plan) {
    for (Mode mode : req.modes) {
      MeasureOptions this_mode = measure;
      if (req.deadline) {
        if (seconds_left(*req.deadline) <= 0) {
          report.results.push_back(cut_by_time_limit(entry->info.name, mode, params.values()));
          if (observer != nullptr) observer->result_finished(report.results.back());
          continue;
        }
        // The mode's passes share the time left (run_mode gives each its share as it starts).
        this_mode.deadline = req.deadline;
      }
      report.results.push_back(run_mode(*entry, mode, params, this_mode));
      if (observer != nullptr) observer->result_finished(report.results.back());
      // Nothing more can run in this process; the caller keeps what was measured and says why.
      if (lost_cuda_context(report.results.back())) {
        derive_against_eager(report.results);
        return report;
      }
    }
  }
  for (const auto& [k, v] : measure_host_probes("_end")) report.environment.probes[k] = v;
  derive_against_eager(report.results);
  return report;
}

}  // namespace gp
