// Errors that cross graphprof's layers. Library code throws gp::Error with a category; only
// src/cli/main.cpp turns a category into a process exit code (see docs/exit-codes in README).
#pragma once
#include <stdexcept>
#include <string>

namespace gp {

// Exit codes are part of graphprof's contract with scripts and CI; never reorder them.
enum class ExitCode : int {
  kOk = 0,
  kRegression = 1,   // compare found a regression or a newly failing benchmark
  kUsage = 2,        // bad command line
  kBadInput = 3,     // an input file is unreadable or malformed
  kEnvironment = 4,  // no usable GPU / driver, or another environment problem
  kUntrusted = 5,    // a comparison cannot be trusted (machine mismatch, missing data)
  kInternal = 6,     // a bug in graphprof
};

class Error : public std::runtime_error {
 public:
  Error(ExitCode code, const std::string& message) : std::runtime_error(message), code_(code) {}
  ExitCode code() const noexcept { return code_; }

 private:
  ExitCode code_;
};

// Shorthands for the common categories, so call sites read as what went wrong.
inline Error usage_error(const std::string& m) { return Error(ExitCode::kUsage, m); }
inline Error input_error(const std::string& m) { return Error(ExitCode::kBadInput, m); }
inline Error environment_error(const std::string& m) { return Error(ExitCode::kEnvironment, m); }
inline Error internal_error(const std::string& m) { return Error(ExitCode::kInternal, m); }

}  // namespace gp
