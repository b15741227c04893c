// graphprof render: placeholder until its issue lands; says so instead of pretending.
#include "commands.hpp"
#include "graphprof/error.hpp"

namespace gp::cli {

void setup_render(CLI::App& app, int& exit_code) {
  auto* sub = app.add_subcommand("render", "(not available yet)");
  sub->allow_extras();
  sub->callback([&exit_code] {
    exit_code = 0;
    throw internal_error("'render' is not implemented in this build yet");
  });
}

}  // namespace gp::cli
