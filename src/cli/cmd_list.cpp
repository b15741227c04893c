// graphprof list: the bundled workloads (and those of --load plugins) with their parameters.
// Needs no GPU.
#include <iostream>
#include <memory>

#include "commands.hpp"
#include "help_format.hpp"
#include "graphprof/cuda/workload.hpp"
#include "graphprof/core/version.hpp"
#include "run_options.hpp"

namespace gp::cli {

void setup_list(CLI::App& app, int& exit_code) {
  auto* sub = app.add_subcommand("list", "List the bundled workloads with their parameters (no GPU needed)");
  auto load = std::make_shared<std::vector<std::string>>();
  add_load_option(sub, *load);
  help_footer(sub, "Exit codes: 0 ok, 2 usage, 3 a --load library that is not a graphprof plugin.",
              {"graphprof list", "graphprof list --load ./libmy_workloads.so"});
  sub->callback([load, &exit_code] {
    load_plugins(*load);
    for (const auto& e : registered_workloads()) {
      std::cout << e.info.name << "\n    " << e.info.description << "\n";
      if (e.plugin)
        std::cout << "    from " << e.plugin->library << " (plugin " << e.plugin->name << " " << e.plugin->version
                  << ", API " << e.plugin->api_major << "." << e.plugin->api_minor << ")\n";
      if (!e.provides_graph) std::cout << "    graph mode: " << kGraphNotProvided << "\n";
      for (const auto& p : e.info.params)
        std::cout << "    --param " << p.name << "=" << p.default_value << "    " << p.help << "\n";
    }
    std::cout << "\nNCCL workloads: " << kNcclStatus << "\n";
    exit_code = 0;
  });
}

}  // namespace gp::cli
