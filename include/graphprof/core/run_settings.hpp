// The settings of a report (its `settings` object): how the results were measured, and how a merged
// report was put together. Which fields a report has depends on the command that wrote it (run and
// sweep the stopping rule and passes, profile its trace level and runs, merges their counts), so
// each is optional: absent from the JSON when not set. Keys this version does not know are kept
// (`extra`), so reading and writing a report loses nothing. docs/report-schema.md lists the keys.
// Host-only.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace gp {

// settings.rank_gpus[]: the GPU of each rank of `run --ranks`.
struct RankGpu {
  long long ordinal = 0;
  std::string pci_bus_id;
};

struct RunSettings {
  // run, sweep: the stopping rule and the passes.
  std::optional<double> target_rel_ci;
  std::optional<long long> min_samples, max_samples;
  std::optional<double> budget_seconds_per_pass, min_seconds_per_pass;
  std::optional<long long> warmup_iterations;
  std::optional<double> warmup_seconds;
  std::optional<long long> verify_iterations, one_off_samples, repetitions;
  std::optional<std::string> latch;          // the latch of the latched pass ("wait-value", "kernel")
  std::optional<double> time_limit_seconds;  // --time-limit
  // Merged reports (--processes, merge, --isolate, a pooled folder) and independent runs.
  std::optional<long long> processes, repetitions_total, pooled_reports;
  std::optional<bool> isolate;  // run/sweep --isolate
  // run --ranks.
  std::optional<long long> ranks;
  std::optional<std::vector<RankGpu>> rank_gpus;
  // profile: "command": "profile", its trace level, --repeat, and a merge of nodes' reports.
  std::optional<std::string> command, trace, merged_by;
  std::optional<long long> repeat;
  nlohmann::json extra = nlohmann::json::object();  // keys this version does not know

  // The number of processes behind the report (settings.processes; 1 when absent).
  long long processes_or_one() const;
};

nlohmann::json to_json(const RunSettings& s);
// `source` names the report in messages; throws input_error (kBadInput) "SOURCE: settings.KEY: ...".
RunSettings settings_from_json(const nlohmann::json& j, const std::string& source);

}  // namespace gp
