// graphprof run: measure workloads in eager, capture and graph modes; print tables, write JSON.
#include <iostream>

#include "commands.hpp"
#include "graphprof/reporters.hpp"
#include "run_options.hpp"

namespace gp::cli {

void setup_run(CLI::App& app, int& exit_code) {
  auto* sub = app.add_subcommand("run", "Measure workloads in eager, capture and graph modes (needs a GPU)");
  auto o = std::make_shared<RunOptions>();
  add_run_options(sub, *o, "workload(s) to run; default: the whole suite (every bundled workload)");
  sub->callback([o, sub, &exit_code] {
    std::string json_path;
    const RunRequest req = make_request(*o, json_path);
    const Report report = run_suite(req, command_line_of(*sub), progress_printer(o->quiet));
    print_run_console(report, std::cout);
    write_outputs(report, *o, json_path);
    exit_code = 0;
  });
}

}  // namespace gp::cli
