// The progress line of run/sweep (src/cli/progress_line.cpp): on a terminal each step replaces the
// last one and nothing is left when it is cleared; elsewhere every step is a line.
#include "progress_line.hpp"

#include <gtest/gtest.h>

#include <iostream>
#include <sstream>

namespace gp::cli {
namespace {

// Runs `f` with std::cerr going to a string, which it returns.
template <typename F>
std::string captured(F f) {
  std::ostringstream s;
  std::streambuf* old = std::cerr.rdbuf(s.rdbuf());
  f();
  std::cerr.rdbuf(old);
  return s.str();
}

TEST(ProgressLine, ElsewhereEveryStepIsALine) {
  const std::string out = captured([] {
    ProgressLine p(false);
    p.show("  workload 1 of 2 (chain)");
    p.show("  workload 2 of 2 (fork-join)");
    p.keep("  workload 2 of 2 (fork-join) failed: its process exited with status 3");
    p.clear();
  });
  EXPECT_EQ(out,
            "  workload 1 of 2 (chain)\n  workload 2 of 2 (fork-join)\n"
            "  workload 2 of 2 (fork-join) failed: its process exited with status 3\n");
}

TEST(ProgressLine, OnATerminalEachStepReplacesTheLastAndKeptLinesStay) {
  const std::string out = captured([] {
    ProgressLine p(true);
    p.show("  workload 1 of 2 (chain)");
    p.show("  workload 2 of 2 (fork-join)");
    p.keep("  failed");
    p.show("  last");
  });  // the destructor clears what is shown
  EXPECT_EQ(out, "\r\033[K  workload 1 of 2 (chain)\r\033[K  workload 2 of 2 (fork-join)\r\033[K  failed\n"
                 "\r\033[K  last\r\033[K");
  // Nothing shown: clearing writes nothing.
  EXPECT_EQ(captured([] { ProgressLine(true).clear(); }), "");
}

}  // namespace
}  // namespace gp::cli
