// graphprof's entry point: the only place that maps errors to process exit codes.
//   0 ok · 1 regression found · 2 usage · 3 bad input file · 4 environment (no GPU/driver)
//   5 comparison not trustworthy · 6 internal error
#include <iostream>
#include <string>

#include "commands.hpp"
#include "option_checks.hpp"
#include "graphprof/core/error.hpp"
#include "graphprof/core/version.hpp"

int main(int argc, char** argv) {
  CLI::App app{"graphprof: measure what CUDA Graphs do for your GPU work"};
  app.set_version_flag("--version", std::string("graphprof ") + gp::kToolVersion + " (" + gp::kGitRevision + ")");
  app.require_subcommand(1);
  app.footer(std::string("Exit codes: 0 ok, 1 regression found, 2 usage, 3 bad input file, 4 no GPU/driver,\n"
                          "            5 comparison not trustworthy, 6 internal error.\n") +
             (gp::kBuiltWithCuda ? "Without a GPU: list, analyze, render, compare, merge, report work; info, run, "
                                   "sweep and profile need a GPU."
                                 : "Built without CUDA: analyze, render, compare, merge, report work; info, list, "
                                   "run, sweep and profile exit 4."));
  int exit_code = 0;
  gp::cli::setup_info(app, exit_code);
  gp::cli::setup_list(app, exit_code);
  gp::cli::setup_run(app, exit_code);
  gp::cli::setup_sweep(app, exit_code);
  gp::cli::setup_analyze(app, exit_code);
  gp::cli::setup_render(app, exit_code);
  gp::cli::setup_compare(app, exit_code);
  gp::cli::setup_merge(app, exit_code);
  gp::cli::setup_profile(app, exit_code);
  gp::cli::setup_report(app, exit_code);
  gp::cli::reject_empty_values(app);  // after every option is declared

  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {  // --help, --version
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return static_cast<int>(gp::ExitCode::kUsage);
  } catch (const gp::Error& e) {
    std::cerr << "graphprof: " << e.what() << "\n";
    return static_cast<int>(e.code());
  } catch (const std::exception& e) {
    std::cerr << "graphprof: internal error: " << e.what() << "\n";
    return static_cast<int>(gp::ExitCode::kInternal);
  }
  return exit_code;
}
