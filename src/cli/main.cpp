// graphprof's entry point: the only place that maps errors to process exit codes.
//   0 ok · 1 regression found · 2 usage · 3 bad input file · 4 environment (no GPU/driver)
//   5 comparison not trustworthy · 6 internal error
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <algorithm>
#include <iostream>
#include <string>
#include <vector>

#include "commands.hpp"
#include "help_format.hpp"
#include "option_checks.hpp"
#include "graphprof/core/error.hpp"
#include "graphprof/core/json_assert.hpp"
#include "graphprof/core/version.hpp"
#include "graphprof/core/name_match.hpp"

namespace {

// The first argument when it is meant as a command but names none: "'compre' is not a graphprof
// command; did you mean compare?". Empty when it names one (or is an option).
std::string unknown_command(const CLI::App& app, const std::string& word) {
  if (word.empty() || word[0] == '-') return {};
  std::vector<std::string> names;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) names.push_back(sub->get_name());
  if (std::find(names.begin(), names.end(), word) != names.end()) return {};
  std::string best = gp::closest_name(word, names, 2);
  for (const auto& n : names)
    if (best.empty() && word.size() >= 2 && n.rfind(word, 0) == 0) best = n;  // "comp" -> compare
  std::string all;
  for (const auto& n : names) all += (all.empty() ? "" : ", ") + n;
  return "'" + word + "' is not a graphprof command" + (best.empty() ? "" : "; did you mean " + best + "?") +
         " (commands: " + all + ")";
}

// The first "--name" of the command line (before a lone "--") that `app` does not know, with the
// closest option it does know ("--mdoe" -> "--mode"); empty when there is none or none is close.
std::string option_suggestion(const CLI::App& app, const std::vector<std::string>& args) {
  std::vector<std::string> known{"--help"};
  for (const CLI::Option* o : app.get_options())
    for (const std::string& n : o->get_lnames()) known.push_back("--" + n);
  for (const std::string& a : args) {
    if (a == "--") break;
    if (a.size() < 3 || a.compare(0, 2, "--") != 0) continue;
    const std::string name = a.substr(0, a.find('='));
    if (std::find(known.begin(), known.end(), name) != known.end()) continue;
    const std::string best = gp::closest_name(name, known, 2);
    if (!best.empty()) return "unknown option " + name + "; did you mean " + best + "?";
  }
  return {};
}

// CLI11's message, in graphprof's words, with the subcommand it concerns and where its options are
// listed, and the option meant where one was mistyped.
std::string parse_error_text(const CLI::App& app, const CLI::ParseError& e, const std::vector<std::string>& args) {
  const CLI::App* used = &app;
  std::string sub;
  for (const CLI::App* s : app.get_subcommands()) sub = s->get_name(), used = s;
  std::string what = e.what();
  const std::string meant = option_suggestion(*used, args);
  if (what == "A subcommand is required")
    return meant.empty() ? "graphprof: a command is required (graphprof --help lists them)" : "graphprof: " + meant;
  const std::string where = sub.empty() ? "graphprof" : "graphprof " + sub;
  return where + ": " + (meant.empty() ? what : meant + " (" + what + ")") + " (" + where + " --help lists the options)";
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"graphprof: measure what CUDA Graphs do for your GPU work"};
  app.set_version_flag("--version", std::string("graphprof ") + gp::kToolVersion + " (" + gp::kGitRevision + ")");
  app.require_subcommand(1);
  gp::cli::use_help_format(app);  // before the subcommands: they inherit it
  app.footer(std::string("Exit codes: 0 ok, 1 regression found, 2 usage, 3 bad input file, 4 no GPU/driver,\n"
                          "            5 comparison not trustworthy, 6 internal error.\n") +
             (gp::kBuiltWithCuda ? "Without a GPU: list, analyze, render, compare, merge, report work; info, run, "
                                   "sweep and profile need a GPU."
                                 : "Built without CUDA: analyze, render, compare, merge, report work; info, list, "
                                   "run, sweep and profile exit 4.") +
             "\nExamples:\n  graphprof run --workload chain --json chain.json\n  graphprof profile -- python train.py\n"
             "  graphprof COMMAND --help");
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

  // Every byte of stdout must arrive: a full disk or a closed pipe behind stdout is exit 4, not a
  // success with an empty artifact (a CI gate would take that for a pass).
  const auto stdout_failed = [] {
    errno = 0;
    std::cout.flush();
    const bool failed = !std::cout || std::fflush(stdout) != 0 || std::ferror(stdout);
    if (failed)
      std::cerr << "graphprof: standard output: write failed" << (errno != 0 ? std::string(": ") + std::strerror(errno) : "")
                << " (the output is incomplete)\n";
    return failed;
  };
  if (argc > 1) {
    const std::string unknown = unknown_command(app, argv[1]);
    if (!unknown.empty()) {
      std::cerr << "graphprof: " << unknown << "\n";
      return static_cast<int>(gp::ExitCode::kUsage);
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {  // --help, --version
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << parse_error_text(app, e, std::vector<std::string>(argv + 1, argv + argc)) << "\n";
    return static_cast<int>(gp::ExitCode::kUsage);
  } catch (const gp::Error& e) {
    std::cerr << "graphprof: " << e.what() << "\n";
    return static_cast<int>(e.code());
  } catch (const gp::JsonMisuse& e) {
    // Only an input's JSON can have another shape than graphprof's readers expect (json_assert.hpp);
    // the commands that can name the file do so before it gets here.
    std::cerr << "graphprof: an input file is malformed: " << e.what() << "\n";
    return static_cast<int>(gp::ExitCode::kBadInput);
  } catch (const std::exception& e) {
    std::cerr << "graphprof: internal error: " << e.what() << "\n";
    return static_cast<int>(gp::ExitCode::kInternal);
  }
  if (stdout_failed()) return static_cast<int>(gp::ExitCode::kEnvironment);
  return exit_code;
}
