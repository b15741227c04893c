// graphprof list: the bundled workloads with their parameters. Needs no GPU.
#include <iostream>

#include "commands.hpp"
#include "graphprof/cuda/workload.hpp"
#include "graphprof/version.hpp"

namespace gp::cli {

void setup_list(CLI::App& app, int& exit_code) {
  auto* sub = app.add_subcommand("list", "List the bundled workloads with their parameters (no GPU needed)");
  sub->callback([&exit_code] {
    for (const auto& e : registered_workloads()) {
      std::cout << e.info.name << "\n    " << e.info.description << "\n";
      for (const auto& p : e.info.params)
        std::cout << "    --param " << p.name << "=" << p.default_value << "    " << p.help << "\n";
    }
    std::cout << "\nNCCL workloads: " << kNcclStatus << "\n";
    exit_code = 0;
  });
}

}  // namespace gp::cli
