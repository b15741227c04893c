// Console and Markdown views of a real H200 report (tests/data/h200/chain_run1.json).
#include <gtest/gtest.h>

#include <sstream>

#include "graphprof/core/text_format.hpp"
#include "graphprof/report/reporter.hpp"

namespace gp {
namespace {

Report h200_chain() { return read_report(std::string(GRAPHPROF_TEST_DATA) + "/h200/chain_run1.json"); }

TEST(Reporters, FormatNsPicksReadableUnits) {
  EXPECT_EQ(format_ns(812), "812 ns");
  EXPECT_EQ(format_ns(4310), "4.31 µs");
  EXPECT_EQ(format_ns(321000), "321 µs");
  EXPECT_EQ(format_ns(1.2e6), "1.20 ms");
  EXPECT_EQ(format_ns(2.5e9), "2.50 s");
  EXPECT_EQ(format_ns(999e9), "999.00 s");
  EXPECT_EQ(format_ns(1e308), "1e+299 s");  // a corrupt report's value: not 300 digits in a table cell
  EXPECT_EQ(format_ns(std::numeric_limits<double>::quiet_NaN()), "-");
}

// --verbose: every mode's metric table, then the summary.
TEST(Reporters, ConsoleShowsEveryModeAndTheSummary) {
  std::ostringstream out;
  RunConsoleReporter(/*verbose=*/true).write(h200_chain(), out);
  const std::string s = out.str();
  EXPECT_NE(s.find("NVIDIA H200"), std::string::npos);
  for (const char* m : {"mode=eager: ok", "mode=capture: ok", "mode=graph: ok"}) EXPECT_NE(s.find(m), std::string::npos) << m;
  EXPECT_NE(s.find("summary: chain"), std::string::npos);
  EXPECT_NE(s.find("3.20x"), std::string::npos);  // speedup of the capture mode in that run
  EXPECT_NE(s.find("2 replays"), std::string::npos);
  EXPECT_EQ(s.find("DIFFERENT"), std::string::npos);
}

TEST(Reporters, FailedModeShowsReasonAndFix) {
  std::ostringstream out;
  RunConsoleReporter(/*verbose=*/true).write(read_report(std::string(GRAPHPROF_TEST_DATA) + "/h200/chain_sync_inside.json"), out);
  const std::string s = out.str();
  EXPECT_NE(s.find("mode=capture: failed"), std::string::npos);
  EXPECT_NE(s.find("cudaErrorStreamCaptureUnsupported"), std::string::npos);
  EXPECT_NE(s.find("fix:"), std::string::npos);
  // Without --verbose the reason and the fix are still there, under the summary.
  std::ostringstream brief;
  RunConsoleReporter().write(read_report(std::string(GRAPHPROF_TEST_DATA) + "/h200/chain_sync_inside.json"), brief);
  EXPECT_NE(brief.str().find("chain capture: failed: cudaStreamSynchronize returned cudaErrorStreamCaptureUnsupported"),
            std::string::npos) << brief.str();
  EXPECT_NE(brief.str().find("  fix: "), std::string::npos);
}

TEST(Reporters, MarkdownHasOneTableRowPerMode) {
  std::ostringstream out;
  MarkdownReporter().write(h200_chain(), out);
  const std::string s = out.str();
  EXPECT_NE(s.find("## graphprof run on NVIDIA H200"), std::string::npos);
  EXPECT_NE(s.find("| eager |"), std::string::npos);
  EXPECT_NE(s.find("| capture |"), std::string::npos);
  EXPECT_NE(s.find("| graph |"), std::string::npos);
  EXPECT_NE(s.find("3.20x"), std::string::npos);
}

}  // namespace
}  // namespace gp
