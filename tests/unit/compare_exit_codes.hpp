// The exit status `graphprof compare` documents for each outcome (docs/compare.md): what the tests
// hand to the compare outputs, which print it. The CLI's own choice is checked through the binary
// (tests/cli/compare_cli_tests.cmake).
#pragma once
#include "graphprof/compare/comparison.hpp"
#include "graphprof/core/error.hpp"

namespace gp {

inline ExitCode exit_of(const Comparison& c) {
  switch (c.outcome) {
    case CompareOutcome::kPass: return ExitCode::kOk;
    case CompareOutcome::kRegression: return ExitCode::kRegression;
    case CompareOutcome::kNotTrustworthy: return ExitCode::kUntrusted;
  }
  return ExitCode::kInternal;
}

}  // namespace gp
