// Renderings of one Comparison: terminal table, Markdown (PR comments, job summaries), JUnit
// XML (CI dashboards) and JSON (every number behind every verdict). All of them read the same
// Comparison and format numbers with fixed rules, so repeated runs give byte-identical text. `exit`
// is the status the command returns for the comparison's outcome (compare_exit_code: the CLI
// returns it); the outputs print it.
#pragma once
#include <cstddef>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "graphprof/compare/compare_format.hpp"
#include "graphprof/compare/comparison.hpp"
#include "graphprof/core/error.hpp"
#include "graphprof/core/params.hpp"  // params_text, used with these

namespace gp {

// The exit status of each outcome (docs/compare.md, "Exit codes"): the one mapping, which the CLI
// returns and the outputs (and their tests) print.
inline ExitCode compare_exit_code(CompareOutcome outcome) {
  switch (outcome) {
    case CompareOutcome::kPass: return ExitCode::kOk;
    case CompareOutcome::kRegression: return ExitCode::kRegression;
    case CompareOutcome::kNotTrustworthy: return ExitCode::kUntrusted;
  }
  return ExitCode::kInternal;
}

struct CompareConsoleOptions {
  bool color = false;     // ANSI colours; the CLI enables them only on a TTY without NO_COLOR
  bool show_all = false;  // also list rows whose verdict is "same"
  bool verbose = false;   // print each row's full reason and notes under it
};

void print_compare_console(const Comparison& c, ExitCode exit, std::ostream& out, const CompareConsoleOptions& options);

// GitHub-flavoured Markdown, at most `max_bytes` bytes (rows that do not fit are counted, not
// cut in half); regressions and failures come first so they survive the cap.
inline constexpr std::size_t kDefaultMarkdownBytes = 60000;
std::string render_compare_markdown(const Comparison& c, ExitCode exit, std::size_t max_bytes = kDefaultMarkdownBytes);

std::string render_compare_junit(const Comparison& c);

nlohmann::json compare_to_json(const Comparison& c, ExitCode exit);
std::string render_compare_json(const Comparison& c, ExitCode exit);  // pretty-printed, newline-terminated

}  // namespace gp
