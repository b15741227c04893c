// Why a step ran without a graph, what it cost, and which graphs to capture (`graphprof profile`,
// docs/profile.md "Steps by kind"): the figures of one process as plain structs, written to and
// read from the report (sections.profile.processes[].step_kinds and sections.profile.framework_logs)
// here, so the console, the page and compare read them typed. The analysis that fills them is
// src/profile/step_kinds.cpp; the text, src/report/profile_steps_text.cpp.
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace gp {

// One kind of step: the graphs it launched, or none (an eager step).
struct StepKind {
  std::vector<std::uint32_t> graphs;  // graph ids (the G of graph_<G>), sorted; empty: an eager step
  std::size_t steps = 0;
  double host_ns_median = 0, host_ns_total = 0;  // the step's time on the host clock
  // GPU time per step (median over its steps): its graphs' GPU time per launch (CUDA events at the
  // default level, GPU records otherwise) and its eager kernels' (GPU records only). Absent: not known.
  std::optional<double> graph_gpu_ns, eager_gpu_ns;
  double eager_launches = 0;  // eager kernel launch calls per step (mean)
  // Steps that launched no graph but made one, or ran just before the step that made one (warm-up,
  // compilation, the first call of a new size): start-up, not a fallback to eager.
  bool startup = false;
  bool eager() const { return graphs.empty() && !startup; }
  std::string name() const;   // "graph_3", "graph_3+graph_5", "eager (no graph)", "start-up (warm-up, capture)"
  std::optional<double> gpu_ns() const;  // both parts where both are known (or the step has no eager launch)
};

// Eager steps of one verdict against the captured graphs (their kernels' launch configurations).
struct EagerCluster {
  // "larger_than_graphs": matches no captured graph, its grids are larger than the nearest graph's;
  // "unlike_graphs": matches no captured graph otherwise; "matches_graph": a captured graph's kernels
  // and grids, run eagerly (a dispatch bug); "varies": a new shape nearly every step (dynamic
  // shapes); "not_recorded": the level records no kernel shapes (--trace node does).
  std::string verdict;
  std::uint32_t graph = 0;       // the graph it matches, or the nearest one (0: none)
  bool largest = false;          // that graph has the largest grids of the captured graphs
  std::size_t steps = 0, shapes = 0;  // eager steps, distinct launch-configuration signatures among them
  double host_ns_per_step = 0;
  std::optional<double> extra_host_ns;  // per step, over the graph steps it is held against
  std::optional<double> gpu_ns_per_step, extra_gpu_ns;
  std::vector<std::string> example;  // up to 3 kernels "name grid a,b,c" that the graph runs with another grid or not at all
  std::size_t first_step = 0;   // ordinal (0 = first step) of its first step
};

// A reason the framework gave for running something without a graph, read from its own log.
struct FrameworkReason {
  std::string kind;    // "skip" (CUDA graphs not used for a function), "re-record" (a new graph for new sizes)
  std::string reason;  // "mutated inputs (1 instances)"
  std::string file;    // the user code the framework names ("Found from"), "" when none
  int line = 0;
  std::string function;
  std::size_t count = 0;  // times it was logged
  // Joined to the eager work of the same code: the call sites (their `where`), the steps in which
  // a sampled call of them ran, their launches per step and GPU time.
  std::vector<std::string> sites;
  std::size_t steps = 0;
  std::optional<double> calls_per_step;
  double gpu_ns = 0, host_ns = 0;
};

struct PlanGraph {
  std::uint32_t graph = 0;
  std::size_t launches = 0;
  double per_1000_steps = 0;              // its launches per 1000 steps
  std::optional<double> startup_ns;       // capture + instantiate + upload
  std::optional<double> memory_bytes;     // its own allocations, memory nodes (the ledger)
  bool shares_pool = false;               // it allocated nothing: it reuses memory an earlier capture's pool holds
  std::string verdict;                    // "earns its keep", "launched rarely", "never launched"
};

struct PlanCluster {
  std::size_t cluster = 0;                // index into StepKinds::clusters
  std::size_t steps = 0;
  std::optional<double> saving_per_1000_steps_ns;  // its extra host time at its share of the steps
  std::optional<double> memory_bytes;     // estimate: the nearest graph's
  std::optional<double> startup_ns;       // estimate: the median of the measured graphs'
  std::optional<double> pays_back_steps;  // loop steps after which a capture's start-up is paid back
  std::string verdict;                    // "capture", "fix the dispatch", "not worth a capture", "pad to a bucket"
};

struct StepKinds {
  // How steps were cut: "nvtx range" (--step-range), "sync" (the synchronising call each step makes:
  // `delimiter`), "graph launch" (no call marks every step: eager steps cannot be told apart).
  std::string from;
  std::string delimiter;        // the API of the synchronising call ("cudaStreamSynchronize")
  std::size_t steps = 0;
  double loop_ns = 0;           // the steps' host time, summed
  std::vector<StepKind> kinds;  // most steps first
  // A graph step (every step that launched a graph): its median host time and GPU time, what an
  // eager step is held against.
  std::optional<double> graph_step_host_ns, graph_step_gpu_ns;
  std::string eager_where;      // the application's code that only eager steps run ("serving_gate.py:92 in serve")
  std::vector<std::pair<std::size_t, std::size_t>> strip;  // kind index, steps in a row: the steps in order
  std::vector<EagerCluster> clusters;
  std::vector<FrameworkReason> reasons;
  std::vector<PlanGraph> plan_graphs;
  std::vector<PlanCluster> plan_clusters;
  std::string padding;          // why the padding waste is not measured ("" when it is)
  std::vector<std::string> notes;

  std::size_t eager_steps() const;
  const StepKind* eager_kind() const;
};

// sections.profile.framework_logs: the framework logs graphprof asked for in the application's
// environment (PyTorch's TORCH_LOGS / TORCH_LOGS_OUT), or why it did not.
struct FrameworkLogs {
  bool asked = false;
  std::string torch_logs;  // the value set
  std::string file;        // where they were written (TORCH_LOGS_OUT)
  std::string not_asked;   // "the program's environment sets TORCH_LOGS"
  std::size_t lines = 0, reasons = 0;  // log records read, reasons found
};

nlohmann::json to_json(const StepKinds& s);
nlohmann::json to_json(const FrameworkLogs& f);
// `where` names the JSON path in error messages; a field of the wrong type is input_error (exit 3).
StepKinds step_kinds_from_json(const nlohmann::json& j, const std::string& where);
FrameworkLogs framework_logs_from_json(const nlohmann::json& j, const std::string& where);

}  // namespace gp
