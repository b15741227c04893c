// The measuring subcommands of a graphprof built without CUDA (configured with
// GRAPHPROF_WITH_CUDA=OFF, or where CMake found no CUDA compiler). They keep their names so a
// script gets one clear line and the environment exit code (4), whatever options it passes.
#include <string>

#include "commands.hpp"
#include "graphprof/core/error.hpp"

namespace gp::cli {

namespace {

void add_unavailable(CLI::App& app, const std::string& name, const std::string& what) {
  auto* sub = app.add_subcommand(name, what + " (not in this build: graphprof was built without CUDA)");
  // Answered as soon as the subcommand is seen, before its arguments are read, so any option or
  // argument (also --help, or a command after --) gets the same line and exit code.
  sub->preparse_callback([name](std::size_t) {
    throw Error(ExitCode::kEnvironment,
                name + ": this graphprof was built without CUDA (GRAPHPROF_WITH_CUDA=OFF), so it cannot measure; "
                       "build it with the CUDA toolkit for that. Commands of this build: analyze, render, compare, "
                       "merge, report, --help, --version");
  });
}

}  // namespace

void setup_info(CLI::App& app, int&) { add_unavailable(app, "info", "Show the GPU, driver, runtime and CUPTI versions"); }
void setup_list(CLI::App& app, int&) { add_unavailable(app, "list", "List the bundled workloads"); }
void setup_run(CLI::App& app, int&) { add_unavailable(app, "run", "Measure workloads in eager, capture and graph modes"); }
void setup_sweep(CLI::App& app, int&) { add_unavailable(app, "sweep", "Run one workload over a parameter grid"); }
void setup_profile(CLI::App& app, int&) { add_unavailable(app, "profile", "Profile an unmodified CUDA application"); }

}  // namespace gp::cli
