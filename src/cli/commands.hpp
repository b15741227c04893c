// One setup function per subcommand. Each adds its subcommand and options to `app`; its
// callback runs the command and stores the exit code in `exit_code`. Errors are thrown as
// gp::Error and mapped to exit codes only in main.cpp.
#pragma once
#include <CLI/CLI.hpp>

namespace gp::cli {

void setup_info(CLI::App& app, int& exit_code);
void setup_list(CLI::App& app, int& exit_code);
void setup_run(CLI::App& app, int& exit_code);
void setup_sweep(CLI::App& app, int& exit_code);
void setup_analyze(CLI::App& app, int& exit_code);
void setup_render(CLI::App& app, int& exit_code);
void setup_compare(CLI::App& app, int& exit_code);
void setup_merge(CLI::App& app, int& exit_code);
void setup_profile(CLI::App& app, int& exit_code);
void setup_report(CLI::App& app, int& exit_code);

}  // namespace gp::cli
