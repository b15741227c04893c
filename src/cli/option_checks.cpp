// Checks every subcommand's options share (see option_checks.hpp).
#include "option_checks.hpp"

#include <cmath>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "graphprof/core/atomic_file.hpp"
#include "graphprof/core/error.hpp"

namespace gp::cli {

namespace {

// profile's COMMAND is the application's own argument list, where an empty string is an argument.
bool passes_through(const CLI::Option& opt) { return opt.get_positional() && opt.get_name() == "command"; }

}  // namespace

CLI::Validator finite_number() {
  return CLI::Validator(
      [](std::string& value) -> std::string {
        if (value.empty()) return "empty value";
        char* end = nullptr;
        const double v = std::strtod(value.c_str(), &end);
        if (end != value.c_str() + value.size()) return "'" + value + "' is not a number";
        if (!std::isfinite(v)) return value + " is not a finite number";
        return {};
      },
      "", "finite");
}

void reject_empty_values(CLI::App& app) {
  const CLI::Validator non_empty(
      [](std::string& value) { return value.empty() ? std::string("empty value") : std::string(); }, "", "non-empty");
  for (CLI::Option* opt : app.get_options()) {
    // Flags take no value; --help and --version are flags.
    if (opt->get_type_size_max() == 0 || passes_through(*opt)) continue;
    opt->check(non_empty);
  }
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) reject_empty_values(*sub);
}

void one_output_on_stdout(const std::vector<std::pair<std::string, std::string>>& outputs) {
  const std::string* first = nullptr;
  for (const auto& [option, path] : outputs) {
    if (!names_stdout(path)) continue;
    if (first != nullptr)
      throw usage_error(option + " " + path + ": " + *first + " already writes to standard output; give one of them a file");
    first = &option;
  }
}

}  // namespace gp::cli
