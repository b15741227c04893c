// graphprof sweep: one workload over a parameter grid, e.g. --param kernels=1:10000:*10.
#include <iostream>

#include "option_checks.hpp"
#include "commands.hpp"
#include "help_format.hpp"
#include "graphprof/core/error.hpp"
#include "graphprof/report/reporter.hpp"
#include "graphprof/core/sweep_grid.hpp"
#include "child_processes.hpp"
#include "run_options.hpp"

namespace gp::cli {

void setup_sweep(CLI::App& app, int& exit_code) {
  auto* sub = app.add_subcommand(
      "sweep", "Run one workload over a parameter grid (lists a,b,c or ranges FROM:TO[:+STEP|:*FACTOR]); needs a GPU");
  auto o = std::make_shared<RunOptions>();
  add_run_options(sub, *o, "the workload to sweep (exactly one)");
  sub->add_flag("--isolate", o->isolate,
                "measure each grid point in its own fresh graphprof process (a process can switch to a slower "
                "device level mid-run; docs/findings.md 'Parity')");
  sub->add_flag("--isolate-modes", o->isolate_modes,
                "with --isolate (implied): each mode of each grid point in its own fresh process too, so no mode is "
                "measured in the device level an earlier mode left (docs/methodology.md)");
  help_footer(sub,
              "Exit codes: 0 ok, 2 usage, 3 bad input file (a --load library), 4 no GPU/driver, a broken CUDA "
              "context or --time-limit reached (what was measured is written), 6 internal error.",
              {"graphprof sweep --workload scaling --param length=10:10000:*10 --json sweep.json",
               "graphprof sweep --workload chain --param kernels=1,10,100 --mode capture,graph --csv chain.csv"});
  sub->callback([o, sub, &exit_code] {
    if (o->isolate_modes) o->isolate = true;
    if (o->workloads.size() != 1) throw usage_error("--workload: sweep takes exactly one workload");
    std::map<std::string, std::string> specs;
    for (const auto& p : o->params) {
      auto [k, v] = parse_param_assignment(p);
      specs[k] = v;
    }
    std::string json_path;
    RunOptions fixed = *o;
    fixed.params.clear();  // the grid carries every --param
    RunRequest req = make_request(fixed, json_path);
    one_output_on_stdout({{"--json", o->json_path}, {"--markdown", o->markdown_path}, {"--html", o->html_path},
                          {"--csv", o->csv_path}});
    run_outputs_apart(*o, json_path, "");
    req.sweep_points = expand_grid(specs);
    // Every point's parameters are checked before anything looks for a GPU (exit 2, not 4).
    (void)plan_suite(req);
    Report report;
    if (std::optional<Report> ranks = run_ranks(*o, "sweep")) {
      report = std::move(*ranks);
      report.command_line = command_line_of(*sub);
    } else if (o->isolate) {
      std::vector<IsolatedChild> children = sweep_children(*o, req.sweep_points);
      if (o->isolate_modes) children = split_by_mode(children, req.modes);
      report = run_isolated(*o, children, req.modes);
      report.command_line = command_line_of(*sub);
    } else {
      std::vector<Report> others = run_other_processes(*o, "sweep");
      CliObserver observer(*o, planned_results(req));
      report = merge_processes(run_suite(req, command_line_of(*sub), &observer), std::move(others));
    }
    if (o->time_limit > 0) report.settings.time_limit_seconds = o->time_limit;
    SweepConsoleReporter(o->verbose).write(report, console_of(*o, json_path));
    write_outputs(report, *o, json_path);
    print_more_hint(*o, json_path, false);
    stop_if_context_lost(report);  // after everything measured before it was written
    stop_if_time_limit_cut(report, *o);
    exit_code = 0;
  });
}

}  // namespace gp::cli
