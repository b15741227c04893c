// PyTorch's log lines of why it ran without CUDA graphs (src/profile/framework_logs.cpp): the
// skip reason with the user code it names, re-records on new sizes, and lines it must ignore.
#include <gtest/gtest.h>

#include <sstream>

#include "graphprof/profile/framework_logs.hpp"

namespace gp {
namespace {

FrameworkLog parse(const std::string& text) {
  std::istringstream in(text);
  return parse_torch_log(in);
}

// The shape TORCH_LOGS_OUT files have: a header (level, date, time, pid, the logging file:line),
// the compile id and artifact, the message; a multi-line message goes on without headers.
const char* const kSkip =
    "V1205 08:27:13.123000 4242 torch/_inductor/cudagraph_utils.py:55] [0/0] [__perf_hints] skipping cudagraphs due to "
    "mutated inputs (1 instances). Found from : \n"
    "   File \"/app/compile_skip.py\", line 21, in step\n"
    "    x.add_(1)\n"
    "\n";

TEST(FrameworkLogs, ASkipReasonWithTheCodeItNames) {
  const FrameworkLog log = parse(kSkip);
  EXPECT_EQ(log.records, 1u);
  ASSERT_EQ(log.entries.size(), 1u);
  const FrameworkLogEntry& e = log.entries[0];
  EXPECT_EQ(e.pid, 4242);
  EXPECT_EQ(e.kind, "skip");
  EXPECT_EQ(e.reason, "mutated inputs (1 instances)");
  EXPECT_EQ(e.file, "/app/compile_skip.py");
  EXPECT_EQ(e.line, 21);
  EXPECT_EQ(e.function, "step");
}

TEST(FrameworkLogs, AReasonWithoutCodeAndARankPrefix) {
  const FrameworkLog log = parse(
      "[rank1]:W1205 08:27:13.5 777 torch/_inductor/compile_fx.py:700] [2/1] [__perf_hints] skipping cudagraphs due to "
      "cpu device (arg0_1)\n");
  ASSERT_EQ(log.entries.size(), 1u);
  EXPECT_EQ(log.entries[0].pid, 777);
  EXPECT_EQ(log.entries[0].reason, "cpu device (arg0_1)");
  EXPECT_TRUE(log.entries[0].file.empty());
}

TEST(FrameworkLogs, ReRecordsOnNewSizes) {
  const FrameworkLog log = parse(
      "W1205 08:27:14.000000 4242 torch/_inductor/cudagraph_trees.py:2300] [1/0] [__perf_hints] CUDAGraph supports dynamic "
      "shapes by recording a new graph for each distinct input size. Recording too many CUDAGraphs may lead to extra overhead. "
      "We have observed 9 distinct sizes. Please consider the following options for better performance\n");
  ASSERT_EQ(log.entries.size(), 1u);
  EXPECT_EQ(log.entries[0].kind, "re-record");
  EXPECT_EQ(log.entries[0].reason, "a new graph for each new input size: 9 distinct sizes");
}

TEST(FrameworkLogs, LinesThatGiveNoReasonAreIgnored) {
  const std::string text =
      std::string("I1205 08:27:13.100000 4242 torch/_inductor/cudagraph_trees.py:400] [0/0] [__cudagraphs] Recording function 0 of graph recording id 0\n") +
      "skipping cudagraphs due to something the program printed itself\n"  // no header: not PyTorch's log
      "V1205 08:27:13.200000 4242 torch/_dynamo/x.py:1] [0/0] [__perf_hints] a hint about\n"
      "   skipping cudagraphs due to nothing (a continuation line is not a record's first)\n"
      "V1205 8:27:13.200000 4242 torch/_dynamo/x.py:1] skipping cudagraphs due to a malformed time\n" +
      kSkip;
  const FrameworkLog log = parse(text);
  EXPECT_EQ(log.records, 3u);
  ASSERT_EQ(log.entries.size(), 1u);
  EXPECT_EQ(log.entries[0].reason, "mutated inputs (1 instances)");
}

TEST(FrameworkLogs, AMissingFileIsAnEmptyLog) {
  const FrameworkLog log = read_torch_log("/nonexistent/graphprof/torch-logs.txt");
  EXPECT_EQ(log.records, 0u);
  EXPECT_TRUE(log.entries.empty());
}

}  // namespace
}  // namespace gp
