// graphprof run: measure workloads in eager, capture and graph modes; print tables, write JSON.
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <optional>

#include "option_checks.hpp"
#include "commands.hpp"
#include "help_format.hpp"
#include "graphprof/core/atomic_file.hpp"
#include "graphprof/core/error.hpp"
#include "graphprof/report/reporter.hpp"
#include "graphprof/report/chrome_trace.hpp"
#include "graphprof/trace/cupti_session.hpp"
#include "child_processes.hpp"
#include "run_options.hpp"

namespace gp::cli {

namespace {

void add_trace_options(CLI::App* sub, TraceCliOptions& t) {
  sub->add_option("--trace", t.level, "CUPTI trace pass after the timing passes: none, graph (one span per graph "
                                      "launch) or node (every kernel/copy/memset, joined to its graph node)")
      ->check(CLI::IsMember({"none", "graph", "node"}))
      ->capture_default_str();
  sub->add_option("--trace-out", t.out, "write a Chrome trace-event file (open it in ui.perfetto.dev) of the trace passes");
  sub->add_option("--trace-events", t.events,
                  "events per trace pass kept in --trace-out (its earliest ones), or 'all'; the default keeps a "
                  "default-suite trace small enough for a browser")
      ->capture_default_str();
  sub->add_option("--trace-records", t.records_dir, "write each trace pass's raw records (JSON) into this folder");
  sub->add_option("--trace-iterations", t.iterations, "replays recorded by each trace pass")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  sub->add_option("--trace-detach", t.detach, "detach CUPTI after each trace pass (each) or only at the end of the run (end)")
      ->check(CLI::IsMember({"each", "end"}))
      ->capture_default_str();
  sub->add_flag("--trace-nvtx", t.nvtx,
                "also record graphprof's NVTX ranges in the trace; this loads CUPTI for the whole run, which "
                "perturbs the timing passes (seen on the H200: captured graphs 18% slower)");
}

// Wires the trace options into the request. The Chrome trace collects every pass's events.
void configure_trace(const TraceCliOptions& t, RunRequest& req, ChromeTraceBuilder& chrome, CliObserver& observer) {
  TraceLevel level = TraceLevel::kNone;
  if (!trace_level_from_string(t.level, level)) throw usage_error("--trace " + t.level + ": expected none, graph or node");
  if (level == TraceLevel::kNone && (!t.out.empty() || !t.records_dir.empty()))
    throw usage_error(std::string(t.out.empty() ? "--trace-records" : "--trace-out") +
                      " needs a trace pass: use --trace=node or --trace=graph");
  if (!t.out.empty() && t.out.size() > 3 && t.out.compare(t.out.size() - 3, 3, ".gz") == 0 &&
      !ChromeTraceBuilder::can_compress())
    throw usage_error("--trace-out " + t.out + ": this graphprof was built without zlib; write .json instead");
  if (!t.out.empty()) check_output_path("--trace-out", t.out);
  if (!t.records_dir.empty()) check_output_folder("--trace-records", t.records_dir);
  req.measure.trace.level = level;
  req.measure.trace.iterations = t.iterations;
  req.measure.trace.detach_after_each_pass = t.detach == "each";
  if (level == TraceLevel::kNone) return;
  // NVTX reports ranges to CUPTI only when this names CUPTI before the first NVTX call, which
  // loads CUPTI for the whole run, timing passes included. On the H200 that made captured-graph
  // replays of chain 18 % slower (118.8 vs 100.6 us), so it is opt-in (--trace-nvtx). A tool
  // that runs graphprof (Nsight Systems) sets its own value, which wins.
  if (t.nvtx) {
    const std::string cupti = nvtx_injection_library();
    if (!cupti.empty()) setenv("NVTX_INJECTION64_PATH", cupti.c_str(), 0);
  }
  observer.keep_traces(t.out.empty() ? nullptr : &chrome, t.records_dir);
}

// --trace-events: a positive count or "all" (0: no cap).
std::size_t trace_event_cap(const std::string& text) {
  if (text == "all") return 0;
  char* end = nullptr;
  const long long n = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || n <= 0)
    throw usage_error("--trace-events " + text + ": expected a positive number of events or 'all'");
  return static_cast<std::size_t>(n);
}

// `run --isolate`: every planned workload in its own process, the report merged here.
Report run_isolated_workloads(const RunOptions& o, const TraceCliOptions& t, const RunRequest& req,
                              ChromeTraceBuilder& chrome) {
  std::vector<std::pair<std::string, std::map<std::string, std::string>>> plan;
  for (const auto& [entry, params] : plan_suite(req)) plan.emplace_back(entry->info.name, params.values());
  TraceCliOptions child_trace = t;
  std::optional<TemporaryFolder> records;  // --trace-out without --trace-records
  if (!t.out.empty() && t.records_dir.empty()) child_trace.records_dir = records.emplace("isolate-traces").path();
  std::vector<IsolatedChild> children = run_children(o, child_trace, plan);
  if (o.isolate_modes) children = split_by_mode(children, req.modes);
  Report report = run_isolated(o, children, req.modes);
  if (!t.out.empty()) add_isolated_traces(report, child_trace.records_dir, chrome);
  return report;
}

// Detaches CUPTI at the end of the run however it ends (CUDA 13.0 can crash at exit otherwise).
struct TraceShutdown {
  ~TraceShutdown() { trace_shutdown(); }
};

}  // namespace

void setup_run(CLI::App& app, int& exit_code) {
  auto* sub = app.add_subcommand("run", "Measure workloads in eager, capture and graph modes (needs a GPU)");
  auto o = std::make_shared<RunOptions>();
  add_run_options(sub, *o, "workload(s) to run; default: the suite (every bundled one-GPU workload)");
  auto t = std::make_shared<TraceCliOptions>();
  add_trace_options(sub, *t);
  sub->add_flag("--isolate", o->isolate,
                "measure each workload in its own fresh graphprof process, one after the other (a process can "
                "switch to a slower device level mid-run; docs/methodology.md)");
  sub->add_flag("--isolate-modes", o->isolate_modes,
                "with --isolate (implied): each mode of each workload in its own fresh process too, so no mode is "
                "measured in the device level an earlier mode left (docs/methodology.md)");
  help_footer(sub,
              "Exit codes: 0 ok, 2 usage, 3 bad input file (a --load library), 4 no GPU/driver, a broken CUDA "
              "context or --time-limit reached (what was measured is written), 6 internal error.",
              {"graphprof run", "graphprof run --workload chain --mode capture,graph --json chain.json",
               "graphprof run --workload scaling --param length=100 --trace node --out results"});
  sub->callback([o, t, sub, &exit_code] {
    if (o->isolate_modes) o->isolate = true;
    std::string json_path;
    RunRequest req = make_request(*o, json_path);
    ChromeTraceBuilder chrome(trace_event_cap(t->events));
    CliObserver observer(*o, planned_results(req));
    configure_trace(*t, req, chrome, observer);
    one_output_on_stdout({{"--json", o->json_path}, {"--markdown", o->markdown_path}, {"--html", o->html_path},
                          {"--csv", o->csv_path}, {"--trace-out", t->out}});
    run_outputs_apart(*o, json_path, t->out);
    // The other processes run first, before this one loads CUPTI for its trace pass.
    Report report;
    if (std::optional<Report> ranks = run_ranks(*o, "run")) {
      // One process per GPU measured everything; this one only started them and merges.
      report = std::move(*ranks);
      report.command_line = command_line_of(*sub);
    } else if (o->isolate) {
      // This process measures nothing: it plans, starts one process per workload and merges.
      report = run_isolated_workloads(*o, *t, req, chrome);
      report.command_line = command_line_of(*sub);
    } else {
      std::vector<Report> others = run_other_processes(*o, "run");
      {
        const TraceShutdown detach_cupti;
        report = run_suite(req, command_line_of(*sub), &observer);
      }
      report = merge_processes(std::move(report), std::move(others));
    }
    if (o->time_limit > 0) report.settings.time_limit_seconds = o->time_limit;
    std::ostream& console = console_of(*o, json_path, t->out);
    RunConsoleReporter(o->verbose).write(report, console);
    write_outputs(report, *o, json_path, t->out);
    if (!t->out.empty()) {
      chrome.write(t->out);
      console << "trace written to " << t->out << " (open it in ui.perfetto.dev or chrome://tracing)";
      if (chrome.truncated_sessions() > 0)
        console << "; " << chrome.truncated_sessions() << " trace pass(es) cut to their first " << t->events
                << " events (--trace-events all keeps every event)";
      console << "\n";
    }
    print_more_hint(*o, json_path, t->level != "none", t->out);
    stop_if_context_lost(report);  // after everything measured before it was written
    stop_if_time_limit_cut(report, *o);
    exit_code = 0;
  });
}

}  // namespace gp::cli
